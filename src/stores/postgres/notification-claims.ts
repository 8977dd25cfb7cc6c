import type { NotificationClaim, PasscodeStore } from '../../ports/passcode-store'
import type { AuditStatements } from './audit-statements'
import type { Database } from './database-interface'
import { appendParams } from './postgres-audit-log'
import { toKind } from './rows'
import type { Statements } from './statements'

type ClaimMethods = Pick<PasscodeStore, 'claimNotifications' | 'completeNotification' | 'releaseNotification'>

const claimKey = (claim: NotificationClaim): unknown[] => [claim.passcodeId, claim.kind, claim.expiresAt, claim.token]

/**
 * The expiry notifier's claims. Each call is one statement (a completion with its audit
 * record too: `completeNotificationAndAppend`, audit-statements.ts), so a runner that
 * dies mid-call leaves nothing half done; one that dies after claiming leaves a lease
 * that lapses after `leaseMs`, when the next pass takes the notification over.
 */
export function notificationClaims(database: Database, sql: Statements, audit: AuditStatements): ClaimMethods {
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
      // With its audit record: both in one statement, the record only when the claim held.
      const rows = await (database.prepared ?? database.query)(audit.completeNotificationAndAppend, [
        ...claimKey(claim),
        sentAt,
        ...appendParams(entry),
      ])
      return rows.length > 0
    },

    async releaseNotification(claim) {
      await database.query(sql.releaseNotification, claimKey(claim))
    },
  }
}
