import type { AccountPolicyPart } from '../../ports/account-policy-part'
import { policyChangedEntry } from '../../core/audit-fields'
import { accountLock } from './account-lock'
import { policyStatements, toPolicy, toPolicyNoticeClaim } from './policy-statements'
import { one, type StoreContext } from './store-context'

/** An account's policy (SPEC §5.52), changed under the account's row lock (account-lock.ts) with its record and its email. */
export function postgresAccountPolicy(context: StoreContext): AccountPolicyPart {
  const { database, write } = context
  const policySql = policyStatements(context.schema)
  const holdAccount = accountLock(context.schema)
  return {
    async getAccountPolicy(accountId) {
      const row = one(await database.query(policySql.getPolicy.text, policySql.getPolicy.values({ accountId })))
      return row === null ? null : toPolicy(row)
    },

    setAccountPolicy(accountId, policy, notice, entry) {
      return write(entry, async (tx) => {
        await holdAccount(tx, accountId)
        const { priorPolicy, deletePolicy, putPolicy, dropUnsentNotice, putNotice } = policySql
        const prior = one(await tx.query(priorPolicy.text, priorPolicy.values({ accountId })))
        const before = prior === null ? null : toPolicy(prior)
        if (policy === null) await tx.query(deletePolicy.text, deletePolicy.values({ accountId }))
        else await tx.query(putPolicy.text, putPolicy.values({ accountId, ...policy }))
        if (notice === null) await tx.query(dropUnsentNotice.text, dropUnsentNotice.values({ accountId }))
        else await tx.query(putNotice.text, putNotice.values({ accountId, ...notice, ...notice.policy }))
        return { result: before, change: { record: (given) => policyChangedEntry(given, before, policy) } }
      })
    },

    async claimPolicyNotices(request) {
      const rows = await database.query(policySql.claimNotices.text, policySql.claimNotices.values(request))
      return rows
        .map((row) => toPolicyNoticeClaim(row, request.token))
        .sort((a, b) => a.setAt - b.setAt || (a.accountId < b.accountId ? -1 : a.accountId > b.accountId ? 1 : 0))
    },

    async completePolicyNotice(claim, sentAt, entry) {
      return write(entry, async (tx) => {
        const row = one(await tx.query(policySql.completeNotice.text, policySql.completeNotice.values({ ...claim, sentAt })))
        return row === null ? { result: false } : { result: true, change: {} }
      })
    },

    async releasePolicyNotice(claim) {
      await database.query(policySql.releaseNotice.text, policySql.releaseNotice.values(claim))
    },
  }
}
