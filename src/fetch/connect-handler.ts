import { createConnectRequest } from '../http/connect-request'
import type { CorsOptions } from '../http/cors'
import { assertPasscodeAuth, checkAdapterOptions } from '../http/adapter-options'
import { withClientAddress } from '../http/fetch/fetch-request'
import { fetchResponse } from '../http/fetch/fetch-response'
import type { PasscodeAuth } from '../service/create-passcode-auth'

/**
 * A fetch handler of passcode-auth. `clientAddress` is the caller's address, for the
 * service's `rateLimit` option (see {@link FetchPasscodeGuard}).
 */
export type FetchHandler = (request: Request, clientAddress?: string) => Promise<Response>

/**
 * Options of the fetch {@link connectHandler}.
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
 * The handler of `GET /v1/connect?partner=<name>` (SPEC §4) over web-standard
 * `Request`/`Response`: credentials first, then the partner; `HEAD` is answered as
 * `GET` without a body, any other method with 405 and `Allow: GET, HEAD`, as in every
 * adapter. `partner` is read from the request URL's own query text. With `cors`,
 * pages of the listed origins may call it from a browser; route `OPTIONS` to it too.
 *
 * @param auth - what `createPasscodeAuth` returned
 * @param options - `cors`, off by default; checked at once
 * @example
 * ```ts
 * const connect = connectHandler(auth)
 * Deno.serve((request, info) =>
 *   new URL(request.url).pathname === '/v1/connect' ? connect(request, info.remoteAddr.hostname) : new Response(null, { status: 404 }),
 * )
 * ```
 */
export function connectHandler(auth: PasscodeAuth, options?: ConnectHandlerOptions): FetchHandler {
  assertPasscodeAuth(auth, 'connectHandler')
  options = checkAdapterOptions(options, 'connectHandler', { cors: () => undefined })
  const connectRequest = withClientAddress((reader) => createConnectRequest(auth, reader, options))
  return function connect(request, clientAddress) {
    return connectRequest(request, clientAddress).then((result) => fetchResponse(result, request.method === 'HEAD'))
  }
}
