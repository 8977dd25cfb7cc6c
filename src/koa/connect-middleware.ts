import type { Middleware } from 'koa'
import { assertPasscodeAuth } from '../http/adapter-options'
import { createConnectRequest } from '../http/connect-request'
import type { PasscodeAuth } from '../service/create-passcode-auth'
import { koaReader } from './reader'
import { respond } from './respond'

/**
 * The Koa (2 and 3) middleware that answers `GET /v1/connect?partner=<name>`
 * (SPEC §4): credentials first, then the partner. It always answers and never calls
 * `next`, so route `/v1/connect` to it (with a router, or a path check): `GET` and
 * `HEAD` get the SPEC answers, any other method 405 with `Allow: GET, HEAD`, as in
 * every adapter. `partner` is read from the raw URL, as in every adapter.
 *
 * @param auth - what `createPasscodeAuth` returned
 * @example
 * ```ts
 * const connect = connectMiddleware(auth)
 * app.use((ctx, next) => (ctx.path === '/v1/connect' ? connect(ctx, next) : next()))
 * ```
 */
export function connectMiddleware(auth: PasscodeAuth): Middleware {
  assertPasscodeAuth(auth, 'connectMiddleware')
  const connectRequest = createConnectRequest(auth, koaReader)
  return async function connectRequestMiddleware(ctx) {
    respond(ctx, await connectRequest(ctx))
  }
}
