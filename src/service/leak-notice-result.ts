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
  /** Whether the mailer accepted it; a failed one is retried by the next pass. */
  readonly sent: boolean
}
