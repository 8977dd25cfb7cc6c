// Settings > Users: every user passcode of the account (and, with a user directory, the
// people without one), the accepted passcodes setting, and for admins the grant form.
import { api, FieldError, segment } from '../api'
import { context } from '../context'
import { $, h } from '../dom'
import { announce, run } from '../feedback'
import { restoreFocus } from '../focus'
import { isVisibleAscii } from '../../../core/rules'
import { actionForm } from '../components/action-form'
import { readValidity, validityFieldset } from '../components/fields'
import { userLeakBanner } from '../components/leak-notice'
import { emptyRow, listTable } from '../components/table'
import type { Accepted, AccountAnswer, AccountPolicy, User, UserList } from '../wire'
import { acceptedSetting } from './accepted-setting'
import { policySetting } from './policy-setting'
import { userRow, type UsersView } from './user-row'

/** The API's own message for a user ID that is not 1 to 256 visible ASCII characters (SPEC §5.4). */
export const USER_ID_MESSAGE = 'Invalid userId: must be 1 to 256 visible ASCII characters'

/** The grant form above the list: a user ID and a validity. */
function grantForm(view: UsersView): HTMLFormElement {
  const userId = h('input', {
    id: 'grant-user-id',
    name: 'userId',
    required: true,
    autocomplete: 'off',
    autocapitalize: 'none',
    spellcheck: 'false',
    'data-field': 'userId',
  })
  const form: HTMLFormElement = actionForm(
    { class: 'panel', 'aria-labelledby': 'grant-title' },
    [
      h('h3', { id: 'grant-title' }, 'Grant a user passcode'),
      h('div', { class: 'fields' }, h('div', { class: 'field' }, h('label', { for: 'grant-user-id' }, 'User ID'), userId), validityFieldset('grant')),
    ],
    {
      submit: 'Grant Passcode',
      action: async () => {
        const id = userId.value.trim()
        // An empty ID would be PUT /users//passcode: refused here, as the service would, before anything is sent.
        if (!isVisibleAscii(id)) throw new FieldError('userId', USER_ID_MESSAGE)
        await api('PUT', `/users/${segment(id)}/passcode`, { validity: readValidity(form) })
        form.reset()
        await view.reload(undefined, `Passcode granted to ${id}.`)
      },
    },
  )
  return form
}

/** Settings > Users. */
export async function usersPage(): Promise<void> {
  const { canManageUsers } = context()
  const content = $<HTMLElement>(document, '#content')
  const columns = ['User', 'Passcode', 'Validity', 'Expires', 'Last used', ...(canManageUsers ? ['Actions'] : [])]
  const rows = h('tbody', {})
  const setting = h('section', { class: 'panel', 'aria-labelledby': 'account-title' }, h('h3', { id: 'account-title' }, 'Accepted passcodes'))
  let accepted: Accepted = 'both'
  let listed: readonly User[] = []
  const view: UsersView = {
    accepted: () => accepted,
    columns: columns.length,
    async reload(focus, message) {
      await load()
      const lost = focus !== undefined && !restoreFocus(rows, focus)
      if (message !== undefined) announce(message, { focus: lost })
    },
  }
  // The leak banner (SPEC §5.42), above everything else of the page while any user passcode has an open mark.
  const leakSlot = h('div', { id: 'leak-slot' })
  const policy = h('section', { class: 'panel', 'aria-labelledby': 'policy-title' }, h('h3', { id: 'policy-title' }, 'Passcode policy'))
  content.append(
    leakSlot,
    setting,
    policy,
    canManageUsers ? grantForm(view) : h('p', { class: 'readonly-note' }, 'Only admins grant, reset or revoke user passcodes.'),
    listTable(columns, rows),
  )

  async function load(): Promise<void> {
    const { users } = await api<UserList>('GET', '/users')
    listed = users
    leakSlot.replaceChildren(userLeakBanner(users, canManageUsers) ?? '')
    rows.replaceChildren(...(users.length === 0 ? [emptyRow(columns.length, 'No user passcodes yet.')] : users.map((user) => userRow(view, user))))
  }
  await run(null, async () => {
    ;({
      account: { acceptedPasscodes: accepted },
    } = await api<AccountAnswer>('GET', '/account'))
    setting.append(
      acceptedSetting(
        accepted,
        () => listed,
        async (chosen, message) => {
          accepted = chosen
          await view.reload(undefined, message)
        },
      ),
    )
    policy.append(policySetting(await api<AccountPolicy>('GET', '/account/policy'), async (message) => view.reload(undefined, message)))
    await load()
    // A link to #accepted-passcodes (from a "Not accepted" row) lands on the setting once it is there.
    if (location.hash === '#accepted-passcodes') document.getElementById('accepted-passcodes')?.focus()
  })
}
