import { escapeHtml } from '../escape-html'
import type { NotificationKind } from '../../core/notifications'
import { DAY_MS } from '../../core/time'

/**
 * What a notification template may show. Deliberately no passcode value: the
 * service never has it after creation, and an email is no place for a secret.
 */
export interface NotificationMessageData {
  /** `expiring_soon` (30 days or fewer left) or `expired`. */
  readonly kind: NotificationKind
  /** The account of the passcode. */
  readonly accountId: string
  /** The passcode's ID. */
  readonly passcodeId: string
  /** The passcode's name as the admin typed it. Escape it before putting it in HTML. */
  readonly name: string
  /** Prefix and last 4 characters, for example `psc_…x9Qz`. */
  readonly hint: string
  /** The expiry instant. */
  readonly expiresAt: Date
  /** The expiry instant in ISO 8601, UTC: `2026-12-01T00:00:00.000Z`. */
  readonly expiresAtIso: string
  /** The expiry instant for people, in UTC: `Tuesday, 1 December 2026, 00:00 UTC`. */
  readonly expiresAtText: string
  /** Whole days left, rounded up; `0` once expired. */
  readonly daysLeft: number
}

/** A rendered notification: what a template returns. */
export interface NotificationContent {
  /** The subject line. */
  readonly subject: string
  /** The plain-text body. */
  readonly text: string
  /** The HTML body; escape every value put in it (`escapeHtml`). */
  readonly html: string
}

/** Renders one kind of notification email. */
export type NotificationTemplate = (data: NotificationMessageData) => NotificationContent

/** One template per notification kind; a host overrides either or both with the `templates` option. */
export type NotificationTemplates = Readonly<Record<NotificationKind, NotificationTemplate>>

export { escapeHtml } from '../escape-html'

const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday']
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December']

/**
 * Formats by hand rather than with `Intl`, so the text is the same on every Node
 * build (ICU data varies) and always says UTC.
 */
function humanUtc(date: Date): string {
  const pad = (value: number) => String(value).padStart(2, '0')
  return (
    `${WEEKDAYS[date.getUTCDay()]}, ${date.getUTCDate()} ${MONTHS[date.getUTCMonth()]} ${date.getUTCFullYear()}, ` +
    `${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())} UTC`
  )
}

/** Builds the template data for one notification at `now` (epoch ms). */
export function notificationMessageData(
  notification: { kind: NotificationKind; accountId: string; passcodeId: string; name: string; hint: string; expiresAt: number },
  now: number,
): NotificationMessageData {
  const expiresAt = new Date(notification.expiresAt)
  return {
    kind: notification.kind,
    accountId: notification.accountId,
    passcodeId: notification.passcodeId,
    name: notification.name,
    hint: notification.hint,
    expiresAt,
    expiresAtIso: expiresAt.toISOString(),
    expiresAtText: humanUtc(expiresAt),
    daysLeft: Math.max(0, Math.ceil((notification.expiresAt - now) / DAY_MS)),
  }
}

const expiringSoon: NotificationTemplate = (data) => {
  const days = data.daysLeft === 1 ? '1 day' : `${data.daysLeft} days`
  const name = escapeHtml(data.name)
  const hint = escapeHtml(data.hint)
  return {
    subject: `Passcode "${data.name}" expires in ${days}`,
    text:
      `The API passcode "${data.name}" (${data.hint}) of account ${data.accountId} expires on ` +
      `${data.expiresAtText} (${data.expiresAtIso}).\n\n` +
      'Create a new passcode and give it to the partner that uses this one before then, ' +
      'or edit this passcode to extend it. API calls with it will fail once it has expired.\n',
    html:
      `<p>The API passcode <strong>${name}</strong> (<code>${hint}</code>) of account ${escapeHtml(data.accountId)} expires on ` +
      `<time datetime="${data.expiresAtIso}">${data.expiresAtText}</time>.</p>` +
      '<p>Create a new passcode and give it to the partner that uses this one before then, ' +
      'or edit this passcode to extend it. API calls with it will fail once it has expired.</p>',
  }
}

const expired: NotificationTemplate = (data) => {
  const name = escapeHtml(data.name)
  const hint = escapeHtml(data.hint)
  return {
    subject: `Passcode "${data.name}" has expired`,
    text:
      `The API passcode "${data.name}" (${data.hint}) of account ${data.accountId} expired on ` +
      `${data.expiresAtText} (${data.expiresAtIso}).\n\n` +
      'API calls with it now fail. Create a new passcode for the partner that used it, and delete this one.\n',
    html:
      `<p>The API passcode <strong>${name}</strong> (<code>${hint}</code>) of account ${escapeHtml(data.accountId)} expired on ` +
      `<time datetime="${data.expiresAtIso}">${data.expiresAtText}</time>.</p>` +
      '<p>API calls with it now fail. Create a new passcode for the partner that used it, and delete this one.</p>',
  }
}

/**
 * The built-in templates: plain English, the passcode's name, hint and expiry date in
 * UTC (ISO and human forms), never its value. Pass your own through the
 * `templates` option of `createPasscodeAuth`; a kind you leave out keeps its default.
 *
 * @example
 * ```ts
 * const auth = createPasscodeAuth({
 *   store, mailer, recipients,
 *   templates: {
 *     expired: (data) => ({
 *       ...defaultNotificationTemplates.expired(data),
 *       subject: `[Acme] ${data.name} expired`,
 *     }),
 *   },
 * })
 * ```
 */
export const defaultNotificationTemplates: NotificationTemplates = Object.freeze({
  expiring_soon: expiringSoon,
  expired,
})
