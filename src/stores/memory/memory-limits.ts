import type { AuditAppend } from '../../ports/audit-log'
import {
  grantCredits,
  grantSlots,
  currentCredits,
  returnCredits,
  returnSlots,
  type CreditCounter,
  type WindowCounter,
} from '../../core/limit-counters'
import { fullCredits, nextRefillAt, type RateLimitSetting, type StoredCredits } from '../../core/limits'
import type { CreditNotice, CreditNoticeClaim, LimitsLease, LimitsPart } from '../../ports/limits-part'

/** A credential's limits as the memory store holds them with its record. */
export interface MemoryLimitsSubject {
  readonly rateLimit: RateLimitSetting | null
  readonly credits: StoredCredits | null
  /** The account passcode's name and hint; `null` for a user passcode. */
  readonly name: string | null
  readonly hint: string | null
}

/** What the limits part needs of the memory store. */
export interface MemoryLimitsDeps {
  /** The credential's settings, or `undefined` when it does not exist. */
  readonly subject: (kind: 'account' | 'user', accountId: string, key: string) => MemoryLimitsSubject | undefined
  /** Every credential of the account with credits, with its key. */
  readonly withCredits: (accountId: string) => Iterable<{ readonly kind: 'account' | 'user'; readonly key: string; readonly credits: StoredCredits }>
  /** Commits `entry` to the audit chain with the change `apply` makes (after it), or throws before changing anything. */
  readonly audited: (entry: AuditAppend, apply: () => void) => void
  /** Told of each notice a lease makes, in the lease's step: the webhooks' outbox stores its event there (SPEC §5.53). */
  readonly crossed: (notice: CreditNotice) => void
}

/** A notice with its email's claim. */
interface NoticeState {
  notice: CreditNotice
  notifiedAt: number | null
  token: string | null
  claimedUntil: number
}

const keyOf = (kind: string, accountId: string, key: string): string => `${kind}\u0000${accountId}\u0000${key}`

/**
 * The memory store's limits part (SPEC §5.50): the counters of core/limit-counters.ts
 * per credential. Every call runs to completion without yielding, so a lease is atomic
 * as the SQL store's one statement is.
 *
 * @example
 * ```ts
 * const limits = memoryLimits({ subject, withCredits, audited, crossed })
 * const lease = await limits.leaseLimits(request)
 * ```
 */
export function memoryLimits(deps: MemoryLimitsDeps): LimitsPart {
  const credits = new Map<string, CreditCounter>()
  const windows = new Map<string, WindowCounter>()
  const notices = new Map<string, NoticeState>()

  return {
    async leaseLimits(request): Promise<LimitsLease | null> {
      const { kind, accountId, key, now } = request
      const subject = deps.subject(kind, accountId, key)
      if (subject === undefined) return null
      const id = keyOf(kind, accountId, key)
      const made: CreditNoticeClaim[] = []
      let creditPart: LimitsLease['credits'] = null
      if (subject.credits !== null) {
        const grant = grantCredits(subject.credits, credits.get(id) ?? null, now, request.credits, request.lowRatio)
        credits.set(id, grant.counter)
        const { epoch, period, balance } = grant.counter
        creditPart = { granted: grant.granted, balance, epoch, period }
        const crossed = [...(grant.crossedLow ? (['low'] as const) : []), ...(grant.crossedExhausted ? (['exhausted'] as const) : [])]
        for (const type of crossed) {
          const { refill } = subject.credits
          const notice: CreditNotice = {
            id: crypto.randomUUID(),
            kind,
            accountId,
            key,
            type,
            at: now,
            balance,
            full: fullCredits(subject.credits),
            nextRefillAt: refill === null ? null : nextRefillAt(refill.interval, now),
            name: subject.name,
            hint: subject.hint,
          }
          notices.set(notice.id, { notice, notifiedAt: null, token: request.notices.token, claimedUntil: request.notices.claimedUntil })
          deps.crossed(notice)
          made.push({ ...notice, token: request.notices.token })
        }
      }
      let slotPart: LimitsLease['slots'] = null
      if (subject.rateLimit !== null) {
        const grant = grantSlots(subject.rateLimit, windows.get(id) ?? null, now, request.slots)
        windows.set(id, grant.counter)
        slotPart = { granted: grant.granted, windowStart: grant.counter.start, windowMs: grant.counter.windowMs }
      }
      return { credits: creditPart, slots: slotPart, notices: made }
    },

    async returnLimits(returns, now) {
      for (const back of returns) {
        const subject = deps.subject(back.kind, back.accountId, back.key)
        if (subject === undefined) continue
        const id = keyOf(back.kind, back.accountId, back.key)
        if (back.credits > 0 && subject.credits !== null) {
          const counter = returnCredits(subject.credits, credits.get(id) ?? null, now, { epoch: back.epoch, period: back.period, n: back.credits })
          if (counter !== null) credits.set(id, counter)
        }
        if (back.slots > 0) {
          const counter = returnSlots(windows.get(id) ?? null, { start: back.windowStart, windowMs: back.windowMs, n: back.slots })
          if (counter !== null) windows.set(id, counter)
        }
      }
    },

    async listCreditBalances(accountId, now) {
      const out = []
      for (const { kind, key, credits: setting } of deps.withCredits(accountId)) {
        out.push({ kind, key, balance: currentCredits(setting, credits.get(keyOf(kind, accountId, key)) ?? null, now, 0).balance })
      }
      return out
    },

    async claimCreditNotices({ now, leaseMs, limit, token }) {
      const claims: CreditNoticeClaim[] = []
      const oldestFirst = [...notices.values()].sort((a, b) => a.notice.at - b.notice.at || (a.notice.id < b.notice.id ? -1 : 1))
      for (const state of oldestFirst) {
        if (claims.length >= limit) break
        if (state.notifiedAt !== null || state.claimedUntil > now) continue
        state.token = token
        state.claimedUntil = now + leaseMs
        claims.push({ ...state.notice, token })
      }
      return claims
    },

    async completeCreditNotice(claim, sentAt, entry) {
      const state = notices.get(claim.id)
      if (state?.token !== claim.token || state.notifiedAt !== null) return false
      deps.audited(entry, () => {
        state.notifiedAt = sentAt
        state.token = null
      })
      return true
    },

    async releaseCreditNotice(claim) {
      const state = notices.get(claim.id)
      if (state?.token === claim.token && state.notifiedAt === null) {
        state.token = null
        state.claimedUntil = 0
      }
    },
  }
}
