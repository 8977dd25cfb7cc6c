// My passcode: the signed-in user's own passcode, what a request with it would meet,
// and its value on request ("Show my passcode", which goes while the value is shown).
import { api, ApiError, segment } from '../api'
import { context } from '../context'
import { $, h } from '../dom'
import { run } from '../feedback'
import { ownLeakNotice } from '../components/leak-notice'
import { restrictions } from '../components/restriction-cells'
import { revealValue } from '../components/reveal'
import { statusOf } from '../components/status'
import { time } from '../components/time'
import { unusedFor } from '../components/usage-chart'
import { usageButton } from '../components/usage-panel'
import type { AccountAnswer, IssuedUserPasscode, UsageAnswer, UserPasscode, UserPasscodeAnswer } from '../wire'
import { acceptance } from './accepted-setting'

/** The "Show my passcode" button, gone while the value shows and back (focused) after Done. */
function showButton(): HTMLButtonElement {
  const button = h('button', { type: 'button', class: 'primary' }, 'Show my passcode')
  button.addEventListener('click', () => {
    void run(button, async () => {
      const revealed = await api<IssuedUserPasscode>('GET', '/me/passcode')
      button.hidden = true
      revealValue('Your passcode', revealed.value, 'Keep it secret: it calls the API as you. Click Done to hide it.', () => {
        button.hidden = false
        button.focus()
      })
    })
  })
  return button
}

/** Settings > My passcode. */
export async function mePage(): Promise<void> {
  const { userId } = context()
  const content = $<HTMLElement>(document, '#content')
  const path = `/users/${segment(userId)}/passcode`
  await run(null, async () => {
    let passcode: UserPasscode | null = null
    try {
      ;({ passcode } = await api<UserPasscodeAnswer>('GET', path))
    } catch (error) {
      if (!(error instanceof ApiError && error.status === 404)) throw error
    }
    const { account } = await api<AccountAnswer>('GET', '/account')
    const accepted = account.acceptedPasscodes
    if (passcode?.status === 'revoked' && passcode.leak) {
      content.replaceChildren(ownLeakNotice(passcode.leak), acceptance(accepted))
      return
    }
    if (!passcode || passcode.status === 'revoked') {
      const why = passcode ? 'Your passcode was revoked. ' : 'You have no passcode. '
      content.replaceChildren(h('p', {}, why, 'An admin of this account can grant you one.'), acceptance(accepted))
      return
    }
    const unused = unusedFor(passcode.lastUsedAt)
    const restricted = restrictions(passcode)
    const panel = h('div', { class: 'usage-slot' })
    const usage = async () => (await api<UsageAnswer>('GET', `${path}/usage`)).usage
    content.replaceChildren(
      h(
        'dl',
        {},
        h('dt', {}, 'Status'),
        h('dd', {}, statusOf('user', passcode.status, accepted)),
        h('dt', {}, 'Passcode'),
        h('dd', {}, h('code', {}, passcode.hint)),
        h('dt', {}, 'Validity'),
        h('dd', {}, passcode.validity.type === 'infinite' ? 'Infinite' : `${passcode.validity.days} days`),
        h('dt', {}, 'Expires'),
        h('dd', {}, time(passcode.expiresAt)),
        // What it may do and its limits (SPEC §5.48–5.50), when it has any: the holder plans their calls by them.
        restricted ? [h('dt', {}, 'Restrictions'), h('dd', {}, restricted)] : null,
        h('dt', {}, 'Last used'),
        h(
          'dd',
          {},
          time(passcode.lastUsedAt),
          unused ? h('span', { class: 'unused' }, unused) : null,
          usageButton('your passcode', usage, (shown) => {
            panel.append(shown)
            return () => shown.remove()
          }),
        ),
      ),
      panel,
      acceptance(accepted),
      passcode.status === 'expired' ? h('p', {}, 'It has expired. Ask an admin of this account to grant you a new one.') : showButton(),
    )
  })
}
