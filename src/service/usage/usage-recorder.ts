import { unrefTimer } from '../../core/time'
import type { Principal } from '../../core/entities'
import type { PasscodeStore, UsageCount, UsageEntry, UsageOutcome } from '../../ports/passcode-store'
import type { EventInput } from '../events'
import type { PendingUse } from '../views'
import { DayCounts, dayOf, dayText } from './day-counts'

/**
 * What this instance saw of one passcode since its last flush: its latest use (`at`,
 * 0 when only refusals were counted) and its requests per day (SPEC §5.41).
 */
class Seen extends DayCounts implements PendingUse {
  /** `true` once a flush of this entry failed: a second failure drops it. */
  retried = false
  constructor(
    readonly accountId: string,
    public at: number,
    public partner: string | null,
  ) {
    super()
  }
}

/** A use for views: none when only refusals were counted. */
const used = (seen: Seen | undefined): Seen | undefined => (seen === undefined || seen.at === 0 ? undefined : seen)

type UserUses = Map<string, Seen>

/** Uses waiting for a flush: account passcodes by id, user passcodes by account then user. */
class Batch {
  readonly accounts = new Map<string, Seen>()
  readonly users = new Map<string, UserUses>()

  get size(): number {
    let size = this.accounts.size
    for (const uses of this.users.values()) size += uses.size
    return size
  }

  entries(): UsageEntry[] {
    const out: UsageEntry[] = []
    for (const [passcodeId, seen] of this.accounts) {
      if (seen.at > 0) out.push({ kind: 'account', accountId: seen.accountId, passcodeId, at: seen.at, partner: seen.partner })
    }
    for (const [accountId, uses] of this.users) {
      for (const [userId, seen] of uses) if (seen.at > 0) out.push({ kind: 'user', accountId, userId, at: seen.at, partner: seen.partner })
    }
    return out
  }

  counts(): UsageCount[] {
    const out: UsageCount[] = []
    for (const [passcodeId, seen] of this.accounts) seen.appendTo(out, 'account', seen.accountId, passcodeId)
    for (const [accountId, uses] of this.users) {
      for (const [userId, seen] of uses) seen.appendTo(out, 'user', accountId, userId)
    }
    return out
  }
}

/** Options of the usage recorder (the service's `usage` option). */
export interface UsageRecorderOptions {
  readonly flushIntervalMs: number
  /** How many UTC days of counts the store keeps (SPEC §5.41); older ones are pruned after a flush, at most once a day. */
  readonly retentionDays: number
}

/** How many daily counts one prune statement deletes at most. */
export const PRUNE_BATCH = 1000

/**
 * Last-use tracking that adds no storage write to a request (SPEC §5.27). A request
 * only updates this instance's in-memory batch (one Map lookup on the warm path);
 * the batch goes to the store in one `recordUsage` call, one statement, at most once
 * per flush interval, so each passcode is written at most once per interval by each
 * instance. The interval's timer runs only while something waits to be written.
 *
 * A failed flush keeps its entries for the next one (merged with newer uses, still one
 * write per passcode); if that fails too they are dropped, reported by a
 * `usage.flush_failed` event. What is lost is recency, never a credential. A use of
 * a passcode deleted before the flush matches no row and is dropped by the store.
 *
 * The same batch counts requests per passcode, UTC day and outcome (SPEC §5.41):
 * successes, refusals that matched the credential, and `/v1/connect` per partner. A
 * success on the warm path adds one field increment to the Map lookup above. The
 * flush writes the counts after the last uses, in a statement of their own that adds
 * them to the stored ones (many instances add up); a failed flush keeps them for the
 * next one, as above, so a count is written once or, after two failures, dropped.
 * After a flush, at most once a day per instance, days older than `retentionDays`
 * are pruned in batches of {@link PRUNE_BATCH}.
 */
export class UsageRecorder {
  #pending = new Batch()
  /** The batch being written, still shown in views until the write settles. */
  #writing: Batch | undefined
  #flushing: Promise<void> | undefined
  #timer: ReturnType<typeof setTimeout> | undefined
  #closed = false
  #closing: Promise<void> | undefined
  readonly #store: PasscodeStore
  readonly #intervalMs: number
  readonly #retentionDays: number
  /** The day this instance last pruned old counts. */
  #prunedDay = -1
  readonly #emit: ((event: EventInput) => void) | undefined

