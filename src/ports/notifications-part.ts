import type { NotificationKind } from '../core/notifications'
import type { AuditAppend } from './audit-log'

export type { NotificationKind }

/**
 * A notification a runner has claimed and must now send, then complete or release.
 * Deduplication is per passcode, kind and expiry instant, so an edit that moves the
 * expiry re-arms both notifications.
 */
export interface NotificationClaim {
  /** The passcode the notification is about. */
  readonly passcodeId: string
  /** Its account. */
  readonly accountId: string
  /** Its name, for the message. */
  readonly name: string
  /** Its hint, for the message (never the value). */
  readonly hint: string
  /** `expiring_soon` or `expired`. */
  readonly kind: NotificationKind
  /** The expiry instant the notification is for (UTC milliseconds); a new expiry re-arms it. */
  readonly expiresAt: number
  /** Opaque token that proves this runner holds the claim. */
  readonly token: string
}

/** What {@link NotificationsPart.claimNotifications} needs to decide what is due. */
export interface ClaimRequest {
  /** The current time, UTC milliseconds, from the service's clock. */
  readonly now: number
  /** The expiring-soon window in milliseconds (30 days). */
  readonly windowMs: number
  /** How long a claim stays with a runner before another may take it over. */
  readonly leaseMs: number
  /** At most this many claims in one call. */
  readonly limit: number
  /** A fresh random token for this call's claims. */
  readonly token: string
}

/**
 * The expiry notifier's claims (SPEC §5.38), a required part of {@link PasscodeStore}.
 *
 * @example
 * ```ts
 * const notifications: NotificationsPart = memoryStore()
 * const claims = await notifications.claimNotifications({ now: Date.now(), windowMs: 30 * 86_400_000, leaseMs: 300_000, limit: 50, token: crypto.randomUUID() })
 * ```
 */
export interface NotificationsPart {
  /**
   * Claims due notifications that are neither sent nor claimed by a live lease, of
   * passcodes that are not disabled (SPEC §5.38). Two concurrent callers never receive
   * the same claim, and a call answers fewer than `limit` claims only when nothing more
   * was due and free of a live lease (the notifier ends its pass on a short batch). Its cost follows what is due, not what is stored: a store reads
   * only passcodes whose email is not sent for their current expiry (the SQL store
   * through partial indexes, with `SKIP LOCKED`).
   */
  claimNotifications(request: ClaimRequest): Promise<NotificationClaim[]>
  /** Records that the claimed notification was sent. `false` when the claim was lost. */
  completeNotification(claim: NotificationClaim, sentAt: number, audit: AuditAppend): Promise<boolean>
  /** Gives a claim back after a failed send, so the next pass retries it. */
  releaseNotification(claim: NotificationClaim): Promise<void>
}
