import { HttpException } from '@nestjs/common'
import { setClassName } from '../core/class-name'
import { responseHeaders, type FailureBody, type FailureReason } from '../protocol/outcomes'
import type { AuthOutcome } from '../service/auth-outcome'

/**
 * A request's credentials were refused: what `PasscodeAuthGuard` throws. A Nest
 * `HttpException` whose status and response are exactly what every other adapter sends
 * (`getStatus()`: 400, 401, 429, 503 or 504; `getResponse()`: the SPEC body), with the
 * response headers in `headers` (`Retry-After` on 429). The module's
 * `PasscodeRefusedFilter` writes it byte for byte; an exception filter of the host's
 * that catches it first (its own for this class, or a catch-all one given to
 * `app.useGlobalFilters`) answers it instead, as with `onRefusal: 'next'` in the other
 * adapters. The internal `reason` is for logs only and is not serialised.
 *
 * @example
 * ```ts
 * @Catch(PasscodeRefusedException)
 * class RefusalLog implements ExceptionFilter {
 *   catch(exception: PasscodeRefusedException, host: ArgumentsHost) {
 *     logger.warn(`refused: ${exception.reason}`)
 *     new PasscodeRefusedFilter().catch(exception, host)
 *   }
 * }
 * ```
 */
export class PasscodeRefusedException extends HttpException {
  static {
    setClassName(this, 'PasscodeRefusedException')
  }

  /** The response headers passcode-auth sends with it (with `Retry-After` on 429). */
  readonly headers: Readonly<Record<string, string>>
  readonly #reason: FailureReason

  constructor(outcome: AuthOutcome & { ok: false }) {
    super(outcome.body, outcome.statusCode)
    this.message = outcome.body.error
    this.headers = responseHeaders(outcome)
    this.#reason = outcome.reason
  }

  /** Why, for the host's logs only: never send it, it tells apart what SPEC §5.1 hides. */
  get reason(): FailureReason {
    return this.#reason
  }

  /** The exact body passcode-auth sends (SPEC §4, §5.1). */
  override getResponse(): FailureBody {
    return super.getResponse() as FailureBody
  }
}
