import type {
  AbortedError,
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
  ERR_MALFORMED_PASSCODE: MalformedPasscodeError
  ERR_INVALID_CREDENTIALS: InvalidCredentialsError
  ERR_MISSING_PARTNER: MissingPartnerError
  ERR_PASSCODE_EXPIRED: PasscodeExpiredError
  ERR_PARTNER_NOT_WHITELISTED: PartnerNotWhitelistedError
  ERR_RATE_LIMITED: RateLimitedError
  ERR_SERVER: ServerError
  ERR_TIMEOUT: TimeoutError
  ERR_NETWORK: NetworkError
  ERR_UNEXPECTED_RESPONSE: UnexpectedResponseError
  ERR_ABORTED: AbortedError
}

/** A failed check: narrowing on `code` narrows `error` to its class. */
export type CheckFailure = {
  [Code in keyof ConnectFailureByCode]: { readonly ok: false; readonly code: Code; readonly error: ConnectFailureByCode[Code] }
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
export type CheckResult = { readonly ok: true; readonly status: 'success'; readonly message: string } | CheckFailure
