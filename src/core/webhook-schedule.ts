/**
 * The delivery rules of SPEC §5.53 in one place: how long an attempt may take, how much
 * of an answer is read, when a failed attempt is tried again, when an endpoint that
 * keeps failing is disabled and how long a rotated secret keeps signing.
 */

/** A 2xx within this time succeeds; anything slower is a failed attempt. */
export const WEBHOOK_TIMEOUT_MS = 15_000

/** At most this much of a receiver's answer is read, then the connection is dropped. */
export const WEBHOOK_MAX_RESPONSE_BYTES = 64 * 1024

const SECOND = 1_000
const MINUTE = 60 * SECOND
const HOUR = 60 * MINUTE

/**
 * The waits before each retry: after the first attempt fails, 5 s; then 5 min, 30 min,
 * 2 h, 5 h, 10 h and 10 h. After the eighth attempt fails the delivery is `failed`.
 */
export const WEBHOOK_RETRY_DELAYS_MS: readonly number[] = [5 * SECOND, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 5 * HOUR, 10 * HOUR, 10 * HOUR]

/** An endpoint whose every attempt failed for this long is disabled and its admins emailed. */
export const WEBHOOK_DISABLE_AFTER_MS = 5 * 24 * HOUR

/** How long the replaced secret keeps signing after a rotation (both sign meanwhile). */
export const WEBHOOK_SECRET_OVERLAP_MS = 24 * HOUR

/**
 * When a delivery whose attempt just failed is tried next.
 *
 * @param attempts - attempts made so far, the failed one included (1 after the first)
 * @param failedAt - when that attempt ended, epoch ms
 * @returns the instant of the next attempt, or `null` when none is left (the delivery failed)
 * @example
 * ```ts
 * nextWebhookAttempt(1, now) // now + 5 000
 * nextWebhookAttempt(8, now) // null
 * ```
 */
export function nextWebhookAttempt(attempts: number, failedAt: number): number | null {
  const delay = WEBHOOK_RETRY_DELAYS_MS[attempts - 1]
  return delay === undefined ? null : failedAt + delay
}
