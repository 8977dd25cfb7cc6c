import { z } from 'zod'
import type { RateLimitStore } from '../../ports/rate-limit-store'

/**
 * The brute-force limiter of `createPasscodeAuth({ rateLimit })`: failed attempts
 * counted per client address and per account ID in a sliding window.
 *
 * @example
 * ```ts
 * createPasscodeAuth({ store, rateLimit: { windowMs: 15 * 60_000, maxFailuresPerAddress: 50, maxFailuresPerAccount: 50 } })
 * ```
 */
export interface RateLimitOptions {
  /** Length of the sliding window, in ms (1 s to 24 h). @default 900000 (15 minutes) */
  windowMs?: number
  /**
   * Failed attempts one client address may make within the window; `false` for no
   * per-address limit. An IPv4 caller is one address however it arrives (IPv4-mapped,
   * NAT64); other IPv6 addresses count by their /64 prefix; requests without an
   * address share one count, `unknown` (SPEC §5.37).
   * @default 50
   */
  maxFailuresPerAddress?: number | false
  /**
   * Failed attempts against one account ID (as sent, existing or not) within the
   * window, from all addresses together, past which further *failing* attempts are
   * answered 429; valid credentials always pass. `false` for no per-account limit.
   * @default 50
   */
  maxFailuresPerAccount?: number | false
  /** Keys the built-in memory store tracks at most; not allowed with `store`. @default 10000 */
  maxTrackedKeys?: number
  /** Where the counts live; one shared by every instance makes the limit fleet-wide. @default memoryRateLimitStore() */
  store?: RateLimitStore
}

/** The resolved `rateLimit` option. */
export interface ResolvedRateLimit {
  readonly windowMs: number
  readonly maxFailuresPerAddress: number | false
  readonly maxFailuresPerAccount: number | false
  readonly maxTrackedKeys?: number | undefined
  readonly store?: RateLimitStore | undefined
}

/** The range of `maxFailuresPerAddress` and `maxFailuresPerAccount` when a number. */
export const MAX_FAILURES_RANGE = { min: 1, max: 10_000 } as const

/** The limits `rateLimit: {}` takes: 50 failed attempts per address and per account in 15 minutes. */
export const RATE_LIMIT_DEFAULTS = { windowMs: 900_000, maxFailures: 50 } as const

/** The range of `windowMs`, in ms (1 s to 24 h). */
export const WINDOW_MS_RANGE = { min: 1_000, max: 86_400_000 } as const

const maxFailures = z.union([z.literal(false), z.number().int().min(MAX_FAILURES_RANGE.min).max(MAX_FAILURES_RANGE.max)])

/**
 * The `rateLimit` option's schema, owned by the limiter: `false`, or the limits with
 * their defaults. `options.ts` composes it into the service's options.
 *
 * @example
 * ```ts
 * rateLimitSchema.parse({}) // { windowMs: 900000, maxFailuresPerAddress: 50, maxFailuresPerAccount: 50 }
 * ```
 */
export const rateLimitSchema = z.union([
  z.literal(false),
  z
    .object({
      windowMs: z.number().int().min(WINDOW_MS_RANGE.min).max(WINDOW_MS_RANGE.max).default(RATE_LIMIT_DEFAULTS.windowMs),
      maxFailuresPerAddress: maxFailures.default(RATE_LIMIT_DEFAULTS.maxFailures),
      maxFailuresPerAccount: maxFailures.default(RATE_LIMIT_DEFAULTS.maxFailures),
      maxTrackedKeys: z.number().int().min(1).max(10_000_000).optional(),
      store: z
        .custom<RateLimitStore>(
          (value) =>
            typeof value === 'object' &&
            value !== null &&
            typeof (value as RateLimitStore).retryAfterMs === 'function' &&
            typeof (value as RateLimitStore).recordFailure === 'function',
          { message: 'must be a RateLimitStore (an object with retryAfterMs and recordFailure)' },
        )
        .optional(),
    })
    .strict()
    .refine((limit) => limit.maxFailuresPerAddress !== false || limit.maxFailuresPerAccount !== false, {
      message: 'at least one of maxFailuresPerAddress and maxFailuresPerAccount must be a number (or set rateLimit: false)',
      path: ['maxFailuresPerAddress'],
    })
    .refine((limit) => limit.store === undefined || limit.maxTrackedKeys === undefined, {
      message: 'applies to the built-in memory store only; bound the size of your own store instead',
      path: ['maxTrackedKeys'],
    }),
])
