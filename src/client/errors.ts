import { setClassName } from '../core/class-name'

/**
 * Every `code` a {@link ConnectError} can carry. Switch on it rather than on the class
 * when errors cross a realm or package boundary.
 */
export type ConnectErrorCode =
  | 'ERR_INVALID_OPTIONS'
  | 'ERR_MALFORMED_PASSCODE'
  | 'ERR_INVALID_CREDENTIALS'
  | 'ERR_MISSING_PARTNER'
  | 'ERR_PASSCODE_EXPIRED'
  | 'ERR_PARTNER_NOT_WHITELISTED'
  | 'ERR_ADDRESS_NOT_ALLOWED'
  | 'ERR_MISSING_SCOPE'
  | 'ERR_RATE_LIMITED'
  | 'ERR_SERVER'
  | 'ERR_TIMEOUT'
  | 'ERR_NETWORK'
  | 'ERR_UNEXPECTED_RESPONSE'
  | 'ERR_ABORTED'

/**
 * Base class of every error the connect client throws. Messages, `toJSON` and
 * `util.inspect` output never contain the passcode: no error is ever given it.
 *
 * @example
 * ```ts
 * import { ConnectError } from 'passcode-auth/client'
 *
 * try {
 *   await client.connect('acme')
 * } catch (error) {
 *   if (error instanceof ConnectError) console.warn(error.code, error.message)
 *   else throw error
 * }
 * ```
 */
export class ConnectError extends Error {
  static {
    setClassName(this, 'ConnectError')
  }

  /** A machine-readable identifier of the kind of failure. */
  readonly code: ConnectErrorCode

  constructor(code: ConnectErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.code = code
    this.name = new.target.name
  }

  /** Name, code, message and the subclass's own fields (status, partner…), for structured logs. */
  toJSON(): Record<string, unknown> {
    return { ...(this as object), name: this.name, code: this.code, message: this.message }
  }
}

/**
 * An option of `createConnectClient` is invalid; thrown at creation. The message names
 * the option and never echoes its value.
 *
 * @example
 * ```ts
 * createConnectClient({ region: 'mars', regions: { eu: 'https://eu.example' }, accountId, passcode })
 * // InvalidClientOptionsError: Invalid connect client option `region`: unknown region "mars" (known: eu)
 * ```
 */
export class InvalidClientOptionsError extends ConnectError {
  static {
    setClassName(this, 'InvalidClientOptionsError')
  }

  /** Dotted path of the offending option. */
  readonly option: string

  constructor(option: string, message: string) {
    super('ERR_INVALID_OPTIONS', `Invalid connect client option \`${option}\`: ${message}`)
    this.option = option
  }
}

/**
 * The passcode does not have the format of SPEC §5.5 (bad shape or checksum); no
 * request was sent. Only with `validatePasscodeFormat: true`.
 *
 * @example
 * ```ts
 * const result = await client.check('acme')
 * if (!result.ok && result.code === 'ERR_MALFORMED_PASSCODE') askForThePasscodeAgain()
 * ```
 */
export class MalformedPasscodeError extends ConnectError {
  static {
    setClassName(this, 'MalformedPasscodeError')
  }

  constructor() {
    super('ERR_MALFORMED_PASSCODE', 'The passcode is not well formed (expected <prefix>_<secret><checksum>); no request was sent')
  }
}

/**
 * The service answered 400 "Invalid Credentials": the account ID or passcode is wrong,
 * unknown, deleted or revoked (the service does not say which, on purpose).
 *
 * @example
 * ```ts
 * if (error instanceof InvalidCredentialsError) showLoginForm()
 * ```
 */
export class InvalidCredentialsError extends ConnectError {
  static {
    setClassName(this, 'InvalidCredentialsError')
  }

  /** The HTTP status of the answer. */
  readonly status = 400

  constructor() {
    super('ERR_INVALID_CREDENTIALS', 'Invalid credentials: the account ID or passcode is wrong')
  }
}

/**
 * The service answered 400 "Missing partner": the credentials are valid but no partner
 * name was sent.
 *
 * @example
 * ```ts
 * await client.connect() // no default partner → MissingPartnerError
 * ```
 */
export class MissingPartnerError extends ConnectError {
  static {
    setClassName(this, 'MissingPartnerError')
  }

  /** The HTTP status of the answer. */
  readonly status = 400

  constructor() {
    super('ERR_MISSING_PARTNER', 'The request named no partner; pass one to connect() or as the `partner` option')
  }
}

