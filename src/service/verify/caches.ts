import type { Principal } from '../../core/entities'
import type { Invalidation } from '../../ports/passcode-store'
import { sunsetHeaders } from '../../protocol/sunset'
import type { CredentialRead } from './peppers'
import type { OwnerRefusal } from './rules'
import { inspectCustom, TwoGenerationMap } from './two-generation-map'

/*
 * The caches of the verification pipeline, in one module: the acceptance cache
 * ({@link VerificationCache}), the refusal cache ({@link RefusalCache}) and the reads in
 * flight ({@link SharedReads}), each with its own generation, held together by
 * {@link VerifyCaches}, whose `generations()` a store read takes before it starts and
 * whose `invalidate` moves them all.
 */

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

/**
 * What one store read answered for a well-formed passcode that was refused: no
 * credential at all (`owner` undefined), or a credential of `owner` that the owner
 * itself is refused with `ownerRefusal` (`undefined` when the owner would succeed:
 * only other accounts' attempts are then answered from here).
 */
class Refusal<Reason extends string> {
  constructor(
    readonly owner: string | undefined,
    readonly ownerRefusal: Reason | undefined,
    /** The credential the value matched, for usage over time (SPEC §5.41); only while usage counts. */
    readonly credential?: Principal,
  ) {}
}

/** The answer of {@link RefusalCache.get}: a reason, or `undefined` to take the full path. */
export type CachedRefusal<Reason extends string> = Reason | 'unknown_passcode' | 'wrong_account' | undefined

/**
 * The negative cache: well-formed passcodes whose store read ended in a refusal
 * (unknown, another account's, not accepted, revoked, expired), so that a partner
 * retrying a deleted, rotated-out or revoked passcode costs no hash and no store read.
 *
 * Apart from the verification cache, so a flood of distinct values evicts only its
 * own entries, never a valid credential's. Bounded in entries (the oldest insertion
 * goes first) and in time (a {@link TwoGenerationMap}, as the verification cache:
 * no entry outlives `ttlMs`). Every invalidation drops the entries of its account (a
 * credential of that account was deleted, reset, revoked, rotated, edited, granted,
 * or the account's accepted passcodes changed: any of these can turn a refusal into
 * a success, or a 401 into a 400), and `{ type: 'all' }` drops everything. Entries
 * without an owner (no credential had that hash) are dropped by time only: passcode
 * values are generated by the service, so no operation gives an unknown value a
 * credential, short of writing hashes into the store from outside (a restore), which
 * `ttlMs` bounds. A generation counter stops a read that started before an
 * invalidation from caching what it read.
 *
 * Values live in this process's memory only: never serialised, logged or inspected.
 */
export class RefusalCache<Reason extends string> {
  readonly #entries: TwoGenerationMap<Refusal<Reason>>
  static readonly #unknown = new Refusal<never>(undefined, undefined)

  constructor(options: { ttlMs: number; maxEntries: number }) {
    this.#entries = new TwoGenerationMap('RefusalCache', options)
  }

  /** Number of entries, for tests and metrics. */
  get size(): number {
    return this.#entries.size
  }

  /** The current generation; pass it back to {@link set}. */
  get generation(): number {
    return this.#entries.generation
  }

  /** The remembered refusal of this passcode for this account, if any. */
  get(passcode: string, accountId: string, now: number): CachedRefusal<Reason> {
    const refusal = this.#entries.get(passcode, now)
    if (refusal === undefined) return undefined
    if (refusal.owner === undefined) return 'unknown_passcode'
    return refusal.owner === accountId ? refusal.ownerRefusal : 'wrong_account'
  }

  /**
   * The credential a remembered refusal matched, for usage over time (SPEC §5.41):
   * kept only when usage counts. Asked after {@link get} answered a refusal.
   */
  credential(passcode: string, now: number): Principal | undefined {
    return this.#entries.get(passcode, now)?.credential
  }

  /**
   * Remembers a store read that refused: `owner` undefined when no credential
   * matched (or only a value a rotation replaced, answered as unknown), else the
   * credential's account and how its owner would be answered (`undefined`: accepted);
   * `credential` the one matched, when usage over time counts its refusals. Ignored
   * when an invalidation happened since `generation`.
   */
  set(passcode: string, owner: string | undefined, ownerRefusal: Reason | undefined, now: number, generation: number, credential?: Principal): void {
    const refusal = owner === undefined && credential === undefined ? RefusalCache.#unknown : new Refusal(owner, ownerRefusal, credential)
    this.#entries.set(passcode, refusal, now, generation)
  }

