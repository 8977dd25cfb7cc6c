import type { AccountPolicyPart } from '../../ports/account-policy-part'
import { policyChangedEntry } from '../../core/audit-fields'
import { accountLock } from './account-lock'
import { noticeParams, policyParams, policyStatements, toPolicy, toPolicyNoticeClaim } from './policy-statements'
import { one, type StoreContext } from './store-context'

/** An account's policy (SPEC §5.52), changed under the account's row lock (account-lock.ts) with its record and its email. */
export function postgresAccountPolicy(context: StoreContext): AccountPolicyPart {
  const { database, write } = context
  const policySql = policyStatements(context.schema)
  const holdAccount = accountLock(context.schema)
  return {
    async getAccountPolicy(accountId) {
      const row = one(await database.query(policySql.getPolicy, [accountId]))
      return row === null ? null : toPolicy(row)
    },

    setAccountPolicy(accountId, policy, notice, entry) {
      return write(entry, async (tx) => {
        await holdAccount(tx, accountId)
        const prior = one(await tx.query(policySql.priorPolicy, [accountId]))
        const before = prior === null ? null : toPolicy(prior)
        if (policy === null) await tx.query(policySql.deletePolicy, [accountId])
        else await tx.query(policySql.putPolicy, [accountId, ...policyParams(policy)])
        if (notice === null) await tx.query(policySql.dropUnsentNotice, [accountId])
        else await tx.query(policySql.putNotice, noticeParams(accountId, notice))
        return { result: before, change: { record: (given) => policyChangedEntry(given, before, policy) } }
      })
    },

    async claimPolicyNotices({ now, leaseMs, limit, token }) {
      const rows = await database.query(policySql.claimNotices, [now, limit, token, leaseMs])
      return rows
        .map((row) => toPolicyNoticeClaim(row, token))
        .sort((a, b) => a.setAt - b.setAt || (a.accountId < b.accountId ? -1 : a.accountId > b.accountId ? 1 : 0))
    },

    async completePolicyNotice(claim, sentAt, entry) {
      return write(entry, async (tx) => {
        const row = one(await tx.query(policySql.completeNotice, [claim.accountId, claim.token, sentAt]))
        return row === null ? { result: false } : { result: true, change: {} }
      })
    },

    async releasePolicyNotice(claim) {
      await database.query(policySql.releaseNotice, [claim.accountId, claim.token])
    },
  }
}
