import { dueNotification } from '../../core/notifications'
import type { ClaimRequest, CompletePasscodeStore, NotificationClaim } from '../../ports/passcode-store'
import { notificationKey, type MemoryState } from './memory-state'
import type { MemoryAuditLog } from './memory-audit-log'

/** The memory store's expiry emails: their claims, completions and releases. */
export function memoryNotifications(
  state: MemoryState,
  audit: MemoryAuditLog,
): Pick<CompletePasscodeStore, 'claimNotifications' | 'completeNotification' | 'releaseNotification'> {
  const { passcodes, notifications } = state
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
        const state = notifications.get(key)
        if (state !== undefined && (state.sentAt !== null || state.claimedUntil > request.now)) continue
        notifications.set(key, { sentAt: null, token: request.token, claimedUntil: request.now + request.leaseMs })
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
      if (state?.token !== claim.token || state.sentAt !== null) return false
      const recorded = audit.prepare(entry)
      state.sentAt = sentAt
      state.token = null
      recorded()
      return true
    },

    async releaseNotification(claim) {
      const key = notificationKey(claim.passcodeId, claim.kind, claim.expiresAt)
      const state = notifications.get(key)
      if (state?.token === claim.token && state.sentAt === null) notifications.delete(key)
    },
  }
}
