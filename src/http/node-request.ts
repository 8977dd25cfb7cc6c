import type { IncomingHttpHeaders } from 'node:http'
import type { AuthOutcome } from '../service/authenticate'
import type { PasscodeAuth } from '../service/create-passcode-auth'
import { ACCOUNT_ID_HEADER, PASSCODE_HEADER, headerValue, type Credentials } from './read-credentials'

/**
 * The part of a Node `IncomingMessage` the adapters read: Express's `req`, Koa's
 * `ctx.req` and Fastify's `request.raw` all are one.
 */
export interface NodeRequestLike {
  /** Lower-cased names; Node joins a repeated custom header with `", "`. */
  readonly headers: IncomingHttpHeaders
  /** The request target as received, query included. */
  readonly url?: string | undefined
  /** The request method; absent counts as `GET`. */
  readonly method?: string | undefined
}

// Authenticating with empty credentials refuses them as malformed, through the same
// path (and audit event) as any other refusal.
const NO_CREDENTIALS: Credentials = Object.freeze({ accountId: '', passcode: '' })

/**
 * Reads the two credential headers from Node's `req.headers` with two O(1) lookups.
 * Returns `undefined` when either breaks SPEC §5.4. A repeated header arrives joined
 * with `", "`, and the space makes it invalid, as the spec wants.
 *
 * @example
 * ```ts
 * const credentials = readNodeCredentials(req.headers) // { accountId, passcode } | undefined
 * ```
 */
export function readNodeCredentials(headers: IncomingHttpHeaders): Credentials | undefined {
  const accountId = headerValue(headers[ACCOUNT_ID_HEADER])
  if (accountId === undefined) return undefined
  const passcode = headerValue(headers[PASSCODE_HEADER])
  if (passcode === undefined) return undefined
  return { accountId, passcode }
}

/**
 * The shared first step of every `requirePasscode`: read the headers of a Node
 * request and authenticate them. On a warm verification cache this costs two header
 * lookups, one small object and one cache lookup, and no hashing.
 *
 * @param auth - what `createPasscodeAuth` returned
 * @param request - a Node request (`req`, `ctx.req`, `request.raw`)
 * @param clientAddress - the framework's client address (`req.ip`), passed only when
 *   `auth.usesClientAddress`, so that the common case allocates nothing more
 * @example
 * ```ts
 * const outcome = await authenticateNodeRequest(auth, req, auth.usesClientAddress ? req.ip : undefined)
 * if (outcome.ok) console.log(outcome.principal.accountId)
 * ```
 */
export function authenticateNodeRequest(
  auth: Pick<PasscodeAuth, 'authenticate'>,
  request: NodeRequestLike,
  clientAddress?: string,
): Promise<AuthOutcome> {
  const credentials = readNodeCredentials(request.headers) ?? NO_CREDENTIALS
  return auth.authenticate(clientAddress === undefined ? credentials : { ...credentials, clientAddress })
}
