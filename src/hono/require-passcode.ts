import type { Context, MiddlewareHandler } from 'hono'
import type { Principal } from '../core/entities'
import { assertPasscodeAuth, checkAdapterOptions, checkOnRefusal, checkScopes } from '../http/adapter-options'
import { fetchResponse } from '../http/fetch/fetch-response'
import { PasscodeRefusedError } from '../http/refusal-error'
import type { PasscodeAuth } from '../service/create-passcode-auth'
import { HONO_OPTION_CHECKS, honoReader } from './reader'

declare module 'hono' {
  interface ContextVariableMap {
    /** Who called (SPEC §5.17); set by `requirePasscode` before the next handler runs. */
    passcodeAuth: Principal
  }
}

/**
 * Options of the Hono {@link requirePasscode}.
 *
 * @example
 * ```ts
 * import { getConnInfo } from 'hono/bun'
 *
 * const options: RequirePasscodeOptions = { clientAddress: (c) => getConnInfo(c).remote.address }
 * ```
 */
export interface RequirePasscodeOptions {
  /**
   * The caller's address, for the service's `rateLimit` option (requests without one
   * share one per-address count, reported once as `limiter.no_client_address`):
   * `getConnInfo(c).remote.address` from Hono's
   * helper of the runtime (`hono/bun`, `hono/deno`, `@hono/node-server/conninfo`).
   * @default none
   */
  clientAddress?: (c: Context) => string | undefined
  /**
   * `'respond'` answers a refusal at once with the exact SPEC body and headers.
   * `'next'` throws a `PasscodeRefusedError` instead, for hosts whose `app.onError`
   * shapes every error response. Without an `onError` of the host's, Hono's own
   * handler sends the error's `getResponse()`: the exact SPEC answer.
   * @default 'respond'
   */
  onRefusal?: 'respond' | 'next'
  /**
   * The scopes the route needs (SPEC §5.48), each declared by the service's `scopes`
   * option (checked now: an undeclared one throws `InvalidOptionsError`). A valid
   * passcode that lacks one is refused with 403 `Missing scope: <name>`, the first
   * missing in this order.
   * @default none (any valid passcode)
   */
  scopes?: readonly string[]
}

/**
 * Hono (4) middleware that lets a request through only with valid
 * `X-Service-Account-Id` and `X-Service-Passcode` headers, and sets who called as
 * `c.var.passcodeAuth` (typed through Hono's `ContextVariableMap`). A refusal is
 * answered at once with the exact SPEC body (unless `onRefusal: 'next'`); the next
 * handler does not run. A cache hit takes the same synchronous warm path as every
 * adapter.
 *
 * @param auth - what `createPasscodeAuth` returned
 * @param options - see {@link RequirePasscodeOptions}; checked at once
 * @example
 * ```ts
 * app.get('/1/events.json', requirePasscode(auth), (c) => c.json({ calledBy: c.var.passcodeAuth }))
 * ```
 */
export function requirePasscode(auth: PasscodeAuth, options?: RequirePasscodeOptions): MiddlewareHandler {
  assertPasscodeAuth(auth, 'requirePasscode')
  options = checkAdapterOptions(options, 'requirePasscode', { ...HONO_OPTION_CHECKS, onRefusal: checkOnRefusal, scopes: checkScopes })
  const required = auth.requiredScopes(options?.scopes)
  const reader = honoReader(options)
  const passRefusals = options?.onRefusal === 'next'
  // Not an async function: a cache hit hands on next()'s own promise.
  return function requirePasscodeMiddleware(c, next) {
    const answer = auth.verifyRequest(c, reader, required)
    if (!(answer instanceof Promise)) {
      c.set('passcodeAuth', answer)
      return next()
    }
    return answer.then((outcome) => {
      if (!outcome.ok) {
        if (passRefusals) throw new PasscodeRefusedError(outcome)
        return fetchResponse(outcome, c.req.method === 'HEAD')
      }
      c.set('passcodeAuth', outcome.principal)
      const { headers } = outcome
      if (headers === undefined) return next()
      // `Sunset` while the passcode is in its last days, on the host's own answer.
      return next().then(() => {
        for (const name in headers) c.header(name, headers[name])
      })
    })
  }
}
