import type { IncomingMessage, ServerResponse } from 'node:http'
import { expressReader } from '../express/reader'
import { assertPasscodeAuth, checkAdapterOptions } from '../http/adapter-options'
import { createConnectRequest } from '../http/connect-request'
import type { CorsOptions } from '../http/cors'
import { writeNodeResponse } from '../http/node/write-response'
import type { RequestReader } from '../http/request-reader'
import type { PasscodeAuth } from '../service/create-passcode-auth'

/**
 * Options of the NestJS {@link connectHandler}.
 *
 * @example
 * ```ts
 * const options: ConnectHandlerOptions = { cors: { origins: ['https://dashboard.partner.example'] } }
 * ```
 */
export interface ConnectHandlerOptions {
  /** Origins whose pages may call `/v1/connect` from a browser (SPEC §5.30). @default off */
  readonly cors?: CorsOptions
}

/**
 * The request a Nest middleware gets on either platform: Node's, with the client
 * address the platform resolved.
 *
 * @example
 * ```ts
 * const middleware = connectHandler(auth)
 * middleware(request as MiddlewareRequest, response, next)
 * ```
 */
export type MiddlewareRequest = IncomingMessage & {
  /** The client's address: Express's `req.ip`; on Fastify, `request.ip` (it honours `trustProxy`), which @fastify/middie copies. */
  readonly ip?: string | undefined
}

/**
 * The Nest middleware of `GET /v1/connect?partner=<name>` (SPEC §4), which
 * `PasscodeAuthModule` mounts on `v1/connect` for every method unless
 * `connectRoute: false`: credentials first, then the partner, with the exact SPEC
 * body; `HEAD` as `GET`; every other method 405 (`Allow: GET, HEAD`). A middleware,
 * not a route: on Fastify it runs in the `onRequest` hook, so it answers methods
 * Fastify routes nowhere and never waits for a body to be parsed, as the other
 * adapters do. The same on `@nestjs/platform-express` and `@nestjs/platform-fastify`.
 *
 * @param auth - what `createPasscodeAuth` returned
 * @param options - `cors`, off by default; checked at once
 * @example
 * ```ts
 * // With PasscodeAuthModule.forRoot({ auth, connectRoute: false }), mounted elsewhere:
 * consumer.apply(connectHandler(auth)).forRoutes({ path: 'partners/v1/connect', method: RequestMethod.ALL })
 * ```
 */
export function connectHandler(
  auth: PasscodeAuth,
  options?: ConnectHandlerOptions,
): (request: MiddlewareRequest, response: ServerResponse, next: (error?: unknown) => void) => void {
  assertPasscodeAuth(auth, 'connectHandler')
  options = checkAdapterOptions(options, 'connectHandler', { cors: () => undefined })
  // Express's reader reads a Node request and its `ip`: the middleware's request on both platforms.
  const connectRequest = createConnectRequest(auth, expressReader as RequestReader<MiddlewareRequest>, options)
  return function passcodeAuthConnect(request, response, next) {
    connectRequest(request).then((answer) => writeNodeResponse(response, answer), next)
  }
}
