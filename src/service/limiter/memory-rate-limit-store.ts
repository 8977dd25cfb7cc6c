import { FailureWindows } from '../../core/failure-windows'
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

/**
 * The in-process sliding-window log behind the brute-force limiter: per key, the
 * instants of at most `limit` failures younger than the window, oldest first. Exact
 * (no approximation at window edges), bounded, and free of timers: instants come
 * from the caller's clock and expired ones are dropped when the key is next touched.
 * Made by {@link memoryRateLimitStore}.
 *
 * @example
 * ```ts
 * import { memoryRateLimitStore, type MemoryRateLimitStore } from 'passcode-auth/memory'
 *
 * const limiterStore: MemoryRateLimitStore = memoryRateLimitStore({ maxKeys: 50_000 })
 * ```
 */
export class MemoryRateLimitStore implements RateLimitStore {
  readonly #windows: FailureWindows

  constructor(options: MemoryRateLimitStoreOptions = {}) {
    const maxKeys = options.maxKeys ?? 10_000
    if (!Number.isInteger(maxKeys) || maxKeys < 1) throw new RangeError('maxKeys must be a positive integer')
    this.#windows = new FailureWindows(maxKeys)
  }

  /** Keys tracked now, for tests and metrics. */
  get size(): number {
    return this.#windows.size
  }

  retryAfterMs(key: string, limit: number, windowMs: number, now: number): number {
    return this.#windows.retryAfterMs(key, limit, windowMs, now)
  }

  recordFailure(key: string, limit: number, windowMs: number, now: number): void {
    this.#windows.recordFailure(key, limit, windowMs, now)
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
