/**
 * One leak email a notifier pass handled (SPEC §5.42): its mark and whether the mailer took it.
 *
 * @example
 * ```ts
 * const report = await auth.notifyExpirations()
 * const unsent = (report.leaks ?? []).filter((leak) => !leak.sent) // retried by the next pass
 * ```
 */
export interface LeakNoticeResult {
  /** The account whose admins it is for. */
  readonly accountId: string
  /** `account` for an account passcode, `user` for a user passcode. */
  readonly kind: 'account' | 'user'
  /** The passcode id, or the user id of a user passcode. */
  readonly key: string
  /** When the leak was reported. */
  readonly reportedAt: Date
  /** Whether the mailer accepted it; one not sent is retried by the next pass. */
  readonly sent: boolean
  /**
   * Why it was not sent: `send_failed` (no mailer or recipients, or the mailer failed or
   * timed out) or `lease_too_short` (too little of the claim's lease was left to start a
   * send, as for expiry emails); `null` when sent.
   */
  readonly reason: 'send_failed' | 'lease_too_short' | null
}
