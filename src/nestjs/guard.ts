import { Inject, Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common'
import { Reflector } from '@nestjs/core'
import type { Principal } from '../core/entities'
import { ConfigurationError } from '../core/errors'
import type { PasscodeAuth } from '../service/create-passcode-auth'
import type { ScopeRequirement } from '../service/verify/restrictions'
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
 * application (`APP_GUARD`), or through `@RequireScopes`, which applies it; it verifies
 * once per request however often it is applied. A route that names scopes
 * (`@RequireScopes`) answers 403 `Missing scope: <name>` to a passcode without one of
 * them (SPEC §5.48), after the credentials are checked; a scope the service does not
 * declare is an `InvalidOptionsError` on the route's first request. It needs
 * `PasscodeAuthModule` (for the service) and guards HTTP routes only.
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
  // Each route's scopes checked against the service's declared ones once, then only compared.
  readonly #requirements = new Map<string, ScopeRequirement>()

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
    const required = this.#requirement(requiredScopes(this.#reflector, context))
    // Applied twice (APP_GUARD and @RequireScopes): verified once, the scopes compared each time.
    const known = principalOf(request)
    if (known !== undefined) return this.#allowed(known, required)
    // Credentials first (a bad one gets its 400 or 401 on every route), then the scopes (SPEC §5.48).
    const answer = this.#auth.verifyRequest(request, readerOf(request), required)
    if (!(answer instanceof Promise)) {
      rememberPrincipal(request, answer)
      return true
    }
    return answer.then((outcome) => {
      if (!outcome.ok) throw new PasscodeRefusedException(outcome)
      rememberPrincipal(request, outcome.principal)
      // `Sunset` while the passcode is in its last days, on the host's own answer.
      if (outcome.headers !== undefined) addHeaders(http.getResponse<NestResponse>(), outcome.headers)
      return true
    })
  }

  /**
   * The route's scopes as the service checks them, made once per list: a scope the service
   * does not declare is an `InvalidOptionsError` naming it, on the first request of the route.
   */
  #requirement(scopes: readonly string[]): ScopeRequirement | undefined {
    if (scopes.length === 0) return undefined
    const key = scopes.join(' ')
    let required = this.#requirements.get(key)
    if (required === undefined) {
      required = this.#auth.requiredScopes(scopes)
      this.#requirements.set(key, required)
    }
    return required
  }

  /** A principal verified earlier in the request, through this route's scopes: 403 `Missing scope` for the first it lacks. */
  #allowed(principal: Principal, required: ScopeRequirement | undefined): true {
    if (required === undefined) return true
    const refusal = this.#auth.checkScopes(principal, required)
    if (refusal !== undefined) throw new PasscodeRefusedException(refusal)
    return true
  }
}
