/**
 * Where the brute-force limiter keeps its counts of failed attempts: one sliding
 * window per key (a client address or an account ID, already namespaced by the
 * service). The built-in `memoryRateLimitStore` keeps them in this process; a store
 * shared by every instance (a database table, Redis) makes the limit hold across a
 * fleet. Methods may answer synchronously or with a promise.
 *
 * Semantics every implementation keeps: a key is limited at `now` when at least
 * `limit` failures were recorded at instants `t` with `now - windowMs < t ≤ now`.
 * An implementation may forget keys (to bound its memory): forgetting only ever
 * lets a caller through, never locks one out.
 *
 * @example
 * ```ts
 * const store: RateLimitStore = {
 *   retryAfterMs: (key, limit, windowMs, now) => 0, // never limits
 *   recordFailure: (key, limit, windowMs, now) => {},
 * }
 * ```
 */
export interface RateLimitStore {
  /**
   * How long `key` must wait, in milliseconds, before its failures in the window fall
   * below `limit`; `0` when it is not limited at `now`.
   */
  retryAfterMs(key: string, limit: number, windowMs: number, now: number): number | Promise<number>
  /**
   * Records one failed attempt of `key` at `now`. `limit` and `windowMs` are passed so
   * that an implementation can keep only what a later {@link retryAfterMs} needs (at
   * most `limit` instants younger than `windowMs`).
   */
  recordFailure(key: string, limit: number, windowMs: number, now: number): void | Promise<void>
}
