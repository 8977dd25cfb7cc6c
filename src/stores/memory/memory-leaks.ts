import { leakReportedEntry } from '../../core/audit-fields'
import type { CompletePasscodeStore, LeakMark, LeakNoticeClaim } from '../../ports/passcode-store'
import { compare, emailClaims, type LeakMarkState, type MemoryState, userKey } from './memory-state'
import type { MemoryAuditLog } from './memory-audit-log'

/** The memory store's leak reports (SPEC §5.42): the response, the marks and their emails. */
export function memoryLeaks(
  state: MemoryState,
  audit: MemoryAuditLog,
): Pick<CompletePasscodeStore, 'reportLeak' | 'listLeakMarks' | 'claimLeakNotices' | 'completeLeakNotice' | 'releaseLeakNotice'> {
  const { passcodes, byHash, byAccount, users, notifications, leaks, publish, ownPasscode, openLeak } = state
  const claimed = emailClaims<LeakMarkState>((state) => state.mark.notifiedAt === null)
  return {
    async reportLeak(report, entry) {
      const { accountId, kind, key, at } = report
      if (openLeak(accountId, kind, key) !== undefined) return null
      let name: string | null = null
      let hint: string | null = null
      let action: LeakMark['action']
      let open = true
      if (kind === 'account') {
        const current = ownPasscode(accountId, key)
        if (current === undefined || (current.hash !== report.hash && current.previousHash !== report.hash)) return null
        ;({ name, hint } = current)
        const disabledNow = report.action === 'disable' && current.disabledAt == null
        const recorded = audit.prepare(entry, (given) => leakReportedEntry(given, name, disabledNow))
        if (report.action === 'delete') {
          passcodes.delete(key)
          byHash.delete(current.hash)
          if (current.previousHash !== null) byHash.delete(current.previousHash)
          byAccount.get(accountId)?.delete(key)
          for (const notification of notifications.keys()) {
            if (notification.startsWith(`${key}\u0000`)) notifications.delete(notification)
          }
          action = 'deleted'
          open = false // Nothing is left to mark: the email still goes.
        } else {
          // SPEC §5.45: the current value, if it is the one reported, stays leaked through an enable.
          const valueLeaked = current.valueLeaked === true || current.hash === report.hash
          passcodes.set(key, { ...current, ...(valueLeaked && { valueLeaked }), ...(disabledNow && { disabledAt: at, updatedAt: at }) })
          action = 'disabled'
        }
        recorded()
        publish({ type: 'account_passcode', accountId, passcodeId: key })
      } else {
        const userKeyed = userKey(accountId, key)
        const current = users.get(userKeyed)
        if (current?.revokedAt !== null || current.hash !== report.hash) return null
        const recorded = audit.prepare(entry, (given) => leakReportedEntry(given, null, false))
        users.set(userKeyed, { ...current, revokedAt: at })
        action = 'revoked'
        recorded()
        publish({ type: 'user_passcode', accountId, userId: key })
      }
      const mark: LeakMark = {
        id: report.id,
        kind,
        accountId,
        key,
        reportedAt: at,
        url: report.url,
        source: report.source,
        action,
        name,
        hint,
        notifiedAt: null,
      }
      leaks.set(mark.id, { mark, open, token: report.token, claimedUntil: report.claimedUntil })
      return { ...mark }
    },

    async listLeakMarks(accountId) {
      const out: LeakMark[] = []
      for (const state of leaks.values()) if (state.open && state.mark.accountId === accountId) out.push({ ...state.mark })
      return out.sort((a, b) => a.reportedAt - b.reportedAt || compare(a.id, b.id))
    },

    async claimLeakNotices({ now, leaseMs, limit, token }) {
      const claims: LeakNoticeClaim[] = []
      const oldestFirst = [...leaks.values()].sort((a, b) => a.mark.reportedAt - b.mark.reportedAt || compare(a.mark.id, b.mark.id))
      for (const state of oldestFirst) {
        if (claims.length >= limit) break
        if (!claimed.claimable(state, now)) continue
        claimed.take(state, token, now, leaseMs)
        claims.push({ ...state.mark, token })
      }
      return claims
    },

    async completeLeakNotice(claim, sentAt, entry) {
      return claimed.complete(
        leaks.get(claim.id),
        claim.token,
        () => audit.prepare(entry),
        (sent) => {
          sent.mark = { ...sent.mark, notifiedAt: sentAt }
        },
      )
    },

    async releaseLeakNotice(claim) {
      claimed.release(leaks.get(claim.id), claim.token)
    },
  }
}
