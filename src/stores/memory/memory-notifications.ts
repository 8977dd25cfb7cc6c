import { dueNotification } from '../../core/notifications'
import type { ClaimRequest, CompletePasscodeStore, NotificationClaim } from '../../ports/passcode-store'
import { emailClaims, notificationKey, type MemoryState, type NotificationState } from './memory-state'
import type { MemoryAuditLog } from './memory-audit-log'

/** The memory store's expiry emails: their claims, completions and releases. */
export function memoryNotifications(
  state: MemoryState,
  audit: MemoryAuditLog,
): Pick<CompletePasscodeStore, 'claimNotifications' | 'completeNotification' | 'releaseNotification'> {
  const { passcodes, notifications } = state
  const claimed = emailClaims<NotificationState>((state) => state.sentAt === null)
  return {
    async claimNotifications(request: ClaimRequest): Promise<NotificationClaim[]> {
      const claims: NotificationClaim[] = []
      for (const record of passcodes.values()) {
        if (claims.length >= request.limit) break
        if (record.disabledAt != null) continue
        const kind = dueNotification(record.expiresAt, request.now, request.windowMs)
        if (kind === null) continue
        const expiresAt = record.expiresAt!
        const key = notificationKey(record.id, kind, expiresAt)
        const state = notifications.get(key) ?? { sentAt: null, token: null, claimedUntil: 0 }
        if (!claimed.claimable(state, request.now)) continue
        claimed.take(state, request.token, request.now, request.leaseMs)
        notifications.set(key, state)
        claims.push({
          passcodeId: record.id,
          accountId: record.accountId,
          name: record.name,
          hint: record.hint,
          kind,
          expiresAt,
          token: request.token,
        })
      }
      return claims
    },

    async completeNotification(claim, sentAt, entry) {
      const state = notifications.get(notificationKey(claim.passcodeId, claim.kind, claim.expiresAt))
      return claimed.complete(
        state,
        claim.token,
        () => audit.prepare(entry),
        (sent) => {
          sent.sentAt = sentAt
        },
      )
    },

    async releaseNotification(claim) {
      claimed.release(notifications.get(notificationKey(claim.passcodeId, claim.kind, claim.expiresAt)), claim.token)
    },
  }
}
