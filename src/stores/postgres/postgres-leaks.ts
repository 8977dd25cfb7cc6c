import type { AuditEntry } from '../../core/audit'
import type { Invalidation, LeaksPart } from '../../ports/passcode-store'
import { leakReportedEntry } from '../../core/audit-fields'
import { toLeakMark } from './rows'
import { one, run, type StoreContext } from './store-context'

/** The responses to leak reports and their notices (SPEC §5.42), each write with its record. */
export function postgresLeaks(context: StoreContext): LeaksPart {
  const { database, sql, audit, write } = context
  return {
    async reportLeak(report, entry) {
      // The response locks the chain head after it (…AndLock).
      const statement =
        report.kind === 'user' ? audit.sql.leakRevokeAndLock : report.action === 'delete' ? audit.sql.leakDeleteAndLock : audit.sql.leakDisableAndLock
      const { accountId, key } = report
      // A replay (the credential's mark is open) costs one indexed read, not a write transaction.
      if (report.kind === 'account' && report.action === 'disable') {
        if ((await database.query(sql.openLeakMark.text, sql.openLeakMark.values({ accountId, kind: report.kind, key }))).length > 0) return null
      }
      return write(entry, async (tx) => {
        const { hash, id, at, url, source, token, claimedUntil } = report
        const row = one(await run(tx)(statement.text, statement.values({ accountId, key, hash, id, at, url, source, token, claimedUntil })))
        if (row === null) return { result: null }
        const invalidation: Invalidation =
          report.kind === 'user' ? { type: 'user_passcode', accountId, userId: key } : { type: 'account_passcode', accountId, passcodeId: key }
        const mark = toLeakMark(row)
        // The mark holds the name of the row the statement acted on; `disabled_now` says the disable changed it.
        const record = (given: AuditEntry) => leakReportedEntry(given, mark.name, row.disabled_now === true)
        return { result: mark, change: { invalidation, locked: row, record } }
      })
    },

    async listLeakMarks(accountId) {
      return (await database.query(sql.listLeakMarks.text, sql.listLeakMarks.values({ accountId }))).map(toLeakMark)
    },

    async claimLeakNotices({ now, leaseMs, limit, token }) {
      const rows = await database.query(sql.claimLeakNotices.text, sql.claimLeakNotices.values({ now, limit, token, leaseMs }))
      return rows.map((row) => ({ ...toLeakMark(row), token })).sort((a, b) => a.reportedAt - b.reportedAt || (a.id < b.id ? -1 : 1))
    },

    async completeLeakNotice(claim, sentAt, entry) {
      const input = { id: claim.id, token: claim.token, sentAt }
      // With its audit record, only when the claim held: in one statement after the head read
      // just before, or the completion locking the chain head after it.
      const placed = await audit.appendWith(audit.sql.completeLeakNoticeAppending, input, entry)
      if (placed !== undefined) return placed.rows.length > 0
      const locking = audit.sql.completeLeakNoticeAndLock
      return write(entry, async (tx) => {
        const row = one(await run(tx)(locking.text, locking.values({ ...input, accountId: entry.entry.accountId })))
        return row === null ? { result: false } : { result: true, change: { locked: row } }
      })
    },

    async releaseLeakNotice(claim) {
      await database.query(sql.releaseLeakNotice.text, sql.releaseLeakNotice.values({ id: claim.id, token: claim.token }))
    },
  }
}
