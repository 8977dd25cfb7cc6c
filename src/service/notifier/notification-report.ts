import type { PolicyNoticeResult } from '../policy-notice-result'
import type { NotificationFailureReason, NotificationKind } from '../../core/notifications'
import type { CreditNoticeResult } from '../credit-notice-result'
import type { LeakNoticeResult } from '../leak-notice-result'

export type { NotificationFailureReason }

/**
 * Why a claimed notification was let go without trying to send it.
 * - `passcode_deleted`: the passcode was deleted after it was claimed.
 * - `expiry_changed`: an edit moved the expiry; the new expiry has its own notifications.
 * - `passcode_disabled`: the passcode was disabled after it was claimed (SPEC §5.38); it
 *   gets no email while disabled, and is due again once enabled.
 * - `lease_too_short`: too little of the claim's lease was left to send safely; the
 *   next pass takes it.
 */
export type NotificationSkipReason = 'passcode_deleted' | 'expiry_changed' | 'passcode_disabled' | 'lease_too_short'

/** The notification a report line is about. */
export interface NotificationReportItem {
  /** The account of the passcode. */
  readonly accountId: string
  /** The passcode the notification is about. */
  readonly passcodeId: string
  /** The passcode's name when the pass handled it. */
  readonly name: string
  /** `expiring_soon` or `expired`. */
  readonly kind: NotificationKind
  /** The expiry instant the notification is about. */
  readonly expiresAt: Date
}

/** A notification the mailer accepted. */
export interface SentNotification extends NotificationReportItem {
  /** The addresses it went to. */
  readonly to: readonly string[]
  /**
   * Whether the store recorded the send. `false` only when the claim was lost (its lease
   * ran out and another runner took it) or the store failed after the mailer succeeded;
   * the email may then be sent once more (at least once beats never).
   */
  readonly recorded: boolean
}

/** A notification that could not be sent; the next pass retries it. */
export interface FailedNotification extends NotificationReportItem {
  /** Why. */
  readonly reason: NotificationFailureReason
  /** What went wrong, without secrets: no passcode value, no mailer credentials. */
  readonly message: string
}

/** A notification let go without a send attempt. */
export interface SkippedNotification extends NotificationReportItem {
  /** Why. */
  readonly reason: NotificationSkipReason
}

/**
 * What one `notifyExpirations()` pass did. Notifications that another runner holds,
 * or that were sent before, do not appear.
 */
export interface NotificationReport {
  /** When the pass started, by the injected clock. */
  readonly startedAt: Date
  /** Notifications sent in this pass. */
  readonly sent: readonly SentNotification[]
  /** Notifications whose send failed; retried on the next pass. */
  readonly failed: readonly FailedNotification[]
  /** Claimed notifications that no longer applied, not sent. */
  readonly skipped: readonly SkippedNotification[]
  /**
   * Leak emails (SPEC §5.42) whose first send, by the report, failed, and that this pass
   * sent or tried again; absent when there were none.
   */
  readonly leaks?: readonly LeakNoticeResult[]
  /** The policy emails (SPEC §5.52) this pass sent or tried, when there were any. */
  readonly policies?: readonly PolicyNoticeResult[]
  /**
   * Credit emails (SPEC §5.50: credits low or exhausted) whose first send, by the
   * instance whose lease crossed, failed, and that this pass sent or tried again;
   * absent when there were none.
   */
  readonly credits?: readonly CreditNoticeResult[]
}
