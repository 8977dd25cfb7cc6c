import type { Principal } from '../core/entities'
import { ACCOUNT_ID_HEADER, PASSCODE_HEADER, readCredentials, type Credentials, type HeaderValue } from '../protocol/credentials'
import { adapterHintsOf } from '../service/adapter-hints'
import type { AuthOutcome } from '../service/authenticate/authenticate'
import type { PasscodeAuth } from '../service/create-passcode-auth'
import type { RequestReader } from './request-reader'

/**
 * Authenticates one request: the principal itself, synchronously, on a warm
 * verification cache; otherwise a (native) promise of the outcome.
 */
export type AuthenticateRequest<Source> = (request: Source) => Principal | Promise<AuthOutcome>

// Authenticating with empty credentials refuses them as malformed, through the same
// path (and audit event) as any other refusal.
const NO_CREDENTIALS: Credentials = Object.freeze({ accountId: '', passcode: '' })

/**
 * The first step of every `requirePasscode`, for any request shape: adapters call the
 * function it returns once per request. On a warm verification cache it answers the
 * principal at once, with two header reads and one cache lookup: no promise, no
 * closure, no object (give the reader a `headerRecord` when the host keeps its headers
 * in an object, as Node does, and the two reads are plain property loads). Otherwise it reads and checks the headers (SPEC §5.4), adds the
 * caller's address when the service uses it (or when `auth.authenticate` is not the
 * service's own, since a wrapper may hand it on), and calls `auth.authenticate`. A
 * header value that is not a single string (a repeated header) never hits the cache.
 *
 * @param auth - what `createPasscodeAuth` returned (or a stand-in with `authenticate`)
 * @param reader - how to read the host's request
 * @example
 * ```ts
 * const authenticateRequest = createAuthenticateRequest(auth, reader)
 * const answer = authenticateRequest(req)
 * if (!(answer instanceof Promise)) req.passcodeAuth = answer // a cache hit
 * ```
 */
export function createAuthenticateRequest<Source>(
  auth: Pick<PasscodeAuth, 'authenticate'>,
  reader: RequestReader<Source>,
): AuthenticateRequest<Source> {
  const { header, headerRecord, clientAddress } = reader
  // The service's own function and its hints, read once. While `auth.authenticate` is
  // still that function (one comparison per request) the cache may answer; a host or a
  // test that replaced it gets its replacement called, with the address.
  const own = auth.authenticate
  const ownHints = adapterHintsOf(own)
  const cached = ownHints?.cached
  // The limiter's gate in front of the cache reads the address; without it, nobody does.
  const cachedReadsAddress = ownHints?.usesClientAddress === true
  return function authenticateRequest(request) {
    // Read at most once per request: `null` until then.
    let address: string | undefined | null = null
    const isOwn = auth.authenticate === own
    if (cached !== undefined && isOwn) {
      let passcode: HeaderValue
      let accountId: HeaderValue
      if (headerRecord !== undefined) {
        const headers = headerRecord(request)
        passcode = headers[PASSCODE_HEADER]
        accountId = headers[ACCOUNT_ID_HEADER]
      } else {
        passcode = header(request, PASSCODE_HEADER)
        accountId = typeof passcode === 'string' ? header(request, ACCOUNT_ID_HEADER) : undefined
      }
      if (typeof passcode === 'string' && typeof accountId === 'string') {
        const principal = cachedReadsAddress ? cached(accountId, passcode, (address = clientAddress(request))) : cached(accountId, passcode)
        if (principal !== undefined) return principal
      }
    }
    const hints = isOwn ? ownHints : adapterHintsOf(auth.authenticate)
    const credentials = readCredentials(request, header) ?? NO_CREDENTIALS
    if (address === null) address = hints === undefined || hints.usesClientAddress ? clientAddress(request) : undefined
    return Promise.resolve(auth.authenticate(address === undefined ? credentials : { ...credentials, clientAddress: address }))
  }
}

