// Settings > Activity tells each audit record (SPEC §5.40) as a sentence: "You (admin)
// rotated passcode “Billing” — the old value works until Jan 3, 2026, 2:00 AM (in 1
// hour)". A record holds no passcode value, hash or key; the sentence shows none of the
// chain's hashes either.
import { ACCEPTED_PASSCODES_LABELS } from '../../../core/labels'
import type { Child } from '../dom'
import { quoted } from '../format'
import { time } from '../components/time'
import type { AuditRecord } from '../wire'

/** The actions the filter offers, as people name them. */
export const ACTIONS: Readonly<Record<string, string>> = {
  'passcode.created': 'Passcode created',
  'passcode.updated': 'Passcode edited',
  'passcode.partners_changed': 'Partners changed',
  'passcode.rotated': 'Passcode rotated',
  'passcode.disabled': 'Passcode disabled',
  'passcode.enabled': 'Passcode enabled',
  'passcode.deleted': 'Passcode deleted',
  'passcode.leak_reported': 'Leak reported',
  'user_passcode.granted': 'User passcode granted',
  'user_passcode.reset': 'User passcode reset',
  'user_passcode.revoked': 'User passcode revoked',
  'user_passcode.revealed': 'User passcode viewed',
  'account.accepted_passcodes_changed': 'Accepted passcodes changed',
  'account.policy_changed': 'Passcode policy changed',
  'notification.sent': 'Notification sent',
  'notification.failed': 'Notification failed',
  'webhook.endpoint_created': 'Webhook endpoint added',
  'webhook.endpoint_updated': 'Webhook endpoint edited',
  'webhook.endpoint_deleted': 'Webhook endpoint deleted',
  'webhook.secret_rotated': 'Webhook secret rotated',
  'webhook.endpoint_disabled': 'Webhook endpoint disabled',
  'audit.pruned': 'Old records pruned',
}
const NOTICES: Readonly<Record<string, string>> = { expiring_soon: 'expires soon', expired: 'has expired' }

type Value = AuditRecord['changes'][string]['before']

/** A field's value as words; instants (epoch ms) are not passed here. */
function valueText(field: string, value: Value): string {
  if (value === null) return field === 'partners' ? 'any whitelisted partner' : 'none'
  if (Array.isArray(value)) return value.join(', ')
  if (field === 'expiry') return value === 'forever' ? 'never expires' : `${String(value)} days`
  if (field === 'acceptedPasscodes') return (ACCEPTED_PASSCODES_LABELS as Partial<Record<string, string>>)[String(value)] ?? String(value)
  return typeof value === 'string' ? quoted(value) : String(value)
}

/** A link that filters the page by a person (`actor`) or a passcode or user (`target`). */
export type FilterLink = (key: 'actor' | 'target', id: string, text: string) => Child

