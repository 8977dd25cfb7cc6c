// What a request with a passcode would meet (SPEC §5.43), said in its row: its status,
// or "Not accepted" when the account's setting refuses its kind.
import { context } from '../context'
import { h, type Child } from '../dom'
import type { Accepted, Status } from '../wire'
import { STATUS_LABELS } from '../../../core/labels'

/** Whether the account's setting lets a passcode of this kind authenticate. */
export function accepts(accepted: Accepted, kind: 'account' | 'user'): boolean {
  return accepted === 'both' || accepted === kind
}

/** Whether a passcode of this status would authenticate, the account's setting aside. */
export function works(status: Status): boolean {
  return status === 'active' || status === 'expiring_soon'
}

/** A status as a badge, in words; "None" for a user without a passcode. */
export function badge(status: Status | null): HTMLElement {
  return h('span', { class: `badge ${status ?? 'none'}` }, status === null ? 'None' : STATUS_LABELS[status])
}

/**
 * The status of a passcode the account does not accept: what a request meets (400),
 * with the way to the setting for those who may change it (admins) and whom to ask for
 * everyone else.
 */
function notAccepted(kind: 'account' | 'user'): Child {
  const { base, canManageUsers } = context()
  return [
    h('span', { class: 'badge not_accepted' }, 'Not accepted'),
    h(
      'p',
      { class: 'why' },
      `This account accepts only ${kind === 'account' ? 'user' : 'account'} passcodes: requests with this one are refused. `,
      canManageUsers
        ? h('a', { href: `${base}/users#accepted-passcodes` }, 'Change which passcodes the API accepts')
        : 'An admin of this account can change which passcodes the API accepts.',
    ),
  ]
}

/** The badge a request would meet: "Not accepted" before the passcode's own status. */
export function statusOf(kind: 'account' | 'user', status: Status, accepted: Accepted): Child {
  return works(status) && !accepts(accepted, kind) ? notAccepted(kind) : badge(status)
}
