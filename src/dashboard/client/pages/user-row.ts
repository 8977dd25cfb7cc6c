// One row of Settings > Users: the person, their passcode's status (what a request would
// meet) with its scopes, address ranges, rate limit and credits when it has any,
// validity, expiry, last use with its usage chart on demand, and for admins
// Reset Passcode and Revoke Passcode, or Grant Passcode (in place of the row).
import { api, segment } from '../api'
import { context } from '../context'
import { policyMark } from '../components/policy-mark'
import { h, hidden } from '../dom'
import { rowFocus, type RowFocus } from '../focus'
import { actionForm, confirmThen, openRowForm } from '../components/action-form'
import { readValidity, validityFieldset } from '../components/fields'
import { leakMark } from '../components/leak-notice'
import { badge, statusOf } from '../components/status'
import { restrictions } from '../components/restriction-cells'
import { cell } from '../components/table'
import { time } from '../components/time'
import { unusedFor } from '../components/usage-chart'
import { underRow, usageButton } from '../components/usage-panel'
import { restrictionFields } from '../components/restrictions'
import type { Accepted, DeclaredScope, UsageAnswer, User } from '../wire'

/** The Users page as its rows see it. */
export interface UsersView {
  readonly accepted: () => Accepted
  readonly columns: number
  /** The host's declared scopes (SPEC §5.48), for the grant forms; empty when it declares none. */
  readonly scopes: readonly DeclaredScope[]
  /** Loads the list again, then focuses `focus`'s row and says `message`. */
  reload(focus?: RowFocus, message?: string): Promise<void>
}

function grantRow(view: UsersView, user: User, row: HTMLTableRowElement): void {
  const who = user.name || user.id
  const back = rowFocus(row)
  const restrictions = restrictionFields({ id: `grant-${user.id}`, declared: view.scopes, metadata: false })
  const form = actionForm({ class: 'fields' }, [validityFieldset(`grant-${user.id}`), restrictions.element], {
    submit: 'Grant Passcode',
    onCancel: () => view.reload(back),
    action: async () => {
      await api('PUT', `/users/${segment(user.id)}/passcode`, { validity: readValidity(form), ...restrictions.read(form) })
      await view.reload(back, 'Passcode granted.')
    },
  })
  openRowForm(row, view.columns, `Grant a passcode to ${who}`, form, form.querySelector('input')!)
}

/** Reset and Revoke for a live passcode; Grant for none, a revoked or an expired one. */
function actions(view: UsersView, user: User, row: HTMLTableRowElement, live: boolean): HTMLElement {
  const who = user.name || user.id
  const path = `/users/${segment(user.id)}/passcode`
  const button = (text: string, control: string, onclick: () => unknown) =>
    h('button', { type: 'button', 'data-control': control, onclick }, text, hidden(` for ${who}`))
  if (!live)
    return h(
      'div',
      { class: 'actions row-actions' },
      button('Grant Passcode', 'grant', () => grantRow(view, user, row)),
    )
  return h(
    'div',
    { class: 'actions row-actions' },
    button('Reset Passcode', 'reset', () =>
      confirmThen(
        null,
        { question: `Reset the passcode of ${who}? The current value stops working at once.`, confirm: `Reset ${who}’s passcode` },
        async () => {
          const back = rowFocus(row, 'reset')
          await api('POST', `${path}/reset`)
          await view.reload(back, 'Passcode reset. The user sees the new value on their Settings page.')
        },
      ),
    ),
    button('Revoke Passcode', 'revoke', () =>
      confirmThen(
        null,
        { question: `Revoke the passcode of ${who}? Calls with it stop working at once.`, confirm: `Revoke ${who}’s passcode`, danger: true },
        async () => {
          const back = rowFocus(row)
          await api('DELETE', path)
          await view.reload(back, 'Passcode revoked.')
        },
      ),
    ),
  )
}

/** The row of `user`. */
export function userRow(view: UsersView, user: User): HTMLTableRowElement {
  const { canManageUsers } = context()
  const passcode = user.passcode
  // A revoked passcode has no value any more: no hint, no validity, no expiry, no use.
  const kept = passcode !== null && passcode.status !== 'revoked' ? passcode : null
  const who = user.name ? [user.name, ' ', h('span', { class: 'muted mono' }, user.id)] : [h('span', { class: 'mono' }, user.id)]
  const row = h('tr', { 'data-key': user.id })
  const usage = async () => (await api<UsageAnswer>('GET', `/users/${segment(user.id)}/passcode/usage`)).usage
  const unused = kept && unusedFor(kept.lastUsedAt)
  row.append(
    // One element in the cell: on a phone the cell lays its label and content side by side.
    h(
      'td',
      { class: 'name', 'data-label': 'User' },
      h('div', {}, who, user.email ? [h('br'), h('span', { class: 'muted email' }, user.email)] : null),
    ),
    cell(
      'Passcode',
      passcode ? statusOf('user', passcode.status, view.accepted()) : badge(null),
      kept ? [' ', h('code', {}, kept.hint)] : null,
      passcode ? leakMark(passcode.leak, canManageUsers ? 'Grant a new passcode to replace it.' : 'An admin can grant a new one.') : null,
      kept ? policyMark(kept.policyViolations) : null,
      // Its scopes, ranges and limits under the hint, when it has any: a column of its own would push the row past 1280 px.
      kept ? restrictions(kept) : null,
    ),
    cell('Validity', kept && (kept.validity.type === 'infinite' ? 'Infinite' : `${kept.validity.days} days`)),
    // Infinite is 10 calendar years (SPEC §3): its end is shown as it is.
    cell('Expires', kept && time(kept.expiresAt)),
    cell(
      'Last used',
      kept &&
        h(
          'div',
          {},
          time(kept.lastUsedAt),
          unused ? h('span', { class: 'unused' }, unused) : null,
          usageButton(user.name || user.id, usage, underRow(row, view.columns)),
        ),
    ),
  )
  if (canManageUsers) {
    const live = passcode !== null && passcode.status !== 'revoked' && passcode.status !== 'expired'
    row.append(h('td', { class: 'actions-cell', 'data-label': 'Actions' }, actions(view, user, row, live)))
  }
  return row
}
