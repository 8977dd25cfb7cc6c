import type { RequestHandler } from 'express'
import { assertPasscodeAuth, checkAdapterOptions } from '../http/adapter-options'
import { createConnectRequest } from '../http/connect-request'
import type { CorsOptions } from '../http/cors'
import { writeNodeResponse } from '../http/node/write-response'
import { expressReader } from './reader'
import type { PasscodeAuth } from '../service/create-passcode-auth'

/**
 * Options of the Express {@link connectHandler}.
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
 * The Express (4 and 5) handler of `GET /v1/connect?partner=<name>` (SPEC §4):
 * credentials first, then the partner; it always answers, with the exact SPEC body.
 * `partner` is read from the raw URL, not from `req.query`, so Express's query
 * parser settings make no difference. Mounted with `app.all`, it also answers every
 * other method with 405 (`Allow: GET, HEAD`) as the Fastify and Koa adapters do;
 * with `app.get`, other methods get Express's own 404.
 *
 * With `cors`, pages of the listed origins may call it from a browser (SPEC §5.30);
 * mount it with `app.all` so that the preflight `OPTIONS` reaches it.
 *
 * @param auth - what `createPasscodeAuth` returned
 * @param options - `cors`, off by default; checked at once
 * @example
 * ```ts
 * app.all('/v1/connect', connectHandler(auth, { cors: { origins: ['https://dashboard.partner.example'] } }))
 * ```
 */
export function connectHandler(auth: PasscodeAuth, options?: ConnectHandlerOptions): RequestHandler {
  assertPasscodeAuth(auth, 'connectHandler')
  options = checkAdapterOptions(options, 'connectHandler', { cors: () => undefined })
  const connectRequest = createConnectRequest(auth, expressReader, options)
  return function connectRequestHandler(req, res, next) {
    connectRequest(req).then((result) => writeNodeResponse(res, result), next)
  }
}
