import { DAY_MS } from '../../core/time'
import type { UsageCount, UsageOutcome } from '../../ports/passcode-store'

/** The UTC day of `now`, in days since 1970-01-01. */
export function dayOf(now: number): number {
  return Math.floor(now / DAY_MS)
}

/** A day number as `YYYY-MM-DD`. */
export function dayText(day: number): string {
  return new Date(day * DAY_MS).toISOString().slice(0, 10)
}

/**
 * One credential's requests since the last flush, per UTC day, partner and outcome
 * (SPEC §5.41). The warm path's case, one more success today outside `/v1/connect`,
 * is a comparison and a field increment; every other count (another day, a partner,
 * a refusal) goes through a small Map keyed `day|outcome|partner`.
 */
export class DayCounts {
  /** The day `succeeded` counts for; -1 before the first success. */
  day = -1
  /** The UTC instants `day` starts and ends at: two comparisons, no division, per success. */
  dayStart = 0
  dayEnd = 0
  /** Successes on `day` outside `/v1/connect`. */
  succeeded = 0
  #other: Map<string, number> | undefined

  /** Counts one success outside `/v1/connect` at `now` (UTC ms). */
  success(now: number): void {
    if (now < this.dayEnd && now >= this.dayStart) {
      this.succeeded++
      return
    }
    this.#fold()
    const day = dayOf(now)
    this.day = day
    this.dayStart = day * DAY_MS
    this.dayEnd = this.dayStart + DAY_MS
    this.succeeded = 1
  }

  /** Adds `n` requests on `day` for `partner` (`''`: none) that ended with `outcome`. */
  add(day: number, partner: string, outcome: UsageOutcome, n = 1): void {
    const other = (this.#other ??= new Map<string, number>())
    const key = `${day}|${outcome}|${partner}`
    other.set(key, (other.get(key) ?? 0) + n)
  }

  /** Whether nothing is counted. */
  get empty(): boolean {
    return this.succeeded === 0 && (this.#other === undefined || this.#other.size === 0)
  }

  /** Adds everything counted here to `target` (a failed flush put back under newer counts). */
  addTo(target: DayCounts): void {
    this.#fold()
    if (this.#other === undefined) return
    for (const [key, n] of this.#other) {
      const { day, outcome, partner } = parseKey(key)
      target.add(day, partner, outcome, n)
    }
  }

  /** Appends the counts for the store, as rows of `kind` / `accountId` / `key`. */
  appendTo(out: UsageCount[], kind: 'account' | 'user', accountId: string, key: string): void {
    this.#fold()
    if (this.#other === undefined) return
    for (const [entry, n] of this.#other) {
      const { day, outcome, partner } = parseKey(entry)
      out.push({ kind, accountId, key, day: dayText(day), partner, outcome, n })
    }
  }

  /** Moves the fast counter into the Map. */
  #fold(): void {
    if (this.succeeded > 0) this.add(this.day, '', 'succeeded', this.succeeded)
    this.succeeded = 0
    this.day = -1
    this.dayEnd = 0
  }
}

function parseKey(key: string): { day: number; outcome: UsageOutcome; partner: string } {
  const first = key.indexOf('|')
  const second = key.indexOf('|', first + 1)
  return { day: Number(key.slice(0, first)), outcome: key.slice(first + 1, second) as UsageOutcome, partner: key.slice(second + 1) }
}
