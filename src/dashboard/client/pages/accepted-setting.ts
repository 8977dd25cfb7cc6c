// "Accepted passcodes" on Users (SPEC §5.11): which passcodes the API accepts. Admins
// change it (after being told how many passcodes stop working); everyone else reads it.
import { ACCEPTED_PASSCODES_LABELS } from '../../../core/labels'
import { api } from '../api'
import { context } from '../context'
import { h } from '../dom'
import { capitalised, plural } from '../format'
import { actionForm } from '../components/action-form'
import { confirmAction } from '../components/confirm-dialog'
import { accepts, works } from '../components/status'
import type { Accepted, AccountAnswer, PasscodeList, User } from '../wire'

/** "This account accepts account and user passcodes." */
export function acceptance(accepted: Accepted): HTMLElement {
  return h('p', { class: 'acceptance' }, 'This account accepts ', h('strong', {}, ACCEPTED_PASSCODES_LABELS[accepted]), '.')
}

/** The setting's section body, for `accepted`; `saved` runs after a change with the new value. */
export function acceptedSetting(
  accepted: Accepted,
  users: () => readonly User[],
  saved: (chosen: Accepted, message: string) => Promise<void>,
): HTMLElement {
  if (!context().canManageUsers) {
    const note = acceptance(accepted)
    note.id = 'accepted-passcodes'
    note.tabIndex = -1
    return note
  }
  const select = h(
    'select',
    { id: 'accepted-passcodes', name: 'acceptedPasscodes', 'data-field': 'acceptedPasscodes' },
    Object.entries(ACCEPTED_PASSCODES_LABELS).map(([value, text]) => h('option', { value, selected: value === accepted }, capitalised(text))),
  )
  return actionForm({ class: 'fields' }, h('div', { class: 'field' }, h('label', { for: 'accepted-passcodes' }, 'The API accepts'), select), {
    submit: 'Save',
    primary: false,
    action: async () => {
      const chosen = select.value as Accepted
      // What stops working: the kind the new setting no longer accepts, counted as a request would meet it.
      const kind = (['account', 'user'] as const).find((each) => accepts(accepted, each) && !accepts(chosen, each))
      let stopping = 0
      if (kind === 'account') stopping = (await api<PasscodeList>('GET', '/passcodes')).passcodes.filter((passcode) => works(passcode.status)).length
      if (kind === 'user') stopping = users().filter((user) => user.passcode && works(user.passcode.status)).length
      const many = plural(stopping, `${kind ?? ''} passcode`)
      const words = ACCEPTED_PASSCODES_LABELS[chosen]
      if (stopping > 0) {
        const question = `Accept ${words}? ${many} stop${stopping === 1 ? 's' : ''} working at once: requests with ${stopping === 1 ? 'it' : 'them'} are refused until the setting changes back.`
        if (!(await confirmAction({ question, confirm: `Change to ${words}`, danger: true }))) return
      }
      await api<AccountAnswer>('PUT', '/account', { acceptedPasscodes: chosen })
      accepted = chosen
      await saved(chosen, stopping > 0 ? `Saved. ${many} no longer work${stopping === 1 ? 's' : ''}.` : 'Saved.')
    },
  })
}
