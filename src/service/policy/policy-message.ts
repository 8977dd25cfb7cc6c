import type { AccountPolicy } from '../../core/policy'
import { escapeHtml } from '../escape-html'

/** The rules of a policy in words, for the email. */
export function policyWords(policy: AccountPolicy): string[] {
  return [
    ...(policy.maxLifetimeDays === null ? [] : [`a passcode lives at most ${policy.maxLifetimeDays} day${policy.maxLifetimeDays === 1 ? '' : 's'}`]),
    ...(policy.requireExpiry ? ['every account passcode needs an expiry (no "Forever")'] : []),
    ...(policy.requireDescription ? ['every account passcode needs a description'] : []),
  ]
}

/**
 * The email to an account's admins when a new policy finds passcodes that break it
 * (SPEC §5.52): how many, what the policy says, that they keep working. No name, hint
 * or value: the dashboard lists them.
 */
export function policyMessage(data: { readonly accountId: string; readonly count: number; readonly policy: AccountPolicy }): {
  subject: string
  text: string
  html: string
} {
  const many = data.count === 1 ? '1 passcode breaks' : `${data.count} passcodes break`
  const subject = `${many} the new passcode policy of account ${data.accountId}`.replace(/[\r\n]+/g, ' ')
  const lines = [
    `The passcode policy of account ${data.accountId} changed: ${policyWords(data.policy).join('; ') || 'no rule'}.`,
    `${many} it. They were made before the policy and keep working; new ones, and edits of their expiry or description, must follow it.`,
    'They are marked "Breaks policy" in Settings > Passcodes and Settings > Users: give each a shorter expiry, a description, or replace it.',
  ]
  const html = lines.map((line) => `<p>${escapeHtml(line)}</p>`).join('\n')
  return { subject, text: `${lines.join('\n\n')}\n`, html }
}
