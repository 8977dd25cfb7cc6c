import type { Handler } from 'hono'
import { assertPasscodeAuth, checkAdapterOptions } from '../http/adapter-options'
import { createConnectRequest } from '../http/connect-request'
import { fetchResponse } from '../http/fetch/fetch-response'
import type { PasscodeAuth } from '../service/create-passcode-auth'
import type { CorsOptions } from '../http/cors'
import { HONO_OPTION_CHECKS, honoReader } from './reader'
import type { RequirePasscodeOptions } from './require-passcode'

/**
 * Options of the Hono {@link connectHandler}.
 *
 * @example
 * ```ts
 * const options: ConnectHandlerOptions = { cors: { origins: ['https://dashboard.partner.example'] } }
 * ```
 */
export interface ConnectHandlerOptions extends Pick<RequirePasscodeOptions, 'clientAddress'> {
  /** Origins whose pages may call `/v1/connect` from a browser (SPEC §5.30). @default off */
  cors?: CorsOptions
}

/**
 * The Hono (4) handler of `GET /v1/connect?partner=<name>` (SPEC §4). Mount it with
 * `app.all`, so that `HEAD` gets the `GET` answer without a body and every other
 * method the 405 with `Allow: GET, HEAD`, as in every adapter. With `cors`, pages of
 * the listed origins may call it from a browser (SPEC §5.30).
 *
 * @param auth - what `createPasscodeAuth` returned
 * @param options - `clientAddress` and `cors` (see {@link ConnectHandlerOptions}); checked at once
 * @example
 * ```ts
 * app.all('/v1/connect', connectHandler(auth))
 * ```
 */
export function connectHandler(auth: PasscodeAuth, options?: ConnectHandlerOptions): Handler {
  assertPasscodeAuth(auth, 'connectHandler')
  options = checkAdapterOptions(options, 'connectHandler', { ...HONO_OPTION_CHECKS, cors: () => undefined })
  const connectRequest = createConnectRequest(auth, honoReader(options), options?.cors === undefined ? undefined : { cors: options.cors })
  return function connectRequestHandler(c) {
    return connectRequest(c).then((result) => fetchResponse(result, c.req.method === 'HEAD'))
  }
}