  readonly #now: () => number

  constructor(store: PasscodeStore, options: UsageRecorderOptions, emit: ((event: EventInput) => void) | undefined, now: () => number = Date.now) {
    this.#store = store
    this.#now = now
    this.#intervalMs = options.flushIntervalMs
    this.#retentionDays = options.retentionDays
    this.#emit = emit
  }

  /**
   * Records that `principal` authenticated at `now` on a route with no partner (a
   * protected route), and counts one success on that UTC day. The last use is the pair
   * (time, partner) of the last successful request (SPEC §5.46): this one has no
   * partner, so it records none. A `/v1/connect` records its own, once its partner is
   * allowed ({@link seenConnect}, {@link refusedConnect}). The warm path calls this on
   * every hit.
   */
  seen(principal: Principal, now: number): void {
    let seen = principal.kind === 'account' ? this.#pending.accounts.get(principal.passcodeId) : this.#user(principal.accountId, principal.userId)
    if (seen === undefined) {
      seen = this.#add(principal, now, null)
      if (seen === undefined) return
    } else if (now >= seen.at) {
      seen.at = now
      seen.partner = null
    }
    seen.success(now)
  }

  /** Records and counts a successful `/v1/connect` for `partner` (normalised) at `now`. */
  seenConnect(principal: Principal, partner: string, now: number): void {
    let seen = principal.kind === 'account' ? this.#pending.accounts.get(principal.passcodeId) : this.#user(principal.accountId, principal.userId)
    if (seen === undefined) {
      seen = this.#add(principal, now, partner)
      if (seen === undefined) return
    } else if (now >= seen.at) {
      seen.at = now
      seen.partner = partner
    }
    seen.add(dayOf(now), partner, 'succeeded')
  }

  /**
   * Counts a `/v1/connect` whose credential verified but whose partner it may not
   * reach (missing, not whitelisted, or outside the passcode's binding): `partner` is
   * the whitelisted partner's normalised name, `''` when the request named none on
   * the whitelist (a caller's string is not kept). Not a use: the last use stays.
   */
  refusedConnect(principal: Principal, partner: string, now: number): void {
    this.refused(principal, 'wrong_partner', now, partner)
  }

