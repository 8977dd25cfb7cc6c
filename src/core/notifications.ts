/** The two emails of SPEC §5.14. */
export type NotificationKind = 'expiring_soon' | 'expired'

/**
 * Why a notification was not sent on this pass. Every failed notification is given
 * back to the store and retried on the next pass.
 * - `ERR_MAILER_FAILED`: the mailer threw (an SMTP error, a refused connection…).
 * - `ERR_MAILER_TIMEOUT`: the mailer did not finish within `notifier.sendTimeoutMs`.
 * - `ERR_NO_RECIPIENTS`: `recipients(accountId)` returned no address.
 * - `ERR_RECIPIENTS_FAILED`: `recipients(accountId)` threw, timed out or returned something that is not an address.
 * - `ERR_TEMPLATE_FAILED`: a host template threw or returned no subject, text or HTML.
 */
export type NotificationFailureReason =
  'ERR_MAILER_FAILED' | 'ERR_MAILER_TIMEOUT' | 'ERR_NO_RECIPIENTS' | 'ERR_RECIPIENTS_FAILED' | 'ERR_TEMPLATE_FAILED'

/**
 * Which notification a passcode is due at `now`: `expired` once the expiry instant is
 * reached, `expiring_soon` inside the window before it, `null` otherwise and always
 * for `forever` passcodes. Every store claims by this one definition of "due". A
 * passcode first seen after it expired gets only the `expired` email.
 *
 * @param expiresAt - epoch ms, or `null` for `forever`
 * @param now - epoch ms
 * @param windowMs - the expiring-soon window (30 days in ms)
 * @example
 * ```ts
 * dueNotification(now + 10 * DAY_MS, now, 30 * DAY_MS) // 'expiring_soon'
 * ```
 */
export function dueNotification(expiresAt: number | null, now: number, windowMs: number): NotificationKind | null {
  if (expiresAt === null) return null
  if (now >= expiresAt) return 'expired'
  if (expiresAt - now <= windowMs) return 'expiring_soon'
  return null
}
