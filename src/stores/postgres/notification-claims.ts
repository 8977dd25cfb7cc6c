import type { NotificationClaim, PasscodeStore } from '../../ports/passcode-store'
import type { Database } from './database-interface'
import type { PostgresAuditLog } from './postgres-audit-log'
import { toKind } from './rows'
import type { Statements } from './statements'

type ClaimMethods = Pick<PasscodeStore, 'claimNotifications' | 'completeNotification' | 'releaseNotification'>

/**
 * How many statements one claim runs at most. A statement passes over the candidates a
 * concurrent runner took after its snapshot (and fills the columns of those already
 * sent); the next statement's snapshot sees them, so each run makes progress, and the
 * claim goes on until its batch is full or a run claims every candidate it found. The
 * bound only matters under a storm of runners: a short batch then ends a pass early, and
 * the next pass (or a runner still going) takes the rest.
 */
const CLAIM_ATTEMPTS = 8

/**
 * The expiry notifier's claims. Each call is one statement (a completion with its audit
 * record too, placed after the head read just before; or, when another append moved the
 * head meanwhile, one transaction: audit-statements.ts), so a runner that dies mid-call
 * leaves nothing half done;
 * one that dies after claiming leaves a lease that lapses after `leaseMs`, when the next
 * pass takes the notification over.
 */
export function notificationClaims(database: Database, sql: Statements, audit: PostgresAuditLog): ClaimMethods {
  return {
    async claimNotifications(request) {
      const claims: NotificationClaim[] = []
      for (let attempt = 0; attempt < CLAIM_ATTEMPTS && claims.length < request.limit; attempt++) {
        const limit = request.limit - claims.length
        const rows = await database.query(
          sql.claimNotifications.text,
          sql.claimNotifications.values({ now: request.now, windowMs: request.windowMs, limit, token: request.token, leaseMs: request.leaseMs }),
        )
        for (const row of rows) {
          if (row.claimed !== true) continue
          claims.push({
            passcodeId: String(row.passcode_id),
            accountId: String(row.account_id),
            name: String(row.name),
            hint: String(row.hint),
            kind: toKind(row.kind),
            expiresAt: Number(row.expires_at),
            token: request.token,
          })
        }
        // Every candidate claimed: nothing else due was free when the statement ran.
        if (rows.every((row) => row.claimed === true)) break
      }
      return claims
    },

    async completeNotification(claim, sentAt, entry) {
      const input = { passcodeId: claim.passcodeId, kind: claim.kind, expiresAt: claim.expiresAt, token: claim.token, sentAt }
      // With its audit record, only when the claim held: in one statement after the head read
      // just before, or the completion locking the chain head after it.
      const placed = await audit.appendWith(audit.sql.completeNotificationAppending, input, entry)
      if (placed !== undefined) return placed.rows.length > 0
      const locking = audit.sql.completeNotificationAndLock
      return database.transaction(async (tx) => {
        const [row] = await (tx.prepared ?? tx.query)(locking.text, locking.values({ ...input, accountId: entry.entry.accountId }))
        if (row === undefined) return false
        await audit.appendLocked(tx, row, entry.entry, entry.signer)
        return true
      })
    },

    async releaseNotification(claim) {
      await database.query(
        sql.releaseNotification.text,
        sql.releaseNotification.values({ passcodeId: claim.passcodeId, kind: claim.kind, expiresAt: claim.expiresAt, token: claim.token }),
      )
    },
  }
}
