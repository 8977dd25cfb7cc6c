import { removeInvisibleCharacters } from '../core/rules'

/** The body of a successful `GET /v1/connect` (SPEC §4). */
export interface SuccessBody {
  /** Always `'success'`. */
  readonly status: 'success'
  /** Always `'Authorised Successfully.'`. */
  readonly message: 'Authorised Successfully.'
}

/** The body of every refusal (SPEC §4, §5.1–5.3, §5.15). */
export interface FailureBody {
  /** Always `'fail'`. */
  readonly status: 'fail'
  /** The SPEC's text: `Invalid Credentials`, `Passcode expired`, `Missing partner`, `Partner not whitelisted <name>`, `Too Many Requests`, `Rate limit exceeded`, `Credits exhausted`, `Server Error`… */
  readonly error: string
  /** The HTTP status again. */
  readonly code: number
}

/**
 * Why a request was refused. Reasons are for audit events and logs only: every
 * reason that maps to 400 "Invalid Credentials" produces the same bytes, so callers
 * cannot tell them apart (SPEC §5.1).
 */
export type FailureReason =
  | 'malformed_credentials'
  | 'checksum_mismatch'
  | 'unknown_passcode'
  | 'wrong_account'
  | 'revoked'
  | 'disabled'
  | 'not_accepted'
  | 'expired'
  | 'missing_partner'
  | 'partner_not_whitelisted'
  | 'rate_limited'
  | 'rate_limit_exceeded'
  | 'credits_exhausted'
  | 'method_not_allowed'
  | 'storage_error'
  | 'storage_timeout'
  // Restricted passcodes (SPEC §5.48, §5.49): a valid credential this route or address may not use.
  | 'missing_scope'
  | 'address_not_allowed'

/** The reasons whose answer is always the same, from the one table ({@link FAILURES}). */
export type FixedFailureReason = Exclude<FailureReason, 'partner_not_whitelisted' | 'missing_scope'>

/** A framework-neutral HTTP answer: adapters write exactly this. */
export interface HttpResult<Body = SuccessBody | FailureBody> {
  /** The HTTP status. */
  readonly statusCode: number
  /** The body, sent as JSON. */
  readonly body: Body
  /** Headers for this answer only, beyond the `Content-Type` and `Cache-Control` every answer has: `Retry-After` on 429. */
  readonly headers?: Readonly<Record<string, string>> | undefined
}

const failure = (code: number, error: string): HttpResult<FailureBody> =>
  Object.freeze({ statusCode: code, body: Object.freeze({ status: 'fail', error, code }) })

const INVALID_CREDENTIALS = failure(400, 'Invalid Credentials')

/**
 * The one table from failure reason to HTTP status and body. `partner_not_whitelisted`
 * and `missing_scope` are built by {@link partnerNotWhitelisted} and {@link missingScope}
 * because their text carries a name.
 */
export const FAILURES: Readonly<Record<FixedFailureReason, HttpResult<FailureBody>>> = Object.freeze({
  malformed_credentials: INVALID_CREDENTIALS,
  checksum_mismatch: INVALID_CREDENTIALS,
  unknown_passcode: INVALID_CREDENTIALS,
  wrong_account: INVALID_CREDENTIALS,
  revoked: INVALID_CREDENTIALS,
  disabled: INVALID_CREDENTIALS,
  not_accepted: INVALID_CREDENTIALS,
  expired: failure(401, 'Passcode expired'),
  missing_partner: failure(400, 'Missing partner'),
  rate_limited: failure(429, 'Too Many Requests'),
  // SPEC §5.50: a passcode's own rate limit and credits, after the credential, scopes and address.
  rate_limit_exceeded: failure(429, 'Rate limit exceeded'),
  credits_exhausted: failure(429, 'Credits exhausted'),
  // `GET /v1/connect` only: any other method that reaches the connect handler.
  method_not_allowed: Object.freeze({ ...failure(405, 'Method Not Allowed'), headers: Object.freeze({ allow: 'GET, HEAD' }) }),
  storage_error: failure(503, 'Server Error'),
  storage_timeout: failure(504, 'Server Error'),
  // SPEC §5.49: a valid credential used from an address outside its ranges.
  address_not_allowed: failure(403, 'Address not allowed'),
})

/**
 * The 403 answer for a valid credential without a scope the route needs (SPEC §5.48):
 * `Missing scope: <name>`. Scope names are declared by the host in a fixed form
 * (`^[a-z][a-z0-9_.:-]{0,63}$`), so the text needs no cleaning.
 *
 * @example
 * ```ts
 * missingScope('events:write').body // { status: 'fail', error: 'Missing scope: events:write', code: 403 }
 * ```
 */
export function missingScope(scope: string): HttpResult<FailureBody> {
  return failure(403, `Missing scope: ${scope}`)
}

/** The 200 answer of `GET /v1/connect`. */
export const CONNECT_SUCCESS: HttpResult<SuccessBody> = Object.freeze({
  statusCode: 200,
  body: Object.freeze({ status: 'success', message: 'Authorised Successfully.' }),
})

/** Longest partner name echoed back in a 403, in characters (SPEC §5.3). */
export const MAX_ECHOED_PARTNER_LENGTH = 128

/**
 * The 403 answer for a partner that is not whitelisted. The name is echoed as sent,
 * with control and invisible characters removed (SPEC §5.3, §5.24: C0, C1, DEL,
 * zero-width, bidi controls, line separators, unpaired surrogates) and cut to 128
 * characters (whole code points, so a surrogate pair is never split).
 */
export function partnerNotWhitelisted(partnerAsSent: string): HttpResult<FailureBody> {
  const cleaned = removeInvisibleCharacters(partnerAsSent)
  const cut = cleaned.length <= MAX_ECHOED_PARTNER_LENGTH ? cleaned : Array.from(cleaned).slice(0, MAX_ECHOED_PARTNER_LENGTH).join('')
  return failure(403, `Partner not whitelisted ${cut}`)
}

/** Headers every adapter sends with a passcode-auth answer. */
export const RESPONSE_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-type': 'application/json; charset=utf-8',
  'cache-control': 'no-store',
})

/**
 * Every header to send with `result`: {@link RESPONSE_HEADERS} plus the result's own
 * (`Retry-After` on 429). Adapters write this and nothing else, so a header added to a
 * result reaches the wire through every framework. Allocates only when there are extra headers.
 *
 * @example
 * ```ts
 * for (const [name, value] of Object.entries(responseHeaders(result))) res.setHeader(name, value)
 * ```
 */
export function responseHeaders(result: HttpResult): Readonly<Record<string, string>> {
  return result.headers === undefined ? RESPONSE_HEADERS : { ...RESPONSE_HEADERS, ...result.headers }
}
