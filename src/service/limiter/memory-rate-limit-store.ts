import type { RateLimitStore } from '../../ports/rate-limit-store'

/** Options of {@link memoryRateLimitStore}. */
export interface MemoryRateLimitStoreOptions {
  /**
   * Most keys (client addresses and account IDs) tracked at once. Past it, the key
   * whose last failure is oldest is forgotten, so memory stays within
   * `maxKeys × limit` instants however many addresses an attacker uses.
   * @default 10000
   */
  readonly maxKeys?: number
}

/** Drops the instants that left the window: those `≤ windowStart`. */
function prune(instants: number[], windowStart: number): void {
  let expired = 0
  while (expired < instants.length && instants[expired]! <= windowStart) expired++
  if (expired > 0) instants.splice(0, expired)
}

/**
 * The in-process sliding-window log behind the brute-force limiter: per key, the
 * instants of at most `limit` failures younger than the window, oldest first. Exact
 * (no approximation at window edges), bounded, and free of timers: instants come
 * from the caller's clock and expired ones are dropped when the key is next touched.
 */
export class MemoryRateLimitStore implements RateLimitStore {
  // Insertion order is "last failure" order: recordFailure re-inserts its key.
  readonly #windows = new Map<string, number[]>()
  readonly #maxKeys: number

  constructor(options: MemoryRateLimitStoreOptions = {}) {
    const maxKeys = options.maxKeys ?? 10_000
    if (!Number.isInteger(maxKeys) || maxKeys < 1) throw new RangeError('maxKeys must be a positive integer')
    this.#maxKeys = maxKeys
  }

  /** Keys tracked now, for tests and metrics. */
  get size(): number {
    return this.#windows.size
  }

  retryAfterMs(key: string, limit: number, windowMs: number, now: number): number {
    const instants = this.#windows.get(key)
    if (instants === undefined) return 0
    prune(instants, now - windowMs)
    if (instants.length === 0) {
      this.#windows.delete(key)
      return 0
    }
    // Instants after `now` (a clock set back) do not count yet.
    let counted = instants.length
    while (counted > 0 && instants[counted - 1]! > now) counted--
    if (counted < limit) return 0
    // The count falls below the limit when the limit-th newest counted failure leaves.
    return instants[counted - limit]! + windowMs - now
  }

  recordFailure(key: string, limit: number, windowMs: number, now: number): void {
    let instants = this.#windows.get(key)
    if (instants === undefined) {
      if (this.#windows.size >= this.#maxKeys) {
        const oldest = this.#windows.keys().next()
        if (oldest.done !== true) this.#windows.delete(oldest.value)
      }
      instants = []
    } else {
      this.#windows.delete(key)
      prune(instants, now - windowMs)
    }
    let at = instants.length
    while (at > 0 && instants[at - 1]! > now) at--
    instants.splice(at, 0, now)
    // Only the newest `limit` instants can decide a later answer.
    if (instants.length > limit) instants.splice(0, instants.length - limit)
    this.#windows.set(key, instants)
  }

  /** Keeps tracked addresses and account IDs out of `util.inspect` and `console.log`. */
  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return `MemoryRateLimitStore { size: ${this.#windows.size} }`
  }
}

/**
 * The in-memory {@link RateLimitStore}: exact sliding windows of failed attempts in
 * this process, bounded by `maxKeys`. It is what `createPasscodeAuth({ rateLimit })`
 * uses unless `rateLimit.store` is given; create one yourself to share it between
 * several services in one process or to read its `size`.
 *
 * @param options - see {@link MemoryRateLimitStoreOptions}
 * @example
 * ```ts
 * import { createPasscodeAuth } from 'passcode-auth'
 * import { memoryRateLimitStore, memoryStore } from 'passcode-auth/memory'
 *
 * const auth = createPasscodeAuth({
 *   store: memoryStore(),
 *   rateLimit: { windowMs: 60_000, maxFailuresPerAddress: 20, store: memoryRateLimitStore({ maxKeys: 50_000 }) },
 * })
 * ```
 */
export function memoryRateLimitStore(options?: MemoryRateLimitStoreOptions): MemoryRateLimitStore {
  return new MemoryRateLimitStore(options)
}
