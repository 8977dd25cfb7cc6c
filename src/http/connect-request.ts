import { FAILURES, type FailureReason } from '../protocol/outcomes'
import { readCredentials, readPartner } from '../protocol/credentials'
import { adapterHintsOf } from '../service/adapter-hints'
import type { ConnectResult } from '../service/connect/connect'
import type { PasscodeAuth } from '../service/create-passcode-auth'
import type { RequestReader } from './request-reader'

const METHOD_NOT_ALLOWED: ConnectResult = Object.freeze({ ...FAILURES.method_not_allowed, reason: 'method_not_allowed' satisfies FailureReason })

/**
 * `GET /v1/connect` for any request shape: the credentials from the headers and
 * `partner` from the raw request target. The query is parsed here, never by the
 * framework, so every framework answers alike: Express 4's `qs` would turn
 * `partner[a]=b` into an object, and frameworks differ on repeated parameters.
 * `HEAD` is answered as `GET` (the server sends no body); any other method gets 405
 * with `Allow: GET, HEAD`, without reading the credentials, in every adapter alike.
 * The caller's address is read only when the service uses it.
 *
 * @param auth - what `createPasscodeAuth` returned (or a stand-in with `connect`)
 * @param reader - how to read the host's request
 * @example
 * ```ts
 * const connectRequest = createConnectRequest(auth, reader)
 * const { statusCode, body } = await connectRequest(req)
 * ```
 */
export function createConnectRequest<Source>(
  auth: Pick<PasscodeAuth, 'connect'>,
  reader: RequestReader<Source>,
): (request: Source) => Promise<ConnectResult> {
  const { header, clientAddress, method, target } = reader
  return function connectRequest(request) {
    const verb = method(request)
    if (verb !== undefined && verb !== 'GET' && verb !== 'HEAD') return Promise.resolve(METHOD_NOT_ALLOWED)
    const hints = adapterHintsOf(auth.connect)
    return auth.connect({
      credentials: readCredentials(request, header),
      partner: readPartner(target(request)),
      clientAddress: hints === undefined || hints.usesClientAddress ? clientAddress(request) : undefined,
    })
  }
}
