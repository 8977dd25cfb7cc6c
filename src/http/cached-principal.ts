import type { Principal } from '../core/entities'
import { AUTHENTICATE_CACHED, type CachedPath } from '../service/authenticate'
import type { NodeRequestLike } from './node-request'
import { ACCOUNT_ID_HEADER, PASSCODE_HEADER } from './read-credentials'

/** Reads a request's credentials and answers from the verification cache, synchronously. */
export type CachedPrincipalReader = (request: NodeRequestLike) => Principal | undefined

/**
 * The warm path of every `requirePasscode`: returns a function that reads the two
 * headers of a Node request and gives the principal when the verification cache
 * holds those credentials, or `undefined`, and then the adapter takes the full path
 * (`authenticateNodeRequest`), which answers every other case the same as before.
 * No promise, no closure and no object are made per request. A value that is not a
 * single string (a repeated header arrives joined with `", "`) never hits.
 *
 * Returns `undefined` when `auth` has no such path: the cache is off, the `rateLimit`
 * option is on (it may refuse cached credentials), or `auth` is a stand-in. While
 * `auth.authenticate` is not the service's own (replaced by a wrapper or a spy), the
 * reader answers `undefined`, so that function is always the one called.
 *
 * @param auth - what `createPasscodeAuth` returned
 * @example
 * ```ts
 * const fromCache = cachedPrincipalReader(auth)
 * const principal = fromCache?.(req) // then, if undefined: await authenticateNodeRequest(auth, req)
 * ```
 */
export function cachedPrincipalReader(auth: object): CachedPrincipalReader | undefined {
  const service = auth as { readonly [AUTHENTICATE_CACHED]?: CachedPath; readonly authenticate?: unknown }
  const path = service[AUTHENTICATE_CACHED]
  if (path === undefined || typeof path.cached !== 'function') return undefined
  const { authenticate, cached } = path
  return function readCachedPrincipal(request) {
    // A host (or a test) that replaced `auth.authenticate` gets its own function called.
    if (service.authenticate !== authenticate) return undefined
    const { headers } = request
    const passcode = headers[PASSCODE_HEADER]
    if (typeof passcode !== 'string') return undefined
    const accountId = headers[ACCOUNT_ID_HEADER]
    return typeof accountId === 'string' ? cached(accountId, passcode) : undefined
  }
}
