import type {
  AbortedError,
  AddressNotAllowedError,
  MissingScopeError,
  InvalidCredentialsError,
  MalformedPasscodeError,
  MissingPartnerError,
  NetworkError,
  PartnerNotWhitelistedError,
  PasscodeExpiredError,
  RateLimitedError,
  ServerError,
  TimeoutError,
  UnexpectedResponseError,
} from './errors'

/** The error class behind each failure code a call can end with. */
export interface ConnectFailureByCode {
  /** The passcode is not well formed; nothing was sent. */
  ERR_MALFORMED_PASSCODE: MalformedPasscodeError
  /** 400 "Invalid Credentials". */
  ERR_INVALID_CREDENTIALS: InvalidCredentialsError
  /** 400 "Missing partner". */
  ERR_MISSING_PARTNER: MissingPartnerError
  /** 401 "Passcode expired". */
  ERR_PASSCODE_EXPIRED: PasscodeExpiredError
  /** 403 "Partner not whitelisted". */
  ERR_PARTNER_NOT_WHITELISTED: PartnerNotWhitelistedError
  /** 403 "Address not allowed" (SPEC §5.49). */
  ERR_ADDRESS_NOT_ALLOWED: AddressNotAllowedError
  /** 403 "Missing scope: <name>" (SPEC §5.48). */
  ERR_MISSING_SCOPE: MissingScopeError
  /** 429 "Too Many Requests". */
  ERR_RATE_LIMITED: RateLimitedError
  /** 503 or 504 on the last attempt. */
  ERR_SERVER: ServerError
  /** No answer within the deadline. */
  ERR_TIMEOUT: TimeoutError
  /** The request failed below HTTP on the last attempt. */
  ERR_NETWORK: NetworkError
  /** An answer that /v1/connect does not give. */
  ERR_UNEXPECTED_RESPONSE: UnexpectedResponseError
  /** The caller's signal fired. */
  ERR_ABORTED: AbortedError
}

/** A failed check: narrowing on `code` narrows `error` to its class. */
export type CheckFailure = {
  [Code in keyof ConnectFailureByCode]: {
    /** The call failed. */
    readonly ok: false
    /** Why, as the error's `code`. */
    readonly code: Code
    /** The error `connect()` would have thrown. */
    readonly error: ConnectFailureByCode[Code]
  }
}[keyof ConnectFailureByCode]

/**
 * What `client.check()` resolves: the success body with `ok: true`, or the failure with
 * its code and error. It never rejects for a failed request.
 *
 * @example
 * ```ts
 * const result = await client.check('acme')
 * if (result.ok) console.log(result.message)
 * else if (result.code === 'ERR_PARTNER_NOT_WHITELISTED') console.warn(result.error.partner)
 * else if (result.code === 'ERR_RATE_LIMITED') console.warn(`try again in ${result.error.retryAfterMs ?? 60_000} ms`)
 * else if (result.code === 'ERR_SERVER') console.warn(result.error.status)
 * ```
 */
export type CheckResult =
  | {
      /** The credentials are valid and the partner is whitelisted. */
      readonly ok: true
      /** The body's `status`. */
      readonly status: 'success'
      /** The body's `message`, "Authorised Successfully.". */
      readonly message: string
      /** When the passcode stops working, announced in its last days (`Sunset`); see `ConnectSuccess.expiresAt`. */
      readonly expiresAt?: Date
    }
  | CheckFailure
