import { NetworkError, ServerError } from './errors'

/** The retry policy after defaults. */
export interface RetryPolicy {
  readonly retries: number
  readonly baseDelayMs: number
  readonly maxDelayMs: number
}

/**
 * Only a 503, a 504 or a network failure may go away on its own; 400/401/403 never do.
 * A browser's opaque network failure is not retried either: it is also how a CORS
 * refusal looks, which no retry fixes, and retrying it would spend the whole deadline.
 * Nor is a 429 retried: the limiter counts failed guesses over a window (15 minutes by
 * default) that usually outlasts the call's deadline, so whether to wait is the caller's decision.
 */
export function isRetryable(error: unknown): error is ServerError | NetworkError {
  return error instanceof ServerError || (error instanceof NetworkError && !error.opaque)
}

/**
 * How long to wait before retry number `retry` (0 for the first): what `Retry-After`
 * asked for when the server sent it, otherwise exponential backoff with full jitter,
 * a uniform draw in [0, min(maxDelayMs, baseDelayMs × 2^retry)), which spreads the
 * retries of many clients after a shared outage.
 */
export function retryDelayMs(policy: RetryPolicy, retry: number, retryAfterMs: number | undefined, random = Math.random): number {
  if (retryAfterMs !== undefined) return retryAfterMs
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** retry)
  return Math.floor(random() * ceiling)
}

/**
 * Reads a `Retry-After` header: delay-seconds or an HTTP date. Returns milliseconds
 * from `now` (0 for a date in the past), or `undefined` when absent or unreadable.
 *
 * @example
 * ```ts
 * parseRetryAfter('2', 0) // 2000
 * parseRetryAfter('Wed, 21 Oct 2015 07:28:00 GMT', Date.parse('Wed, 21 Oct 2015 07:27:00 GMT')) // 60000
 * ```
 */
export function parseRetryAfter(value: string | null, now: number): number | undefined {
  if (value === null) return undefined
  const text = value.trim()
  if (/^\d+$/.test(text)) return Number(text) * 1000
  // Only the HTTP date form is accepted, not whatever else Date.parse would read.
  if (!/^[A-Za-z]{3}, \d{2} [A-Za-z]{3} \d{4} \d{2}:\d{2}:\d{2} GMT$/.test(text)) return undefined
  const at = Date.parse(text)
  return Number.isNaN(at) ? undefined : Math.max(0, at - now)
}
