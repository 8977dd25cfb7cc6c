import type { Principal } from '../../core/entities'
import type { Invalidation } from '../../ports/passcode-store'
import { sunsetHeaders } from '../../protocol/sunset'
import { inspectCustom, TwoGenerationMap } from './two-generation-map'

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
 * (the hot path of every request). Time is kept per half, not per entry (a
 * {@link TwoGenerationMap}): no entry outlives `ttlMs`, most live at least half of
 * it, and an entry costs only its key, its principal and a slot of a Map. The rare entry whose
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
  readonly #entries: TwoGenerationMap<Cached>
  /** How long before `expiresAt` answers carry the `Sunset` header; `undefined` when the host turned it off. */
  readonly #warnWithinMs: number | undefined

  constructor(options: { ttlMs: number; maxEntries: number; warnWithinMs?: number | undefined }) {
    this.#entries = new TwoGenerationMap('VerificationCache', options)
    this.#warnWithinMs = options.warnWithinMs
  }

  /** Number of entries, for tests and metrics. */
  get size(): number {
    return this.#entries.size
  }

  /** The current generation; pass it back to {@link set}. */
  get generation(): number {
    return this.#entries.generation
  }

  /**
   * The principal for this passcode and account, if cached and still valid at `now`
   * and no `Sunset` header is due: the synchronous warm path, which answers without
   * headers. A passcode in its warning window takes {@link lookup} instead.
   */
  get(passcode: string, accountId: string, now: number): Principal | undefined {
    let cached = this.#entries.get(passcode, now)
    if (cached === undefined) return undefined
    if (cached instanceof Expiring) {
      if (now >= cached.warnFrom) {
        if (now >= cached.validUntil) this.#entries.delete(passcode)
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
    const cached = this.#entries.get(passcode, now)
    if (cached === undefined) return undefined
    if (cached instanceof Expiring && now >= cached.validUntil) {
      this.#entries.delete(passcode)
      return undefined
    }
    return principalOf(cached).accountId === accountId ? cached : undefined
  }

  /**
   * Caches a successful verification read at `generation`; ignored when an
   * invalidation happened since.
   */
  set(passcode: string, principal: Principal, expiresAt: number | null, now: number, generation: number): void {
    if (!this.#entries.accepts(now, generation)) return
    const newerEnd = this.#entries.newerEnd
    const warnFrom = expiresAt === null || this.#warnWithinMs === undefined ? Number.POSITIVE_INFINITY : expiresAt - this.#warnWithinMs
    const cached =
      expiresAt !== null && (expiresAt < newerEnd || warnFrom < newerEnd)
        ? new Expiring(principal, expiresAt, Math.min(warnFrom, expiresAt))
        : principal
    this.#entries.store(passcode, cached)
  }

  /**
   * Drops every entry the invalidation concerns; on `unproven`, everything, and caches
   * nothing until `proven`; on `fresh`, answers nothing past its `until` (SPEC §5.32).
   */
  invalidate(invalidation: Invalidation): void {
    if (invalidation.type === 'fresh') return this.#entries.freshUntil(invalidation.until)
    if (invalidation.type === 'unproven' || invalidation.type === 'proven') return this.#entries.trust(invalidation.type === 'proven')
    if (invalidation.type === 'all') return this.clear()
    this.#entries.deleteWhere((cached) => {
      const principal = principalOf(cached)
      if (principal.accountId !== invalidation.accountId) return false
      return (
        invalidation.type === 'account' ||
        (invalidation.type === 'account_passcode' && principal.kind === 'account' && principal.passcodeId === invalidation.passcodeId) ||
        (invalidation.type === 'user_passcode' && principal.kind === 'user' && principal.userId === invalidation.userId)
      )
    })
  }

  /** Drops everything. */
  clear(): void {
    this.#entries.clear()
  }

  /** Keeps cached values out of `util.inspect` and `console.log`. */
  [inspectCustom](): string {
    return this.#entries[inspectCustom]()
  }

  /** Keeps cached values out of `JSON.stringify`. */
  toJSON(): { size: number } {
    return this.#entries.toJSON()
  }
}
