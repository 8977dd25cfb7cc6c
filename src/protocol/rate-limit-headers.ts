/**
 * The headers of a passcode's 429 (SPEC §5.50): `Retry-After` and the `RateLimit` and
 * `RateLimit-Policy` fields of the IETF httpapi draft "RateLimit header fields for HTTP"
 * (draft-ietf-httpapi-ratelimit-headers-11, May 2026), whose values are Structured
 * Field lists (RFC 9651) of one item each: the policy that refused, named `"rate"` (the
 * rate limit) or `"credits"`.
 *
 *   RateLimit-Policy: "rate";q=100;w=60          RateLimit: "rate";r=0;t=12
 *   RateLimit-Policy: "credits";q=1000;w=2678400 RateLimit: "credits";r=0;t=86400
 *   RateLimit-Policy: "credits";q=500            RateLimit: "credits";r=0
 *
 * `q` is the quota (the rate limit's `max`; the refill amount, or the credits as set
 * without a refill), `w` its window in seconds (the rate window; the length of the
 * current refill interval), `r` what is left (0: this is the refusal), and `t` the
 * seconds until it is restored, which `Retry-After` repeats (the draft: Retry-After is
 * never earlier than the end of the effective window). Credits without a refill are
 * never restored: no `t`, no `Retry-After`. Header names are lower case, as every
 * adapter writes them.
 */

/** Which of a passcode's limits refused a request. */
export type LimitPolicy = 'rate' | 'credits'

/** What the 429 of one policy says. */
export interface LimitRefusal {
  /** The policy that refused. */
  readonly policy: LimitPolicy
  /** Its quota, `q`: requests per window, or credits per refill interval (or as set). */
  readonly quota: number
  /** Its window in whole seconds, `w`; `null` for credits that never refill. */
  readonly windowSeconds: number | null
  /** Milliseconds until it is restored (the window's end, the next refill); `null` for never. */
  readonly retryAfterMs: number | null
}

/**
 * The headers of a 429 for one policy: `retry-after` (whole seconds, rounded up, at
 * least 1) when it is ever restored, `ratelimit-policy` and `ratelimit`.
 *
 * @example
 * ```ts
 * limitHeaders({ policy: 'rate', quota: 100, windowSeconds: 60, retryAfterMs: 11_200 })
 * // { 'retry-after': '12', 'ratelimit-policy': '"rate";q=100;w=60', ratelimit: '"rate";r=0;t=12' }
 * ```
 */
export function limitHeaders(refusal: LimitRefusal): Readonly<Record<string, string>> {
  const name = `"${refusal.policy}"`
  const policy = refusal.windowSeconds === null ? `${name};q=${refusal.quota}` : `${name};q=${refusal.quota};w=${refusal.windowSeconds}`
  if (refusal.retryAfterMs === null) return Object.freeze({ 'ratelimit-policy': policy, ratelimit: `${name};r=0` })
  const seconds = String(Math.max(1, Math.ceil(refusal.retryAfterMs / 1000)))
  return Object.freeze({ 'retry-after': seconds, 'ratelimit-policy': policy, ratelimit: `${name};r=0;t=${seconds}` })
}
