import { policyChangedEntry } from '../../core/audit-fields'
import type { CompletePasscodeStore } from '../../ports/passcode-store'
import { compare, emailClaims, type MemoryState, type PolicyNoticeState } from './memory-state'
import type { MemoryAuditLog } from './memory-audit-log'

/** The memory store's accounts' policies (SPEC §5.52) and their emails. */
export function memoryPolicies(
  state: MemoryState,
  audit: MemoryAuditLog,
): Pick<CompletePasscodeStore, 'getAccountPolicy' | 'setAccountPolicy' | 'claimPolicyNotices' | 'completePolicyNotice' | 'releasePolicyNotice'> {
  const { policies, policyNotices } = state
  const claimed = emailClaims<PolicyNoticeState>((state) => state.notice.notifiedAt === null)
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
        .filter((state) => claimed.claimable(state, now))
        .sort((a, b) => a.notice.setAt - b.notice.setAt || compare(a.notice.accountId, b.notice.accountId))
        .slice(0, limit)
      return oldestFirst.map((state) => {
        claimed.take(state, token, now, leaseMs)
        return { ...state.notice, token }
      })
    },

    async completePolicyNotice(claim, sentAt, entry) {
      return claimed.complete(
        policyNotices.get(claim.accountId),
        claim.token,
        () => audit.prepare(entry),
        (sent) => {
          sent.notice = { ...sent.notice, notifiedAt: sentAt }
        },
      )
    },

    async releasePolicyNotice(claim) {
      claimed.release(policyNotices.get(claim.accountId), claim.token)
    },
  }
}
