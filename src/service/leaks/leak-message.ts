import { DELETED_LEAKED_PASSCODE_ADVICE, LEAKED_PASSCODE_ADVICE, LEAKED_USER_PASSCODE_ADVICE } from '../../core/labels'
import { escapeHtml } from '../escape-html'

/** What the leak email says: names, hints and places, never the value. */
export interface LeakMessageData {
  /** `account` for an account passcode, `user` for a user passcode. */
  readonly kind: 'account' | 'user'
  /** The account that owns the credential. */
  readonly accountId: string
  /** The account passcode's name, or `user <id>` for a user passcode. */
  readonly name: string
  /** Prefix and last 4 characters, for example `psc_…x9Qz`; `null` for a user passcode (none is stored). */
  readonly hint: string | null
  /** Who found it: the scanner's or the reporter's `source`. */
  readonly source: string
  /** Where it was found, when the report says. */
  readonly url: string | null
  /** What was done to it. */
  readonly action: 'disabled' | 'deleted' | 'revoked'
}

const DONE: Record<LeakMessageData['action'], string> = {
  disabled: 'It has been disabled: it authenticates nowhere until an admin enables it again. Its name, partners and expiry are kept.',
  deleted: 'It has been deleted: it authenticates nowhere.',
  revoked: 'It has been revoked: it authenticates nowhere.',
}

/** What to do, where: the advice the dashboard's banner and docs/leaks.md give too (core/labels.ts). */
function whatToDo(data: LeakMessageData): string {
  if (data.kind === 'user') return `What to do, in Settings > Users: ${LEAKED_USER_PASSCODE_ADVICE}`
  return `What to do, in Settings > Passcodes: ${data.action === 'deleted' ? DELETED_LEAKED_PASSCODE_ADVICE : LEAKED_PASSCODE_ADVICE}`
}

/** The email to an account's admins after a confirmed leak (SPEC §5.42). */
export function leakMessage(data: LeakMessageData): { subject: string; text: string; html: string } {
  const what = data.kind === 'account' ? `Passcode "${data.name}"` : `The passcode of ${data.name}`
  const verb = { disabled: 'disabled', deleted: 'deleted', revoked: 'revoked' }[data.action]
  const subject = `${what} was found exposed and has been ${verb}`.replace(/[\r\n]+/g, ' ')
  const lines = [
    `${what}${data.hint === null ? '' : ` (${data.hint})`} of account ${data.accountId} was reported as exposed.`,
    `Found by: ${data.source}`,
    `Where: ${data.url ?? 'not given'}`,
    DONE[data.action],
    whatToDo(data),
  ]
  const html = lines.map((line) => `<p>${escapeHtml(line)}</p>`).join('\n')
  return { subject, text: `${lines.join('\n\n')}\n`, html }
}