/**
 * The service answered 401 "Passcode expired": the credentials were right but the
 * passcode has expired.
 *
 * @example
 * ```ts
 * if (error instanceof PasscodeExpiredError) askTheCustomerForANewPasscode()
 * ```
 */
export class PasscodeExpiredError extends ConnectError {
  static {
    setClassName(this, 'PasscodeExpiredError')
  }

  /** The HTTP status of the answer. */
  readonly status = 401

  constructor() {
    super('ERR_PASSCODE_EXPIRED', 'The passcode has expired')
  }
}

/**
 * The service answered 403: the credentials are valid but the partner is not on the
 * operator's whitelist.
 *
 * @example
 * ```ts
 * if (error instanceof PartnerNotWhitelistedError) console.warn(`ask the operator to whitelist ${error.partner}`)
 * ```
 */
export class PartnerNotWhitelistedError extends ConnectError {
  static {
    setClassName(this, 'PartnerNotWhitelistedError')
  }

  /** The HTTP status of the answer. */
  readonly status = 403
  /** The partner name as the client sent it. */
  readonly partner: string

  constructor(partner: string) {
    super('ERR_PARTNER_NOT_WHITELISTED', `Partner not whitelisted: ${JSON.stringify(partner)}`)
    this.partner = partner
  }
}

/**
 * The service answered 403 "Address not allowed" (SPEC §5.49): the passcode is valid but
 * may be used only from address ranges this call did not come from. Not retried: ask the
 * account's admins to add the caller's range, or call from an allowed one.
 *
 * @example
 * ```ts
 * if (error instanceof AddressNotAllowedError) console.warn('call from an address the passcode allows')
 * ```
 */
export class AddressNotAllowedError extends ConnectError {
  static {
    setClassName(this, 'AddressNotAllowedError')
  }

  /** The HTTP status of the answer. */
  readonly status = 403

  constructor() {
    super('ERR_ADDRESS_NOT_ALLOWED', 'Address not allowed: the passcode may not be used from this address')
  }
}

/**
 * The service answered 403 "Missing scope: <name>" (SPEC §5.48): the passcode is valid
 * but does not grant a scope the route needs (`/v1/connect` itself needs none; a host
 * may guard its own mount of it). Not retried.
 *
 * @example
 * ```ts
 * if (error instanceof MissingScopeError) console.warn(`the passcode lacks ${error.scope}`)
 * ```
 */
export class MissingScopeError extends ConnectError {
  static {
    setClassName(this, 'MissingScopeError')
  }

  /** The HTTP status of the answer. */
  readonly status = 403
  /** The first scope the passcode lacks, as the service named it. */
  readonly scope: string

  constructor(scope: string) {
    super('ERR_MISSING_SCOPE', `Missing scope: ${scope}`)
    this.scope = scope
  }
}

/**
 * The service answered 429 "Too Many Requests": its optional brute-force limiter counted
 * too many failed attempts (400 and 401 answers) from this client address or for this
 * account ID. It answers so before checking credentials, so right ones get it too until
 * `Retry-After` has passed. Never retried automatically: the wait, up to the limiter's
 * window (15 minutes by default), usually outlasts the call's deadline, and it is the
 * failed attempts behind it that want looking at.
 *
 * @example
 * ```ts
 * if (error instanceof RateLimitedError) scheduleRetryLater(error.retryAfterMs ?? 15 * 60_000)
 * ```
 */
export class RateLimitedError extends ConnectError {
  static {
    setClassName(this, 'RateLimitedError')
  }

  /** The HTTP status of the answer. */
  readonly status = 429
  /** What the `Retry-After` header asked for, in milliseconds, when present. */
  readonly retryAfterMs: number | undefined

  constructor(retryAfterMs?: number) {
    super('ERR_RATE_LIMITED', 'Too many failed attempts: the service refuses requests from this address or for this account for now')
    this.retryAfterMs = retryAfterMs
  }
}

/**
 * The service answered 503 or 504 on the last attempt, after the retries the policy
 * and the deadline allowed.
 *
 * @example
 * ```ts
 * if (error instanceof ServerError) scheduleRetryLater(error.retryAfterMs ?? 60_000)
 * ```
 */
export class ServerError extends ConnectError {
  static {
    setClassName(this, 'ServerError')
  }

  /** 503 (the service failed) or 504 (its storage was too slow). */
  readonly status: 503 | 504
  /** What the `Retry-After` header asked for, in milliseconds, when present. */
  readonly retryAfterMs: number | undefined

  constructor(status: 503 | 504, retryAfterMs?: number) {
    super('ERR_SERVER', `The service failed with HTTP ${status}`)
    this.status = status
    this.retryAfterMs = retryAfterMs
  }
}

