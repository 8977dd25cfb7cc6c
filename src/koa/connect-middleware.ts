import type { Middleware } from 'koa'
import { assertPasscodeAuth } from '../http/adapter-options'
import { connectNodeRequest } from '../http/connect-request'
import type { PasscodeAuth } from '../service/create-passcode-auth'
import { respond } from './respond'

/**
 * The Koa (2 and 3) middleware that answers `GET /v1/connect?partner=<name>`
 * (SPEC §4): credentials first, then the partner. It always answers and never calls
 * `next`, so route it (with a router, or a path check) to `GET /v1/connect`.
 * `partner` is read from the raw URL, as in every adapter.
 *
 * @param auth - what `createPasscodeAuth` returned
 * @example
 * ```ts
 * const connect = connectMiddleware(auth)
 * app.use((ctx, next) => (ctx.method === 'GET' && ctx.path === '/v1/connect' ? connect(ctx, next) : next()))
 * ```
 */
export function connectMiddleware(auth: PasscodeAuth): Middleware {
  assertPasscodeAuth(auth, 'connectMiddleware')
  return async function connectRequestMiddleware(ctx) {
    respond(ctx, await connectNodeRequest(auth, ctx.req))
  }
}
