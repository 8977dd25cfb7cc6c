import type { Middleware } from 'koa'
import type { Principal } from '../core/entities'
import { assertPasscodeAuth } from '../http/adapter-options'
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
 * Koa (2 and 3) middleware that lets a request through only with valid
 * `X-Service-Account-Id` and `X-Service-Passcode` headers, and puts who called on
 * `ctx.state.passcodeAuth`. A refusal is answered at once with the exact SPEC body;
 * downstream middleware does not run.
 *
 * @param auth - what `createPasscodeAuth` returned
 * @example
 * ```ts
 * app.use(requirePasscode(auth))
 * app.use((ctx) => {
 *   ctx.body = { calledBy: ctx.state.passcodeAuth }
 * })
 * ```
 */
export function requirePasscode(auth: PasscodeAuth): Middleware {
  assertPasscodeAuth(auth, 'requirePasscode')
  const authenticated = async (ctx: Parameters<Middleware>[0], next: Parameters<Middleware>[1], pending: Promise<AuthOutcome>) => {
    const outcome = await pending
    if (!outcome.ok) {
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
    const answer = auth.verifyRequest(ctx, koaReader)
    if (answer instanceof Promise) return authenticated(ctx, next, answer)
    ctx.state.passcodeAuth = answer
    return next()
  }
}
