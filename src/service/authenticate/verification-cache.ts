import type { Principal } from '../../core/entities'
import type { Invalidation } from '../../ports/passcode-store'
import { sunsetHeaders } from '../../protocol/sunset'

/**
 * A cached principal whose passcode expires before its half of the cache ends, or
 * enters its warning window (the `Sunset` header) before then.
 */
export class Expiring {
  /** The `Sunset` header, made once per entry. */
  readonly headers: Readonly<Record<string, string>>
  constructor(
    readonly principal: Principal,
    /** The passcode's `expiresAt`: from then on the full path answers 401. */
    readonly validUntil: number,
    /** From then on, answers carry `headers` (`Infinity`: never). */
    readonly warnFrom: number,
  ) {
    this.headers = sunsetHeaders(validUntil)
  }
}

type Cached = Principal | Expiring

const principalOf = (cached: Cached): Principal => (cached instanceof Expiring ? cached.principal : cached)

/**
 * The verification cache: passcode value → principal, bounded in size and time.
 *
 * Keyed by the raw header value so that a hit costs one Map lookup and no hash
 * (the hot path of every request). Time is kept per half, not per entry: new
 * entries go into the newer half for `ttlMs / 2`, which then becomes the older half
 * and is dropped whole once its first entry is `ttlMs` old. So no entry outlives
 * `ttlMs`, most live at least half of it, and an entry costs only its key, its
 * principal and a slot of a Map (no record, no timestamp). The rare entry whose
 * passcode expires before its half ends carries its own end, so an expired
 * passcode is never served as valid; after that the full path answers 401.
 * Invalidation scans the entries; deletes, resets and revocations are rare next to
 * lookups. A generation counter stops a lookup that started before an invalidation
 * from caching what it read.
 *
 * The cache holds values in this process's memory only: it is never serialised,
 * logged or inspected (custom `inspect`), like the headers it comes from.
 */
export class VerificationCache {
  #newer = new Map<string, Cached>()
  #older = new Map<string, Cached>()
  /** When every entry of the newer half must be gone (its start + ttl). */
  #newerEnd = Number.NEGATIVE_INFINITY
  /** When the newer half stops taking entries and becomes the older one. */
  #rotateAt = Number.NEGATIVE_INFINITY
  /** When every entry of the older half must be gone. */
  #olderEnd = Number.POSITIVE_INFINITY
  /** min(#rotateAt, #olderEnd): the one comparison the hot path makes. */
  #nextCheck = Number.NEGATIVE_INFINITY
  readonly #ttlMs: number
  readonly #maxEntries: number
  /** How long before `expiresAt` answers carry the `Sunset` header; `undefined` when the host turned it off. */
  readonly #warnWithinMs: number | undefined
  #generation = 0

  constructor(options: { ttlMs: number; maxEntries: number; warnWithinMs?: number | undefined }) {
    this.#ttlMs = options.ttlMs
    this.#maxEntries = options.maxEntries
    this.#warnWithinMs = options.warnWithinMs
  }

  /** Number of entries, for tests and metrics. */
  get size(): number {
    return this.#newer.size + this.#older.size
  }

  /** The current generation; pass it back to {@link set}. */
  get generation(): number {
    return this.#generation
  }

  /**
   * The principal for this passcode and account, if cached and still valid at `now`
   * and no `Sunset` header is due: the synchronous warm path, which answers without
   * headers. A passcode in its warning window takes {@link lookup} instead.
   */
  get(passcode: string, accountId: string, now: number): Principal | undefined {
    if (now >= this.#nextCheck) this.#age(now)
    let cached = this.#newer.get(passcode)
    if (cached === undefined) {
      cached = this.#older.get(passcode)
      if (cached === undefined) return undefined
    }
    if (cached instanceof Expiring) {
      if (now >= cached.warnFrom) {
        if (now >= cached.validUntil) {
          this.#newer.delete(passcode)
          this.#older.delete(passcode)
        }
        return undefined
      }
      cached = cached.principal
    }
    return cached.accountId === accountId ? cached : undefined
  }

  /**
   * What is cached for this passcode and account, if still valid at `now`: the
   * principal, or an {@link Expiring} entry whose `headers` are due from `warnFrom`.
   */
  lookup(passcode: string, accountId: string, now: number): Principal | Expiring | undefined {
    if (now >= this.#nextCheck) this.#age(now)
    const cached = this.#newer.get(passcode) ?? this.#older.get(passcode)
    if (cached === undefined) return undefined
    if (cached instanceof Expiring && now >= cached.validUntil) {
      this.#newer.delete(passcode)
      this.#older.delete(passcode)
      return undefined
    }
    return principalOf(cached).accountId === accountId ? cached : undefined
  }

  /**
   * Caches a successful verification read at `generation`; ignored when an
   * invalidation happened since.
   */
  set(passcode: string, principal: Principal, expiresAt: number | null, now: number, generation: number): void {
    if (generation !== this.#generation) return
    if (now >= this.#nextCheck) this.#age(now)
    const warnFrom = expiresAt === null || this.#warnWithinMs === undefined ? Number.POSITIVE_INFINITY : expiresAt - this.#warnWithinMs
    const cached =
      expiresAt !== null && (expiresAt < this.#newerEnd || warnFrom < this.#newerEnd)
        ? new Expiring(principal, expiresAt, Math.min(warnFrom, expiresAt))
        : principal
    if (!this.#older.delete(passcode) && !this.#newer.has(passcode) && this.size >= this.#maxEntries) {
      // Evict the oldest insertion: cheaper than LRU bookkeeping on every hit.
      const half = this.#older.size > 0 ? this.#older : this.#newer
      const oldest = half.keys().next()
      if (oldest.done !== true) half.delete(oldest.value)
    }
    this.#newer.set(passcode, cached)
  }

  /** Drops every entry the invalidation concerns. */
  invalidate(invalidation: Invalidation): void {
    if (invalidation.type === 'all') return this.clear()
    this.#generation++
    for (const entries of [this.#newer, this.#older]) {
      for (const [key, cached] of entries) {
        const principal = principalOf(cached)
        if (principal.accountId !== invalidation.accountId) continue
        const matches =
          invalidation.type === 'account' ||
          (invalidation.type === 'account_passcode' && principal.kind === 'account' && principal.passcodeId === invalidation.passcodeId) ||
          (invalidation.type === 'user_passcode' && principal.kind === 'user' && principal.userId === invalidation.userId)
        if (matches) entries.delete(key)
      }
    }
  }

  /** Drops everything. */
  clear(): void {
    this.#generation++
    this.#newer.clear()
    this.#older.clear()
  }

  /** Keeps cached values out of `util.inspect` and `console.log`. */
  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return `VerificationCache { size: ${this.size} }`
  }

  /** Keeps cached values out of `JSON.stringify`. */
  toJSON(): { size: number } {
    return { size: this.size }
  }

  /** Drops the older half once it is `ttlMs` old, and turns the newer half into the older one every `ttlMs / 2`. */
  #age(now: number): void {
    if (now >= this.#rotateAt) {
      const keep = this.#newer.size > 0 && now < this.#newerEnd
      this.#older = keep ? this.#newer : new Map()
      this.#olderEnd = keep ? this.#newerEnd : Number.POSITIVE_INFINITY
      this.#newer = new Map()
      this.#newerEnd = now + this.#ttlMs
      this.#rotateAt = now + this.#ttlMs / 2
    } else if (now >= this.#olderEnd) {
      this.#older = new Map()
      this.#olderEnd = Number.POSITIVE_INFINITY
    }
    this.#nextCheck = Math.min(this.#rotateAt, this.#olderEnd)
  }
}
