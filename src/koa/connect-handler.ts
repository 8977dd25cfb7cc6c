import type { Middleware } from 'koa'
import { assertPasscodeAuth, checkAdapterOptions } from '../http/adapter-options'
import { createConnectRequest } from '../http/connect-request'
import type { CorsOptions } from '../http/cors'
import type { PasscodeAuth } from '../service/create-passcode-auth'
import { koaReader } from './reader'
import { respond } from './respond'

/**
 * Options of the Koa {@link connectHandler}.
 *
 * @example
 * ```ts
 * const options: ConnectHandlerOptions = { cors: { origins: ['https://dashboard.partner.example'] } }
 * ```
 */
export interface ConnectHandlerOptions {
  /** Origins whose pages may call `/v1/connect` from a browser (SPEC §5.30). @default off */
  cors?: CorsOptions
}

/**
 * The Koa (2 and 3) middleware that answers `GET /v1/connect?partner=<name>`
 * (SPEC §4): credentials first, then the partner. It always answers and never calls
 * `next`, so route `/v1/connect` to it (with a router, or a path check): `GET` and
 * `HEAD` get the SPEC answers, any other method 405 with `Allow: GET, HEAD`, as in
 * every adapter. `partner` is read from the raw URL, as in every adapter.
 *
 * With `cors`, pages of the listed origins may call it from a browser (SPEC §5.30).
 *
 * @param auth - what `createPasscodeAuth` returned
 * @param options - `cors`, off by default; checked at once
 * @example
 * ```ts
 * const connect = connectHandler(auth)
 * app.use((ctx, next) => (ctx.path === '/v1/connect' ? connect(ctx, next) : next()))
 * ```
 */
export function connectHandler(auth: PasscodeAuth, options?: ConnectHandlerOptions): Middleware {
  assertPasscodeAuth(auth, 'connectHandler')
  options = checkAdapterOptions(options, 'connectHandler', { cors: () => undefined })
  const connectRequest = createConnectRequest(auth, koaReader, options)
  return async function connectRequestMiddleware(ctx) {
    respond(ctx, await connectRequest(ctx))
  }
}