/**
 * No answer within `timeoutMs`, the deadline that covers every attempt and the waits
 * between them.
 *
 * @example
 * ```ts
 * createConnectClient({ ...options, timeoutMs: 3_000 }) // TimeoutError after 3 s in total
 * ```
 */
export class TimeoutError extends ConnectError {
  static {
    setClassName(this, 'TimeoutError')
  }

  /** The deadline that passed, in milliseconds. */
  readonly timeoutMs: number

  constructor(timeoutMs: number) {
    super('ERR_TIMEOUT', `No answer within ${timeoutMs} ms`)
    this.timeoutMs = timeoutMs
  }
}

/**
 * The request failed below HTTP (DNS, refused or reset connection, TLS), on the last
 * attempt. The runtime's error is kept as `cause`. In a browser, a CORS refusal is one
 * too, indistinguishable from the rest (`opaque`), and is not retried.
 *
 * @example
 * ```ts
 * if (error instanceof NetworkError) console.warn('service unreachable', error.cause)
 * ```
 */
export class NetworkError extends ConnectError {
  static {
    setClassName(this, 'NetworkError')
  }

  /**
   * The runtime said nothing of why: a browser's `TypeError` ("Failed to fetch"), which
   * looks the same for a refused connection and for a CORS refusal (the service does not
   * allow this page's origin). Such a failure is not retried.
   */
  readonly opaque: boolean

  constructor(options?: { cause?: unknown }) {
    const opaque = isOpaqueBrowserFailure(options?.cause)
    super(
      'ERR_NETWORK',
      opaque
        ? "The service could not be reached, or it refused this page's origin (CORS): a browser does not say which"
        : 'The service could not be reached',
      options,
    )
    this.opaque = opaque
  }
}

/** A fetch `TypeError` with no `cause`, in a browser or a worker (Node, Deno and Bun give reasons). */
function isOpaqueBrowserFailure(error: unknown): boolean {
  const inBrowser =
    typeof (globalThis as { document?: unknown }).document !== 'undefined' ||
    typeof (globalThis as { WorkerGlobalScope?: unknown }).WorkerGlobalScope !== 'undefined'
  return inBrowser && error instanceof TypeError && error.cause === undefined
}

/** Why a response was not understood. */
export type UnexpectedResponseReason = 'status' | 'content_type' | 'invalid_json' | 'schema' | 'too_large'

const REASON_TEXT: Readonly<Record<UnexpectedResponseReason, string>> = {
  status: 'a status /v1/connect does not answer with',
  content_type: 'not JSON',
  invalid_json: 'a body that is not valid JSON',
  schema: 'a body of the wrong shape',
  too_large: 'a body larger than the client reads',
}

/**
 * The answer was not one /v1/connect gives: an unknown status (a proxy's 404 or 502, a
 * redirect), a non-JSON content type, invalid JSON, a body of the wrong shape, or a body
 * too large. Keeps the status, the content type and at most 1 KB of the body.
 *
 * @example
 * ```ts
 * if (error instanceof UnexpectedResponseError) log.warn({ status: error.status, body: error.bodyExcerpt })
 * ```
 */
export class UnexpectedResponseError extends ConnectError {
  static {
    setClassName(this, 'UnexpectedResponseError')
  }

  /** The HTTP status. */
  readonly status: number
  /** The `Content-Type` header, or `null` when absent. */
  readonly contentType: string | null
  /** What was wrong. */
  readonly reason: UnexpectedResponseReason
  /** The start of the body (at most 1 024 bytes of it), with the passcode blanked out should the server echo it. */
  readonly bodyExcerpt: string

  constructor(details: { status: number; contentType: string | null; reason: UnexpectedResponseReason; bodyExcerpt: string }) {
    super('ERR_UNEXPECTED_RESPONSE', `Unexpected response: HTTP ${details.status} with ${REASON_TEXT[details.reason]}`)
    this.status = details.status
    this.contentType = details.contentType
    this.reason = details.reason
    this.bodyExcerpt = details.bodyExcerpt
  }
}

/**
 * The caller's `AbortSignal` fired; the request was cancelled at once. The signal's
 * reason is kept as `cause`.
 *
 * @example
 * ```ts
 * const controller = new AbortController()
 * const pending = client.connect('acme', { signal: controller.signal })
 * controller.abort() // pending rejects with AbortedError
 * ```
 */
export class AbortedError extends ConnectError {
  static {
    setClassName(this, 'AbortedError')
  }

  constructor(options?: { cause?: unknown }) {
    super('ERR_ABORTED', 'The request was aborted', options)
  }
}
