import type { Principal } from '../core/entities'
import { assertPasscodeAuth, checkAdapterOptions, checkScopes } from '../http/adapter-options'
import { withClientAddress } from '../http/fetch/fetch-request'
import { fetchResponse } from '../http/fetch/fetch-response'
import type { PasscodeAuth } from '../service/create-passcode-auth'

/** What the fetch {@link requirePasscode} gives: who called, or the refusal to send. */
export type PasscodeCheck =
  | {
      /** The credentials were accepted. */
      readonly ok: true
      /** Who called (SPEC §5.17). */
      readonly principal: Principal
      /** Headers to add to the host's own response: `Sunset` while the passcode is in its last days. */
      readonly headers: Readonly<Record<string, string>>
    }
  | {
      /** The credentials were refused. */
      readonly ok: false
      /** The refusal, with the exact SPEC body and headers: return it as it is. */
      readonly response: Response
    }

/**
 * A fetch {@link requirePasscode} check. `clientAddress` is the caller's address, for
 * the service's `rateLimit` option (requests without one share one per-address count,
 * reported once as `limiter.no_client_address`): fetch has no standard way to tell
 * it, so pass Bun's
 * `server.requestIP(request)?.address`, Deno's `info.remoteAddr.hostname`, or what the
 * host's trusted proxy says.
 */
export type FetchPasscodeGuard = (request: Request, clientAddress?: string) => Promise<PasscodeCheck>

/**
 * Options of the fetch {@link requirePasscode}. None yet: every adapter's guard takes an
 * options object, checked at once (an unknown key is refused), so the fetch guard
 * takes one too, for the options the guards will share.
 *
 * @example
 * ```ts
 * const options: RequirePasscodeOptions = {}
 * ```
 */
export interface RequirePasscodeOptions {
  /**
   * The scopes the route needs (SPEC §5.48), each declared by the service's `scopes`
   * option (checked now: an undeclared one throws `InvalidOptionsError`). A valid
   * passcode that lacks one is refused with 403 `Missing scope: <name>`, the first
   * missing in this order.
   * @default none (any valid passcode)
   */
  readonly scopes?: readonly string[]
}

const NONE: Readonly<Record<string, string>> = Object.freeze({})

/**
 * Checks the `X-Service-Account-Id` and `X-Service-Passcode` headers of a web-standard
 * `Request` (Bun, Deno, Cloudflare Workers, Next.js route handlers). Resolves
 * `{ ok: true, principal, headers }` for valid credentials, or `{ ok: false, response }`
 * with the refusal to send as it is. A cache hit takes the same synchronous warm path
 * as the Express, Fastify and Koa adapters.
 *
 * @param auth - what `createPasscodeAuth` returned
 * @param options - see {@link RequirePasscodeOptions}; checked at once
 * @example
 * ```ts
 * const guard = requirePasscode(auth)
 * Bun.serve({
 *   async fetch(request, server) {
 *     const check = await guard(request, server.requestIP(request)?.address)
 *     if (!check.ok) return check.response
 *     return Response.json({ calledBy: check.principal }, { headers: check.headers })
 *   },
 * })
 * ```
 */
export function requirePasscode(auth: PasscodeAuth, options?: RequirePasscodeOptions): FetchPasscodeGuard {
  assertPasscodeAuth(auth, 'requirePasscode')
  options = checkAdapterOptions(options, 'requirePasscode', { scopes: checkScopes })
  const required = auth.requiredScopes(options?.scopes)
  const verifyRequest = withClientAddress((reader) => (request: Request) => auth.verifyRequest(request, reader, required))
  return function checkPasscode(request, clientAddress) {
    const answer = verifyRequest(request, clientAddress)
    if (!(answer instanceof Promise)) return Promise.resolve({ ok: true, principal: answer, headers: NONE })
    return answer.then((outcome): PasscodeCheck =>
      outcome.ok
        ? { ok: true, principal: outcome.principal, headers: outcome.headers ?? NONE }
        : { ok: false, response: fetchResponse(outcome, request.method === 'HEAD') },
    )
  }
}
