import { FAILURES, type FailureReason } from '../protocol/outcomes'
import { ownOptions } from '../core/own-data'
import { headerValue, readCredentials, readPartner } from '../protocol/credentials'
import type { ConnectResult } from '../service/connect/connect'
import type { PasscodeAuth } from '../service/create-passcode-auth'
import { corsPolicy, type CorsOptions, type PreflightAnswer } from './cors'
import type { RequestReader } from './request-reader'

const METHOD_NOT_ALLOWED: ConnectResult = Object.freeze({ ...FAILURES.method_not_allowed, reason: 'method_not_allowed' satisfies FailureReason })

/** Options of {@link createConnectRequest}. */
export interface ConnectRequestOptions {
  /** CORS for browsers (SPEC §5.30); off when absent. */
  readonly cors?: CorsOptions | undefined
}

/**
 * `GET /v1/connect` for any request shape: the credentials from the headers and
 * `partner` from the raw request target. The query is parsed here, never by the
 * framework, so every framework answers alike: Express 4's `qs` would turn
 * `partner[a]=b` into an object, and frameworks differ on repeated parameters.
 * `HEAD` is answered as `GET` (the server sends no body); any other method gets 405
 * with `Allow: GET, HEAD`, without reading the credentials, in every adapter alike.
 * The caller's address goes with the credentials (the service uses it only with a per-address limit). With `cors`, an
 * `OPTIONS` preflight from an allowed origin gets its 204 and every answer to an
 * allowed origin its CORS headers (SPEC §5.30); every other `OPTIONS` is the 405.
 *
 * @param auth - what `createPasscodeAuth` returned (or a stand-in with `connect`)
 * @param reader - how to read the host's request
 * @param options - `cors`, off by default
 * @example
 * ```ts
 * const connectRequest = createConnectRequest(auth, reader)
 * const { statusCode, body } = await connectRequest(req)
 * ```
 */
export function createConnectRequest<Source>(
  auth: Pick<PasscodeAuth, 'connect'>,
  reader: RequestReader<Source>,
  options: ConnectRequestOptions = {},
): (request: Source) => Promise<ConnectResult | PreflightAnswer> {
  const { header, clientAddress, method, target } = reader
  // Own properties only: a polluted Object.prototype turns no CORS on (core/own-data.ts).
  const cors = corsPolicy(ownOptions(options).cors)
  function answer(request: Source): Promise<ConnectResult | PreflightAnswer> {
    const verb = method(request)
    if (verb !== undefined && verb !== 'GET' && verb !== 'HEAD') {
      const preflight =
        verb === 'OPTIONS'
          ? cors?.preflight(headerValue(header(request, 'origin')), headerValue(header(request, 'access-control-request-method')))
          : undefined
      return Promise.resolve(preflight ?? METHOD_NOT_ALLOWED)
    }
    return auth.connect({
      credentials: readCredentials(request, header),
      partner: readPartner(target(request)),
      clientAddress: clientAddress(request),
    })
  }
  if (cors === undefined) return answer
  return async function connectRequestWithCors(request) {
    const result = await answer(request)
    return result.body === undefined ? result : cors.decorate(result, headerValue(header(request, 'origin')))
  }
}
