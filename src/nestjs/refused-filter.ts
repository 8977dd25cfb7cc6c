import { Catch, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common'
import { PasscodeRefusedException } from './refused-exception'
import { writeAnswer, type NestResponse } from './request'

/**
 * Answers a {@link PasscodeRefusedException} exactly as every other adapter answers a
 * refusal: the status, `Content-Type`, `Cache-Control: no-store`, `Retry-After` on
 * 429, and the SPEC body's bytes, whatever JSON settings the host gave its platform.
 * `PasscodeAuthModule` registers it for the whole application; a host whose own
 * catch-all filter would take the refusal first can bind this one where it wants it.
 *
 * @example
 * ```ts
 * @UseFilters(PasscodeRefusedFilter)
 * @Controller('1')
 * class EventsController {}
 * ```
 */
@Catch(PasscodeRefusedException)
export class PasscodeRefusedFilter implements ExceptionFilter<PasscodeRefusedException> {
  /**
   * Writes the refusal through the platform's response (Express's `res` or Fastify's `reply`).
   *
   * @param exception - what `PasscodeAuthGuard` threw
   * @param host - the request's, from Nest
   * @example
   * ```ts
   * new PasscodeRefusedFilter().catch(exception, host) // from a filter of the host's own
   * ```
   */
  catch(exception: PasscodeRefusedException, host: ArgumentsHost): void {
    const answer = { statusCode: exception.getStatus(), body: exception.getResponse(), headers: exception.headers }
    writeAnswer(host.switchToHttp().getResponse<NestResponse>(), answer)
  }
}
