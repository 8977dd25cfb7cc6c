import { Inject, Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common'
import { Reflector } from '@nestjs/core'
import { ConfigurationError } from '../core/errors'
import type { PasscodeAuth } from '../service/create-passcode-auth'
import { PASSCODE_AUTH } from './options'
import { principalOf, rememberPrincipal } from './principal'
import { PasscodeRefusedException } from './refused-exception'
import { addHeaders, readerOf, type NestRequest, type NestResponse } from './request'
import { requiredScopes } from './scopes-metadata'

/**
 * The Nest guard that lets a request through only with valid `X-Service-Account-Id` and
 * `X-Service-Passcode` headers, on `@nestjs/platform-express` and
 * `@nestjs/platform-fastify` alike. Who called is then on the request, for
 * `@PasscodePrincipal()` (and as `request.passcodeAuth`); while the passcode is in its
 * last days the host's answer carries `Sunset`. A refusal is thrown as a
 * `PasscodeRefusedException`, which the module's filter answers byte for byte as every
 * other adapter does. Use it on a handler or a controller (`@UseGuards`), for the whole
 * application (`APP_GUARD`), or through `@RequireScopes`, which applies it; it runs
 * once per request however often it is applied. It needs `PasscodeAuthModule` (for the
 * service) and guards HTTP routes only.
 *
 * @example
 * ```ts
 * @Controller('1')
 * @UseGuards(PasscodeAuthGuard)
 * class EventsController {
 *   @Get('events.json')
 *   list(@PasscodePrincipal() principal: Principal) {
 *     return { events: [], calledBy: principal }
 *   }
 * }
 * ```
 */
@Injectable()
export class PasscodeAuthGuard implements CanActivate {
  readonly #auth: PasscodeAuth
  readonly #reflector: Reflector

  constructor(@Inject(PASSCODE_AUTH) auth: PasscodeAuth, @Inject(Reflector) reflector: Reflector) {
    this.#auth = auth
    this.#reflector = reflector
  }

  /**
   * Nest calls it before the route's handler: `true` lets the request through (who
   * called is then on it); a refusal is thrown as a `PasscodeRefusedException`.
   *
   * @param context - the request's, from Nest
   * @example
   * ```ts
   * @UseGuards(PasscodeAuthGuard) // Nest calls canActivate for each request of the route
   * ```
   */
  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    if (context.getType() !== 'http') throw new ConfigurationError(`PasscodeAuthGuard guards HTTP routes only, not ${context.getType()} handlers`)
    const http = context.switchToHttp()
    const request = http.getRequest<NestRequest>()
    const scopes = requiredScopes(this.#reflector, context)
    // Credentials first (a bad one gets its 400 or 401 on every route), then the scopes.
    if (principalOf(request) !== undefined) return allowed(scopes)
    const answer = this.#auth.verifyRequest(request, readerOf(request))
    if (!(answer instanceof Promise)) {
      rememberPrincipal(request, answer)
      return allowed(scopes)
    }
    return answer.then((outcome) => {
      if (!outcome.ok) throw new PasscodeRefusedException(outcome)
      rememberPrincipal(request, outcome.principal)
      // `Sunset` while the passcode is in its last days, on the host's own answer.
      if (outcome.headers !== undefined) addHeaders(http.getResponse<NestResponse>(), outcome.headers)
      return allowed(scopes)
    })
  }
}

/**
 * Whether a verified request may reach a route that needs `scopes`. Fails closed: the
 * service checks no scope yet (restricted passcodes are not built), so a route that names one lets
 * nobody through, rather than letting through a passcode that a later version restricts.
 */
function allowed(scopes: readonly string[]): true {
  if (scopes.length === 0) return true
  throw new ConfigurationError(
    `PasscodeAuthGuard: the route needs scopes (${scopes.join(', ')}), which this version of passcode-auth cannot check yet`,
  )
}