  /**
   * Counts a refusal that matched `principal`'s credential (expired, disabled, revoked,
   * a value rotated out, a partner it may not reach) on the UTC day of `now`. Not a
   * use: the last use stays.
   */
  refused(principal: Principal, outcome: Exclude<UsageOutcome, 'succeeded'>, now: number, partner = ''): void {
    const seen =
      (principal.kind === 'account' ? this.#pending.accounts.get(principal.passcodeId) : this.#user(principal.accountId, principal.userId)) ??
      this.#add(principal, 0, null)
    seen?.add(dayOf(now), partner, outcome)
  }

  /** The use of an account passcode not yet in the store, for views. */
  pendingAccount(passcodeId: string): PendingUse | undefined {
    return newest(used(this.#pending.accounts.get(passcodeId)), used(this.#writing?.accounts.get(passcodeId)))
  }

  /** The use of a user passcode not yet in the store, for views. */
  pendingUser(accountId: string, userId: string): PendingUse | undefined {
    return newest(used(this.#pending.users.get(accountId)?.get(userId)), used(this.#writing?.users.get(accountId)?.get(userId)))
  }

  /**
   * Writes what is pending now (after a flush already under way). `close()` calls it;
   * the timer calls it once per interval.
   */
  flush(): Promise<void> {
    if (this.#timer !== undefined) {
      clearTimeout(this.#timer)
      this.#timer = undefined
    }
    const run = (this.#flushing ?? Promise.resolve()).then(() => this.#write())
    const settled = run.finally(() => {
      if (this.#flushing === settled) this.#flushing = undefined
    })
    this.#flushing = settled
    return settled
  }

  /**
   * Flushes what is pending, trying a failed write once more (there is no next
   * interval to retry it), and records no later use. Calling it again, or while it
   * runs, returns the same promise.
   */
  close(): Promise<void> {
    this.#closing ??= this.#close()
    return this.#closing
  }

  async #close(): Promise<void> {
    this.#closed = true
    await this.flush()
    // A failed write was put back once (see #requeue): its one retry is now.
    if (this.#pending.size > 0) await this.flush()
  }

  #user(accountId: string, userId: string): Seen | undefined {
    return this.#pending.users.get(accountId)?.get(userId)
  }

  #add(principal: Principal, now: number, partner: string | null): Seen | undefined {
    if (this.#closed) return undefined
    const seen = new Seen(principal.accountId, now, partner)
    if (principal.kind === 'account') {
      this.#pending.accounts.set(principal.passcodeId, seen)
    } else {
      let uses = this.#pending.users.get(principal.accountId)
      if (uses === undefined) {
        uses = new Map()
        this.#pending.users.set(principal.accountId, uses)
      }
      uses.set(principal.userId, seen)
    }
    // While a batch is being written, its end schedules the next flush.
    if (this.#timer === undefined && this.#writing === undefined) this.#schedule()
    return seen
  }

  #schedule(): void {
    this.#timer = setTimeout(() => {
      this.#timer = undefined
      this.flush().catch(() => undefined)
    }, this.#intervalMs)
    // A pending batch never keeps the process alive; close() flushes it on shutdown.
    unrefTimer(this.#timer)
  }

  async #write(): Promise<void> {
    const batch = this.#pending
    if (batch.accounts.size === 0 && batch.users.size === 0) return
    this.#pending = new Batch()
    this.#writing = batch
    try {
      const entries = batch.entries()
      if (entries.length > 0) await this.#store.recordUsage(entries)
      // After the last uses: a batch put back after a failure is never counted twice.
      const counts = this.#store.recordUsageCounts === undefined ? [] : batch.counts()
      if (counts.length > 0) await this.#store.recordUsageCounts!(counts)
    } catch (error) {
      const dropped = this.#requeue(batch)
      this.#emit?.({
        type: 'usage.flush_failed',
        passcodes: batch.size,
        dropped,
        error: error instanceof Error ? error.message : String(error),
      })
    } finally {
      this.#writing = undefined
      // Uses seen while writing wait for the next interval, not for a new first use.
      if (!this.#closed && this.#timer === undefined && this.#pending.size > 0) this.#schedule()
    }
    await this.#pruneIfDue()
  }

  /** Deletes days older than the retention, at most once a day per instance; a failure waits for the next day. */
  async #pruneIfDue(): Promise<void> {
    const store = this.#store
    const today = dayOf(this.#now())
    if (store.pruneUsageCounts === undefined || this.#prunedDay === today) return
    this.#prunedDay = today
    const before = dayText(today - this.#retentionDays + 1)
    try {
      while ((await store.pruneUsageCounts(before, PRUNE_BATCH)) >= PRUNE_BATCH) {
        // Bounded batches: each statement deletes at most PRUNE_BATCH rows.
      }
    } catch (error) {
      this.#emit?.({ type: 'usage.prune_failed', error: error instanceof Error ? error.message : String(error) })
    }
  }

  /** Puts a failed batch back once, under newer uses; returns how many were dropped. */
  #requeue(batch: Batch): number {
    let dropped = 0
    const keep = (seen: Seen, current: Seen | undefined, put: (seen: Seen) => void): void => {
      if (seen.retried) {
        dropped++
        return
      }
      if (current === undefined) {
        seen.retried = true
        put(seen)
        return
      }
      seen.addTo(current)
      // The last use is one request's time and partner, never a mix of two.
      if (seen.at > current.at) {
        current.at = seen.at
        current.partner = seen.partner
      }
    }
    for (const [passcodeId, seen] of batch.accounts) {
      keep(seen, this.#pending.accounts.get(passcodeId), (s) => this.#pending.accounts.set(passcodeId, s))
    }
    for (const [accountId, uses] of batch.users) {
      for (const [userId, seen] of uses) {
        keep(seen, this.#user(accountId, userId), (s) => {
          let target = this.#pending.users.get(accountId)
          if (target === undefined) {
            target = new Map()
            this.#pending.users.set(accountId, target)
          }
          target.set(userId, s)
        })
      }
    }
    if (!this.#closed && this.#timer === undefined && this.#pending.size > 0) this.#schedule()
    return dropped
  }
}

function newest(a: Seen | undefined, b: Seen | undefined): PendingUse | undefined {
  if (a === undefined) return b
  if (b === undefined) return a
  return a.at >= b.at ? a : { at: b.at, partner: b.partner }
}