  /**
   * Drops the entries the invalidation concerns: every entry of its account (as owner,
   * or as the credential a value rotated out matched); on `unproven`, everything, and
   * caches nothing until `proven`; on `fresh`, answers nothing past its `until`.
   */
  invalidate(invalidation: Invalidation): void {
    if (invalidation.type === 'fresh') return this.#entries.freshUntil(invalidation.until)
    if (invalidation.type === 'unproven' || invalidation.type === 'proven') return this.#entries.trust(invalidation.type === 'proven')
    if (invalidation.type === 'all') return this.clear()
    const { accountId } = invalidation
    this.#entries.deleteWhere((refusal) => refusal.owner === accountId || refusal.credential?.accountId === accountId)
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

/**
 * Store reads shared by the verifications that need the same one at the same time:
 * when many requests with the same passcode miss the cache together (after a start,
 * a TTL's end or an invalidation), the first one reads the store and the others wait
 * for that read instead of making their own. Each caller keeps its own deadline and
 * runs its own checks on what was read (the account ID may differ).
 *
 * A read only exists while it is in flight, so the map holds at most one entry per
 * distinct passcode being verified at that moment. {@link invalidate} makes every
 * later caller start a read of its own: one that began before a credential changed
 * is never joined after the change was heard, and {@link abandon} drops a read that
 * outlived a caller's deadline, so a store call that never settles answers one round
 * of requests with 504, not every later one.
 */
export class SharedReads<T> {
  readonly #inFlight = new Map<string, { readonly generation: number; readonly read: Promise<T> }>()
  #generation = 0

  /** Reads in flight, for tests and metrics. */
  get size(): number {
    return this.#inFlight.size
  }

  /** The read in flight for `key` since the last invalidation, or a new one from `start`. */
  read(key: string, start: () => Promise<T>): Promise<T> {
    const current = this.#inFlight.get(key)
    if (current?.generation === this.#generation) return current.read
    let read: Promise<T>
    try {
      read = start()
    } catch (error) {
      read = Promise.reject(error)
    }
    const entry = { generation: this.#generation, read }
    this.#inFlight.set(key, entry)
    // Inline handlers (this runs on every cache miss): a closure bound to a name is given
    // that name at run time, per call, where the code is compiled keeping names (tsx).
    read.then(
      () => this.#settle(key, entry),
      () => this.#settle(key, entry),
    )
    return read
  }

  #settle(key: string, entry: { readonly read: Promise<T> }): void {
    if (this.#inFlight.get(key) === entry) this.#inFlight.delete(key)
  }

  /** Lets no later caller join `read` (one whose caller gave up on it): they start their own. */
  abandon(key: string, read: Promise<T>): void {
    if (this.#inFlight.get(key)?.read === read) this.#inFlight.delete(key)
  }

  /** Lets no caller join a read that started before now. */
  invalidate(): void {
    this.#generation++
    this.#inFlight.clear()
  }

  /** Keeps passcode values (the keys) out of `util.inspect` and `console.log`. */
  [inspectCustom](): string {
    return `SharedReads { size: ${this.size} }`
  }

  /** Keeps passcode values out of `JSON.stringify`. */
  toJSON(): { size: number } {
    return { size: this.size }
  }
}

/** The generation of each cache a store read may write to, taken before the read starts. */
export interface CacheGenerations {
  /** Of the acceptance cache ({@link VerificationCache}). */
  readonly accepted: number
  /** Of the refusal cache ({@link RefusalCache}). */
  readonly refused: number
}

/** The limits of the two caches of {@link VerifyCaches}; `undefined` turns one off. */
export interface VerifyCachesOptions {
  readonly accepted?: { readonly ttlMs: number; readonly maxEntries: number; readonly warnWithinMs?: number | undefined } | undefined
  readonly refused?: { readonly ttlMs: number; readonly maxEntries: number } | undefined
}

/**
 * Every cache of one service's verification pipeline, and the one place that drops
 * what a changed credential invalidates: the acceptance cache (`cache` option), the
 * refusal cache (`cache.refusals`) and the store reads in flight. A store read takes
 * {@link generations} before it starts and hands them back when it writes, so that
 * nothing read before an invalidation is kept after it.
 *
 * @example
 * ```ts
 * const caches = new VerifyCaches({ accepted: { ttlMs: 30_000, maxEntries: 10_000 } })
 * store.subscribe?.(caches.invalidate)
 * ```
 */
export class VerifyCaches {
  /** Passcode value → principal: the warm path. `undefined` with `cache: false`. */
  readonly accepted: VerificationCache | undefined
  /** Refused well-formed passcode values. `undefined` with `cache: false` or `cache.refusals: false`. */
  readonly refused: RefusalCache<OwnerRefusal> | undefined
  /** The store reads in flight, shared by concurrent misses of one passcode. */
  readonly reads = new SharedReads<CredentialRead>()

  constructor(options: VerifyCachesOptions) {
    this.accepted = options.accepted === undefined ? undefined : new VerificationCache(options.accepted)
    this.refused = options.refused === undefined ? undefined : new RefusalCache<OwnerRefusal>(options.refused)
  }

  /** The generations to hand back with what a store read starting now finds. */
  generations(): CacheGenerations {
    return { accepted: this.accepted?.generation ?? 0, refused: this.refused?.generation ?? 0 }
  }

  /** Drops a changed credential from every cache (and the reads in flight) at once; bound, for `store.subscribe`. */
  readonly invalidate = (invalidation: Invalidation): void => {
    // A proof heard changes nothing read: reads in flight may still be joined.
    if (invalidation.type !== 'fresh') this.reads.invalidate()
    this.accepted?.invalidate(invalidation)
    this.refused?.invalidate(invalidation)
  };

  /** Keeps cached values out of `util.inspect` and `console.log`. */
  [inspectCustom](): string {
    return `VerifyCaches { accepted: ${this.accepted?.size ?? 'off'}, refused: ${this.refused?.size ?? 'off'}, reads: ${this.reads.size} }`
  }

  /** Keeps cached values out of `JSON.stringify`. */
  toJSON(): { accepted: number | null; refused: number | null; reads: number } {
    return { accepted: this.accepted?.size ?? null, refused: this.refused?.size ?? null, reads: this.reads.size }
  }
}
