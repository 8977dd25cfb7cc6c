import type { PasscodeAuth } from '../service/create-passcode-auth'
import type { ConnectResult } from '../service/connect'
import { readNodeCredentials, type NodeRequestLike } from './node-request'
import { FAILURES } from './outcomes'
import { readPartner } from './read-credentials'

const METHOD_NOT_ALLOWED: ConnectResult = Object.freeze({ ...FAILURES.method_not_allowed, reason: 'method_not_allowed' })

/**
 * `GET /v1/connect` for a Node request: the credentials from `req.headers` and
 * `partner` from the raw request URL. The query is parsed here, never by the
 * framework, so every framework answers alike: Express 4's `qs` would turn
 * `partner[a]=b` into an object, and frameworks differ on repeated parameters.
 * `HEAD` is answered as `GET` (the server sends no body); any other method gets 405
 * with `Allow: GET, HEAD`, without reading the credentials, in every adapter alike.
 *
 * @param auth - what `createPasscodeAuth` returned
 * @param request - a Node request (`req`, `ctx.req`, `request.raw`)
 * @param clientAddress - the framework's client address (`req.ip`) when `auth.usesClientAddress`
 * @example
 * ```ts
 * const { statusCode, body } = await connectNodeRequest(auth, req, auth.usesClientAddress ? req.ip : undefined)
 * ```
 */
export function connectNodeRequest(
  auth: Pick<PasscodeAuth, 'connect'>,
  request: NodeRequestLike,
  clientAddress?: string,
): Promise<ConnectResult> {
  const method = request.method
  if (method !== undefined && method !== 'GET' && method !== 'HEAD') return Promise.resolve(METHOD_NOT_ALLOWED)
  return auth.connect({ credentials: readNodeCredentials(request.headers), partner: readPartner(request.url ?? ''), clientAddress })
}
