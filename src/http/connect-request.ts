import type { PasscodeAuth } from '../service/create-passcode-auth'
import type { ConnectResult } from '../service/connect'
import { readNodeCredentials, type NodeRequestLike } from './node-request'
import { readPartner } from './read-credentials'

/**
 * `GET /v1/connect` for a Node request: the credentials from `req.headers` and
 * `partner` from the raw request URL. The query is parsed here, never by the
 * framework, so every framework answers alike: Express 4's `qs` would turn
 * `partner[a]=b` into an object, and frameworks differ on repeated parameters.
 *
 * @param auth - what `createPasscodeAuth` returned
 * @param request - a Node request (`req`, `ctx.req`, `request.raw`)
 * @example
 * ```ts
 * const { statusCode, body } = await connectNodeRequest(auth, req)
 * ```
 */
export function connectNodeRequest(auth: Pick<PasscodeAuth, 'connect'>, request: NodeRequestLike): Promise<ConnectResult> {
  return auth.connect({ credentials: readNodeCredentials(request.headers), partner: readPartner(request.url ?? '') })
}
