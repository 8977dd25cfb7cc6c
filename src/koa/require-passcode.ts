import type { Middleware } from 'koa'
import type { Principal } from '../core/entities'
import { assertPasscodeAuth, checkAdapterOptions, checkOnRefusal, checkScopes } from '../http/adapter-options'
import { PasscodeRefusedError } from '../http/refusal-error'
import type { AuthOutcome } from '../service/auth-outcome'
import type { PasscodeAuth } from '../service/create-passcode-auth'
import { koaReader } from './reader'
import { respond } from './respond'

declare module 'koa' {
  interface DefaultState {
    /** Who called (SPEC §5.17); set by `requirePasscode` before downstream middleware runs. */
    passcodeAuth?: Principal
  }
}

/**
 * Options of the Koa {@link requirePasscode}.
 *
 * @example
 * ```ts
 * const options: RequirePasscodeOptions = { onRefusal: 'next' }
 * ```
 */
export interface RequirePasscodeOptions {
  /**
   * `'respond'` answers a refusal at once with the exact SPEC body and headers.
   * `'next'` throws a `PasscodeRefusedError` instead, for hosts whose own error
   * middleware shapes every error response: the `await next()` of the middleware
   * upstream rejects with it. Koa's default error handler reads its `status`,
   * `expose` and `headers` (and sends its message as text).
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
 * Koa (2 and 3) middleware that lets a request through only with valid
 * `X-Service-Account-Id` and `X-Service-Passcode` headers, and puts who called on
 * `ctx.state.passcodeAuth`. A refusal is answered at once with the exact SPEC body
 * (unless `onRefusal: 'next'`); downstream middleware does not run.
 *
 * @param auth - what `createPasscodeAuth` returned
 * @param options - see {@link RequirePasscodeOptions}; checked at once
 * @example
 * ```ts
 * app.use(requirePasscode(auth))
 * app.use((ctx) => {
 *   ctx.body = { calledBy: ctx.state.passcodeAuth }
 * })
 * ```
 */
export function requirePasscode(auth: PasscodeAuth, options?: RequirePasscodeOptions): Middleware {
  assertPasscodeAuth(auth, 'requirePasscode')
  options = checkAdapterOptions(options, 'requirePasscode', { onRefusal: checkOnRefusal, scopes: checkScopes })
  const passRefusals = options?.onRefusal === 'next'
  const required = auth.requiredScopes(options?.scopes)
  const authenticated = async (ctx: Parameters<Middleware>[0], next: Parameters<Middleware>[1], pending: Promise<AuthOutcome>) => {
    const outcome = await pending
    if (!outcome.ok) {
      if (passRefusals) throw new PasscodeRefusedError(outcome)
      respond(ctx, outcome)
      return
    }
    ctx.state.passcodeAuth = outcome.principal
    // `Sunset` while the passcode is in its last days, on the host's own answer.
    if (outcome.headers !== undefined) ctx.set(outcome.headers)
    await next()
  }
  // Not an async function: a cache hit hands on next()'s own promise, adding no
  // promise of its own (Koa's compose turns a synchronous throw into a rejection).
  return function requirePasscodeMiddleware(ctx, next) {
    const answer = auth.verifyRequest(ctx, koaReader, required)
    if (answer instanceof Promise) return authenticated(ctx, next, answer)
    ctx.state.passcodeAuth = answer
    return next()
  }
}