/** One record's sentence; `names` maps user IDs to the directory's names, `me` is the signed-in user. */
export function sentence(record: AuditRecord, names: ReadonlyMap<string, string>, me: string, link: FilterLink): Child[] {
  const { actor, target, changes } = record
  const person = (userId: string) => (userId === me ? 'You' : names.get(userId) || userId)
  const who: Child =
    actor.type === 'user'
      ? [link('actor', actor.userId, person(actor.userId)), ` (${actor.role})`]
      : record.action === 'passcode.leak_reported'
        ? 'The leak report'
        : record.action === 'webhook.endpoint_disabled'
          ? 'Webhook delivery'
          : 'The expiry notifier'
  const passcode: Child = target.type === 'passcode' ? ['passcode ', link('target', target.id, quoted(target.name))] : 'the account'
  const holder = target.type === 'user' ? link('target', target.id, person(target.id)) : ''
  const after = (field: string) => changes[field]?.after ?? null
  const edits = Object.entries(changes)
    .filter(([field]) => field !== 'expiresAt')
    .map(([field, { before, after: now }]) =>
      field === 'description' ? 'a new description' : `${field} ${valueText(field, before)} → ${valueText(field, now)}`,
    )
    .join('; ')

  switch (record.action) {
    case 'passcode.created': {
      const expiresAt = after('expiresAt')
      return [who, ' created ', passcode, typeof expiresAt === 'number' ? [', expiring ', time(expiresAt)] : ', which never expires']
    }
    case 'passcode.updated':
      return [who, ' edited ', passcode, edits ? `: ${edits}` : '']
    case 'passcode.partners_changed':
      return [
        who,
        ' changed the partners of ',
        passcode,
        ': ',
        valueText('partners', changes.partners?.before ?? null),
        ' → ',
        valueText('partners', after('partners')),
      ]
    case 'passcode.rotated': {
      const endsAt = after('previousValueEndsAt')
      return [
        who,
        ' rotated ',
        passcode,
        typeof endsAt === 'number' ? [' — the old value works until ', time(endsAt)] : ' — the old value stopped at once',
      ]
    }
    case 'passcode.disabled':
      return [who, ' disabled ', passcode, ': requests with it are refused']
    case 'passcode.enabled':
      return [who, ' enabled ', passcode, ' again']
    case 'passcode.deleted':
      return [who, ' deleted ', passcode]
    case 'passcode.leak_reported': {
      // SPEC §5.42: `action` says what was done (disabled, deleted or revoked), `url` and `source` where it was found.
      const [url, source, done] = [after('url'), after('source'), after('action')]
      const verb =
        done === 'deleted' || done === 'revoked' || done === 'disabled' ? ` ${done} ` : after('disabled') === true ? ' disabled ' : ' reported '
      return [
        who,
        verb,
        target.type === 'user' ? ['the user passcode of ', holder] : passcode,
        typeof url === 'string' && url !== '' ? `, found at ${url}` : '',
        typeof source === 'string' && source !== '' ? ` (reported by ${source})` : '',
      ]
    }
    case 'user_passcode.granted': {
      const validity = after('validity')
      return [
        who,
        ' granted a user passcode to ',
        holder,
        validity === 'infinite' ? ', with no expiry' : typeof validity === 'string' ? `, valid ${validity}` : '',
      ]
    }
    case 'user_passcode.reset':
      return [who, ' reset the user passcode of ', holder, ': the old value stopped at once']
    case 'user_passcode.revoked':
      return [who, ' revoked the user passcode of ', holder]
    case 'user_passcode.revealed':
      return actor.type === 'user' && target.type === 'user' && actor.userId === target.id
        ? [who, ' viewed their own user passcode']
        : [who, ' viewed the user passcode of ', holder]
    case 'account.accepted_passcodes_changed': {
      const { before, after: now } = changes.acceptedPasscodes ?? { before: null, after: null }
      return before === now
        ? [who, ' kept which passcodes the API accepts: ', valueText('acceptedPasscodes', now)]
        : [who, ' changed which passcodes the API accepts: ', valueText('acceptedPasscodes', before), ' → ', valueText('acceptedPasscodes', now)]
    }
    case 'account.policy_changed':
      // SPEC §5.52: the rules before and after are in the record's changes.
      return [who, " changed the account's passcode policy"]
    case 'notification.sent':
      return ['Notification sent: ', passcode, ` ${NOTICES[String(after('notification'))] ?? 'expires'}`]
    case 'notification.failed':
      return ['Notification about ', passcode, ' could not be sent', after('reason') ? ` (${String(after('reason'))})` : '']
    case 'webhook.endpoint_created':
    case 'webhook.endpoint_updated':
    case 'webhook.endpoint_deleted':
    case 'webhook.secret_rotated':
    case 'webhook.endpoint_disabled': {
      // The URL is shown as the service shows it (no query string, no credentials).
      const url = changes.url?.after ?? changes.url?.before ?? null
      const endpoint = `webhook endpoint ${url === null ? (target.type === 'webhook' ? target.id : '') : quoted(String(url))}`
      const verb = {
        'webhook.endpoint_created': ' added ',
        'webhook.endpoint_updated': ' edited ',
        'webhook.endpoint_deleted': ' deleted ',
        'webhook.secret_rotated': ' rotated the signing secret of ',
        'webhook.endpoint_disabled': ' disabled ',
      }[record.action]
      return [who, verb, endpoint, record.action === 'webhook.endpoint_disabled' ? ' after 5 days of failed deliveries' : '']
    }
    case 'audit.pruned': {
      // SPEC §5.44: the prune's own record, in the chain it shortened.
      const removed = after('removed')
      const through = after('through')
      return [`Pruning removed ${String(removed)} older record${removed === 1 ? '' : 's'}`, typeof through === 'number' ? ` (up to #${through})` : '']
    }
    default:
      return [who, ` did ${String(record.action)} on `, target.type === 'user' ? holder : passcode]
  }
}
