/**
 * One policy email a notifier pass handled (SPEC §5.52): the account and whether the
 * mailer took it.
 *
 * @example
 * ```ts
 * const report = await auth.notifyExpirations()
 * const unsent = (report.policies ?? []).filter((notice) => !notice.sent) // retried by the next pass
 * ```
 */
export interface PolicyNoticeResult {
  /** The account whose admins it is for. */
  readonly accountId: string
  /** How many passcodes broke the policy when it was set. */
  readonly count: number
  /** Whether the mailer accepted it; one not sent is retried by the next pass. */
  readonly sent: boolean
  /** Why it was not sent, as for a leak email; `null` when sent. */
  readonly reason: 'send_failed' | 'lease_too_short' | null
}
