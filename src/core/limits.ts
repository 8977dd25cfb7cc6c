import { DAY_MS } from './time'

/**
 * Per-passcode limits and credits (SPEC §5.50): the settings, their bounds, and the UTC
 * calendar they follow. Pure: every instant is the caller's.
 */

/** A rate limit's bounds: 1 to 1 000 000 requests per window of 1 s to 86 400 s (a day). */
export const RATE_LIMIT_BOUNDS = { max: { min: 1, max: 1_000_000 }, windowSeconds: { min: 1, max: 86_400 } } as const

/** The most credits a passcode may hold, and the largest refill amount: 10^12. */
export const MAX_CREDITS = 1_000_000_000_000

/** The UTC intervals credits refill at the start of: a day, an ISO week (from Monday), a calendar month. */
export const REFILL_INTERVALS = ['day', 'week', 'month'] as const

/** One of {@link REFILL_INTERVALS}. */
export type RefillInterval = (typeof REFILL_INTERVALS)[number]

/**
 * A rate limit (SPEC §5.50): at most `max` requests in each fixed window of
 * `windowSeconds`, windows aligned on the epoch (UTC), across a whole fleet.
 *
 * @example
 * ```ts
 * const rateLimit: RateLimitSetting = { max: 100, windowSeconds: 60 }
 * ```
 */
export interface RateLimitSetting {
  /** Requests admitted per window, 1 to 1 000 000. */
  readonly max: number
  /** The window's length in seconds, 1 to 86 400. */
  readonly windowSeconds: number
}

/**
 * How credits refill (SPEC §5.50): at the start of each UTC `interval`, the balance is
 * set to `amount` (not added to it).
 *
 * @example
 * ```ts
 * const refill: CreditsRefill = { amount: 1_000, interval: 'month' }
 * ```
 */
export interface CreditsRefill {
  /** The balance each interval starts with, 0 to 10^12. */
  readonly amount: number
  /** `day`, `week` (ISO, from Monday 00:00 UTC) or `month`. */
  readonly interval: RefillInterval
}

/**
 * Credits as an admin sets them (SPEC §5.50): each admitted request spends one; a
 * passcode with none left is refused with 429 until its next refill, or for good
 * without one.
 *
 * @example
 * ```ts
 * const credits: CreditsSetting = { remaining: 1_000, refill: { amount: 1_000, interval: 'month' } }
 * ```
 */
export interface CreditsSetting {
  /** The balance from now on, 0 to 10^12. */
  readonly remaining: number
  /** How it refills; `null` for never. */
  readonly refill: CreditsRefill | null
}

/**
 * Credits as stored with their passcode: as the admin last set them, when, and the
 * epoch that set opened. Spending is counted elsewhere (the store's counters, leased to
 * instances): an epoch names one setting, so that credits leased before a new setting
 * are never given back to it.
 */
export interface StoredCredits extends CreditsSetting {
  /** A fresh random id per setting (create, edit, grant). */
  readonly epoch: string
  /** When they were set, UTC milliseconds: the refill interval of that instant starts with `remaining`. */
  readonly setAt: number
}

const WEEK_MS = 7 * DAY_MS
// 1970-01-01 was a Thursday: ISO weeks start 3 days later, on Monday 1970-01-05.
const FIRST_MONDAY_MS = 4 * DAY_MS

/**
 * The start (UTC milliseconds) of the refill interval that holds `now`: midnight UTC,
 * Monday 00:00 UTC, or the first of the month 00:00 UTC.
 *
 * @example
 * ```ts
 * new Date(refillPeriodStart('month', Date.UTC(2026, 1, 14, 9))).toISOString() // '2026-02-01T00:00:00.000Z'
 * ```
 */
export function refillPeriodStart(interval: RefillInterval, now: number): number {
  if (interval === 'day') return Math.floor(now / DAY_MS) * DAY_MS
  if (interval === 'week') return Math.floor((now - FIRST_MONDAY_MS) / WEEK_MS) * WEEK_MS + FIRST_MONDAY_MS
  const date = new Date(now)
  return Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1)
}

/**
 * The start (UTC milliseconds) of the refill interval after the one that holds `now`:
 * when the next refill happens.
 *
 * @example
 * ```ts
 * new Date(nextRefillAt('week', Date.UTC(2026, 0, 1))).toISOString() // '2026-01-05T00:00:00.000Z' (a Monday)
 * ```
 */
export function nextRefillAt(interval: RefillInterval, now: number): number {
  const start = refillPeriodStart(interval, now)
  if (interval === 'day') return start + DAY_MS
  if (interval === 'week') return start + WEEK_MS
  const date = new Date(start)
  return Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1)
}

/**
 * The start (UTC milliseconds) of the fixed rate window that holds `now`: windows of
 * `windowSeconds` aligned on the epoch, so every instance of a fleet cuts them alike.
 *
 * @example
 * ```ts
 * rateWindowStart(60, 90_500) // 60_000
 * ```
 */
export function rateWindowStart(windowSeconds: number, now: number): number {
  const length = windowSeconds * 1000
  return Math.floor(now / length) * length
}

/**
 * The balance a low-credits notice is sent at (SPEC §5.50, `credits.low`): `ratio` of
 * the full amount (the refill amount, or the credits as set without a refill), rounded
 * down.
 *
 * @example
 * ```ts
 * lowCreditsLine({ remaining: 1_000, refill: null }, 0.1) // 100
 * ```
 */
export function lowCreditsLine(credits: CreditsSetting, ratio: number): number {
  return Math.floor(fullCredits(credits) * ratio)
}

/** What "full" means for a passcode's credits: the refill amount, or the credits as set. */
export function fullCredits(credits: CreditsSetting): number {
  return credits.refill === null ? credits.remaining : credits.refill.amount
}

/**
 * The `rateLimit` setting as a sentence for messages and the command: `100 per 60 s`.
 *
 * @example
 * ```ts
 * describeRateLimit({ max: 10, windowSeconds: 1 }) // '10 per 1 s'
 * ```
 */
export function describeRateLimit(rateLimit: RateLimitSetting): string {
  return `${rateLimit.max} per ${rateLimit.windowSeconds} s`
}
