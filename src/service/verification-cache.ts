import type { Principal } from '../core/entities'
import type { Invalidation } from '../ports/passcode-store'

class Entry {
  constructor(
    readonly principal: Principal,
    /** Epoch ms after which the entry must not be used: min(cached + ttl, expiresAt). */
    readonly validUntil: number,
  ) {}
}

/**
 * The verification cache: passcode value → principal, bounded in size and time.
 *
 * Keyed by the raw header value so that a hit costs one Map lookup and no hash
 * (the hot path of every request). Entries end at the passcode's own expiry, so an
 * expired passcode is never served as valid; after that the full path answers 401.
 * Invalidation scans the entries, which keeps each entry small; deletes, resets and
 * revocations are rare next to lookups. A generation counter stops a lookup that
 * started before an invalidation from caching what it read.
 *
 * The cache holds values in this process's memory only: it is never serialised,
 * logged or inspected (custom `inspect`), like the headers it comes from.
 */
export class VerificationCache {
  readonly #entries = new Map<string, Entry>()
  readonly #ttlMs: number
  readonly #maxEntries: number
  #generation = 0

  constructor(options: { ttlMs: number; maxEntries: number }) {
    this.#ttlMs = options.ttlMs
    this.#maxEntries = options.maxEntries
  }

  /** Number of entries, for tests and metrics. */
  get size(): number {
    return this.#entries.size
  }

  /** The current generation; pass it back to {@link set}. */
  get generation(): number {
    return this.#generation
  }

  /** The principal for this passcode and account, if cached and still valid at `now`. */
  get(passcode: string, accountId: string, now: number): Principal | undefined {
    const entry = this.#entries.get(passcode)
    if (entry === undefined) return undefined
    if (now >= entry.validUntil) {
      this.#entries.delete(passcode)
      return undefined
    }
    return entry.principal.accountId === accountId ? entry.principal : undefined
  }

  /**
   * Caches a successful verification read at `generation`; ignored when an
   * invalidation happened since.
   */
  set(passcode: string, principal: Principal, expiresAt: number | null, now: number, generation: number): void {
    if (generation !== this.#generation) return
    const ttlEnd = now + this.#ttlMs
    const validUntil = expiresAt !== null && expiresAt < ttlEnd ? expiresAt : ttlEnd
    if (!this.#entries.has(passcode) && this.#entries.size >= this.#maxEntries) {
      // Evict the oldest insertion: cheaper than LRU bookkeeping on every hit.
      const oldest = this.#entries.keys().next()
      if (oldest.done !== true) this.#entries.delete(oldest.value)
    }
    this.#entries.set(passcode, new Entry(principal, validUntil))
  }

  /** Drops every entry the invalidation concerns. */
  invalidate(invalidation: Invalidation): void {
    this.#generation++
    for (const [key, { principal }] of this.#entries) {
      if (principal.accountId !== invalidation.accountId) continue
      const matches =
        invalidation.type === 'account' ||
        (invalidation.type === 'account_passcode' && principal.kind === 'account' && principal.passcodeId === invalidation.passcodeId) ||
        (invalidation.type === 'user_passcode' && principal.kind === 'user' && principal.userId === invalidation.userId)
      if (matches) this.#entries.delete(key)
    }
  }

  /** Drops everything. */
  clear(): void {
    this.#generation++
    this.#entries.clear()
  }

  /** Keeps cached values out of `util.inspect` and `console.log`. */
  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return `VerificationCache { size: ${this.#entries.size} }`
  }

  /** Keeps cached values out of `JSON.stringify`. */
  toJSON(): { size: number } {
    return { size: this.#entries.size }
  }
}
