import type { NotificationClaim, PasscodeStore } from '../../ports/passcode-store'
import type { AuditEntry } from '../../core/audit'
import type { Database, Queryable } from './database-interface'
import { toKind } from './rows'
import type { Statements } from './statements'

type ClaimMethods = Pick<PasscodeStore, 'claimNotifications' | 'completeNotification' | 'releaseNotification'>

const claimKey = (claim: NotificationClaim): unknown[] => [claim.passcodeId, claim.kind, claim.expiresAt, claim.token]

/**
 * The expiry notifier's claims. Each call is one statement (a completion with its audit
 * record: one transaction), so a runner that dies mid-call leaves nothing half done; one that dies after claiming leaves a lease that
 * lapses after `leaseMs`, when the next pass takes the notification over.
 */
export function notificationClaims(
  database: Database,
  sql: Statements,
  appendAudit: (tx: Queryable, entry: AuditEntry) => Promise<unknown>,
): ClaimMethods {
  return {
    async claimNotifications(request) {
      const rows = await database.query(sql.claimNotifications, [request.now, request.windowMs, request.limit, request.token, request.leaseMs])
      return rows.map((row) => ({
        passcodeId: String(row.passcode_id),
        accountId: String(row.account_id),
        name: String(row.name),
        hint: String(row.hint),
        kind: toKind(row.kind),
        expiresAt: Number(row.expires_at),
        token: request.token,
      }))
    },

    async completeNotification(claim, sentAt, entry) {
      if (entry === undefined) return (await database.query(sql.completeNotification, [...claimKey(claim), sentAt])).length > 0
      // With its audit record: both in one transaction, the record only when the claim held.
      return database.transaction(async (tx) => {
        const rows = await tx.query(sql.completeNotification, [...claimKey(claim), sentAt])
        if (rows.length > 0) await appendAudit(tx, entry)
        return rows.length > 0
      })
    },

    async releaseNotification(claim) {
      await database.query(sql.releaseNotification, claimKey(claim))
    },
  }
}
