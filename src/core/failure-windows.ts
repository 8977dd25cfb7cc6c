/**
 * Exact sliding windows of failure instants, per key: what the brute-force limiter
 * counts, wherever the counts are kept. A pure data structure: instants come from the
 * caller's clock, there are no timers, and expired instants are dropped when their
 * key is next touched. Used by the in-memory rate-limit store of the service and by
 * the PostgreSQL one for this instance's own failures (it sits in core/ so that both
 * may import it: the service never imports stores/, and stores/ never the service).
 */

/** Drops the instants that left the window: those `≤ windowStart`. */
function prune(instants: number[], windowStart: number): void {
  let expired = 0
  while (expired < instants.length && instants[expired]! <= windowStart) expired++
  if (expired > 0) instants.splice(0, expired)
}

/**
 * Per key, the instants of at most `limit` failures younger than the window, oldest
 * first. Exact (no approximation at window edges) and bounded: past `maxKeys` keys,
 * the key whose last failure is oldest is forgotten, so memory stays within
 * `maxKeys × limit` instants however many keys an attacker uses. Forgetting only ever
 * lets a caller through.
 */
export class FailureWindows {
  // Insertion order is "last failure" order: recordFailure re-inserts its key.
  readonly #windows = new Map<string, number[]>()

  /** @param maxKeys - most keys tracked at once, a positive integer (not checked here) */
  constructor(readonly maxKeys: number) {}

  /** Keys tracked now. */
  get size(): number {
    return this.#windows.size
  }

  /** How long `key` must wait, in ms, before its failures in the window fall below `limit`; `0` when it is not limited at `now`. */
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

  /** Records one failure of `key` at `now`, keeping only what a later {@link retryAfterMs} needs. */
  recordFailure(key: string, limit: number, windowMs: number, now: number): void {
    let instants = this.#windows.get(key)
    if (instants === undefined) {
      if (this.#windows.size >= this.maxKeys) {
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

  /** Keeps tracked keys (client addresses, account IDs) out of `util.inspect` and `console.log`. */
  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return `FailureWindows { size: ${this.#windows.size} }`
  }
}
