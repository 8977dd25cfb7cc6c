import { setClassName } from '../core/class-name'
import { ConnectError } from './connect-error'

// The errors of a request the service refused: its answer says why.

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
