import { policyChangedEntry } from '../../core/audit-fields'
import type { CompletePasscodeStore } from '../../ports/passcode-store'
import { compare, type MemoryState } from './memory-state'
import type { MemoryAuditLog } from './memory-audit-log'

/** The memory store's accounts' policies (SPEC §5.52) and their emails. */
export function memoryPolicies(
  state: MemoryState,
  audit: MemoryAuditLog,
): Pick<CompletePasscodeStore, 'getAccountPolicy' | 'setAccountPolicy' | 'claimPolicyNotices' | 'completePolicyNotice' | 'releasePolicyNotice'> {
  const { policies, policyNotices } = state
  return {
    async getAccountPolicy(accountId) {
      const policy = policies.get(accountId)
      return policy === undefined ? null : { ...policy }
    },

    async setAccountPolicy(accountId, policy, notice, entry) {
      const before = policies.get(accountId) ?? null
      const recorded = audit.prepare(entry, (given) => policyChangedEntry(given, before, policy))
      if (policy === null) policies.delete(accountId)
      else policies.set(accountId, Object.freeze({ ...policy }))
      if (notice === null) {
        // An email not sent yet counted against a policy no longer set.
        if (policyNotices.get(accountId)?.notice.notifiedAt === null) policyNotices.delete(accountId)
      } else {
        policyNotices.set(accountId, {
          notice: { accountId, policy: Object.freeze({ ...notice.policy }), count: notice.count, setAt: notice.setAt, notifiedAt: null },
          token: notice.token,
          claimedUntil: notice.claimedUntil,
        })
      }
      recorded()
      return before === null ? null : { ...before }
    },

    async claimPolicyNotices({ now, leaseMs, limit, token }) {
      const oldestFirst = [...policyNotices.values()]
        .filter((state) => state.notice.notifiedAt === null && state.claimedUntil <= now)
        .sort((a, b) => a.notice.setAt - b.notice.setAt || compare(a.notice.accountId, b.notice.accountId))
        .slice(0, limit)
      return oldestFirst.map((state) => {
        state.token = token
        state.claimedUntil = now + leaseMs
        return { ...state.notice, token }
      })
    },

    async completePolicyNotice(claim, sentAt, entry) {
      const state = policyNotices.get(claim.accountId)
      if (state?.token !== claim.token || state.notice.notifiedAt !== null) return false
      const recorded = audit.prepare(entry)
      state.notice = { ...state.notice, notifiedAt: sentAt }
      state.token = null
      recorded()
      return true
    },

    async releasePolicyNotice(claim) {
      const state = policyNotices.get(claim.accountId)
      if (state?.token === claim.token && state.notice.notifiedAt === null) {
        state.token = null
        state.claimedUntil = 0
      }
    },
  }
}
