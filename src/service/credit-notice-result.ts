/**
 * One credit email a notifier pass handled (SPEC §5.50): its notice and whether the mailer took it.
 *
 * @example
 * ```ts
 * const report = await auth.notifyExpirations()
 * const unsent = (report.credits ?? []).filter((notice) => !notice.sent) // retried by the next pass
 * ```
 */
export interface CreditNoticeResult {
  /** The account whose admins it is for. */
  readonly accountId: string
  /** `account` for an account passcode, `user` for a user passcode. */
  readonly kind: 'account' | 'user'
  /** The passcode id, or the user id of a user passcode. */
  readonly key: string
  /** `low` or `exhausted`. */
  readonly type: 'low' | 'exhausted'
  /** When the credits crossed the line. */
  readonly at: Date
  /** Whether the mailer accepted it; one not sent is retried by the next pass. */
  readonly sent: boolean
  /** Why it was not sent, as for leak emails; `null` when sent. */
  readonly reason: 'send_failed' | 'lease_too_short' | null
}
