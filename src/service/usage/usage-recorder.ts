import type { Principal } from '../../core/entities'
import type { PasscodeStore, UsageEntry } from '../../ports/passcode-store'
import type { EventInput } from '../events'
import type { PendingUse } from '../views'

/** The latest use of one passcode that this instance saw since its last flush. */
class Seen implements PendingUse {
  /** `true` once a flush of this entry failed: a second failure drops it. */
  retried = false
  constructor(
    readonly accountId: string,
    public at: number,
    public partner: string | null,
  ) {}
}

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
      out.push({ kind: 'account', accountId: seen.accountId, passcodeId, at: seen.at, partner: seen.partner })
    }
    for (const [accountId, uses] of this.users) {
      for (const [userId, seen] of uses) out.push({ kind: 'user', accountId, userId, at: seen.at, partner: seen.partner })
    }
    return out
  }
}

/** Options of the usage recorder (the service's `usage` option). */
export interface UsageRecorderOptions {
  readonly flushIntervalMs: number
}

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
  readonly #emit: ((event: EventInput) => void) | undefined

  constructor(store: PasscodeStore, options: UsageRecorderOptions, emit: ((event: EventInput) => void) | undefined) {
    this.#store = store
    this.#intervalMs = options.flushIntervalMs
    this.#emit = emit
  }

  /** Records that `principal` authenticated at `now`. The warm path calls this on every hit. */
  seen(principal: Principal, now: number): void {
    const seen = principal.kind === 'account' ? this.#pending.accounts.get(principal.passcodeId) : this.#user(principal.accountId, principal.userId)
    if (seen === undefined) {
      this.#add(principal, now, null)
    } else if (now > seen.at) {
      seen.at = now
    }
  }

  /** Records a successful `/v1/connect` for `partner` (normalised) at `now`. */
  seenConnect(principal: Principal, partner: string, now: number): void {
    const seen = principal.kind === 'account' ? this.#pending.accounts.get(principal.passcodeId) : this.#user(principal.accountId, principal.userId)
    if (seen === undefined) {
      this.#add(principal, now, partner)
    } else if (now >= seen.at) {
      seen.at = now
      seen.partner = partner
    }
  }

  /** The use of an account passcode not yet in the store, for views. */
  pendingAccount(passcodeId: string): PendingUse | undefined {
    return newest(this.#pending.accounts.get(passcodeId), this.#writing?.accounts.get(passcodeId))
  }

  /** The use of a user passcode not yet in the store, for views. */
  pendingUser(accountId: string, userId: string): PendingUse | undefined {
    return newest(this.#pending.users.get(accountId)?.get(userId), this.#writing?.users.get(accountId)?.get(userId))
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

  #add(principal: Principal, now: number, partner: string | null): void {
    if (this.#closed) return
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
  }

  #schedule(): void {
    this.#timer = setTimeout(() => {
      this.#timer = undefined
      this.flush().catch(() => undefined)
    }, this.#intervalMs)
    // A pending batch never keeps the process alive; close() flushes it on shutdown.
    this.#timer.unref?.()
  }

  async #write(): Promise<void> {
    const batch = this.#pending
    if (batch.accounts.size === 0 && batch.users.size === 0) return
    this.#pending = new Batch()
    this.#writing = batch
    try {
      await this.#store.recordUsage(batch.entries())
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
      } else if (seen.at > current.at) {
        current.at = seen.at
        current.partner = seen.partner ?? current.partner
      } else if (current.partner === null) {
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
