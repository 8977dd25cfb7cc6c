import { escapeHtml } from '../escape-html'

/** What a credits email says: names, hints and numbers, never a value. */
export interface CreditMessageData {
  /** `low`: the balance fell to the low line; `exhausted`: a request found none left. */
  readonly type: 'low' | 'exhausted'
  readonly kind: 'account' | 'user'
  readonly accountId: string
  /** The account passcode's name, or `user <id>` for a user passcode. */
  readonly name: string
  /** Prefix and last 4 characters; `null` for a user passcode. */
  readonly hint: string | null
  /** Credits the store held after the lease that crossed. */
  readonly balance: number
  /** The full amount (the refill amount, or the credits as set). */
  readonly full: number
  /** When the balance refills next; `null` without a refill. */
  readonly nextRefillAt: number | null
}

/**
 * The email to an account's admins when a passcode's credits run low or out (SPEC
 * §5.50): which passcode, what is left, when it refills, and what to do.
 *
 * @example
 * ```ts
 * creditMessage({ type: 'low', kind: 'account', accountId: 'acc_1', name: 'Acme', hint: 'psc_…x9Qz', balance: 90, full: 1000, nextRefillAt: null }).subject
 * // 'Passcode "Acme" is low on credits: 90 of 1000 left'
 * ```
 */
export function creditMessage(data: CreditMessageData): { subject: string; text: string; html: string } {
  const what = data.kind === 'account' ? `Passcode "${data.name}"` : `The passcode of ${data.name}`
  const subject = (
    data.type === 'low' ? `${what} is low on credits: ${data.balance} of ${data.full} left` : `${what} has run out of credits`
  ).replace(/[\r\n]+/g, ' ')
  const refill =
    data.nextRefillAt === null
      ? 'Its credits do not refill: requests with it are refused with 429 "Credits exhausted" once none is left, until an admin sets new credits.'
      : `Its credits refill to ${data.full} on ${new Date(data.nextRefillAt).toISOString().replace('.000Z', 'Z')}.`
  const lines = [
    `${what}${data.hint === null ? '' : ` (${data.hint})`} of account ${data.accountId} ${
      data.type === 'low' ? `has ${data.balance} of ${data.full} credits left.` : 'has no credits left: requests with it are refused with 429.'
    }`,
    refill,
    'To give it more: edit its credits in Settings > Passcodes (Settings > Users for a user passcode).',
  ]
  const html = lines.map((line) => `<p>${escapeHtml(line)}</p>`).join('\n')
  return { subject, text: `${lines.join('\n\n')}\n`, html }
}
