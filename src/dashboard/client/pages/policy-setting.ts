// "Passcode policy" on Users (SPEC §5.52): the rules every new passcode of the account
// must follow. Admins set them or go back to the host's default; everyone else reads them.
import { api } from '../api'
import { context } from '../context'
import { h } from '../dom'
import { run } from '../feedback'
import { actionForm } from '../components/action-form'
import type { AccountPolicy } from '../wire'

/** The policy in words. */
export function policyWords(policy: AccountPolicy['policy']): string {
  const rules = [
    ...(policy.maxLifetimeDays === null ? [] : [`passcodes live at most ${policy.maxLifetimeDays} days`]),
    ...(policy.requireExpiry ? ['every account passcode needs an expiry'] : []),
    ...(policy.requireDescription ? ['every account passcode needs a description'] : []),
  ]
  const source = policy.source === 'account' ? "This account's policy" : "The host's default policy"
  return `${source}: ${rules.length === 0 ? 'no rule' : rules.join('; ')}.`
}

/** The section's body; `saved` runs after a change with what to announce (the lists' marks change with it). */
export function policySetting(answer: AccountPolicy, saved: (message: string) => Promise<void>): HTMLElement {
  let { policy } = answer
  const summary = h('p', { class: 'acceptance', id: 'passcode-policy', tabIndex: -1 }, policyWords(policy))
  if (!context().canManageUsers) return summary
  const days = h('input', {
    id: 'policy-max-days',
    name: 'maxLifetimeDays',
    type: 'number',
    min: '1',
    max: '3650',
    inputmode: 'numeric',
    'data-field': 'maxLifetimeDays',
    value: policy.maxLifetimeDays === null ? '' : String(policy.maxLifetimeDays),
  })
  const expiry = h('input', { type: 'checkbox', id: 'policy-require-expiry', name: 'requireExpiry', checked: policy.requireExpiry })
  const description = h('input', {
    type: 'checkbox',
    id: 'policy-require-description',
    name: 'requireDescription',
    checked: policy.requireDescription,
  })
  const reset = h('button', { type: 'button', id: 'policy-default' }, "Use the host's default")
  const show = (next: AccountPolicy['policy']) => {
    policy = next
    summary.textContent = policyWords(next)
    days.value = next.maxLifetimeDays === null ? '' : String(next.maxLifetimeDays)
    expiry.checked = next.requireExpiry
    description.checked = next.requireDescription
    reset.hidden = next.source === 'default'
  }
  reset.hidden = policy.source === 'default'
  reset.addEventListener('click', () => {
    void run(reset, async () => {
      show((await api<AccountPolicy>('DELETE', '/account/policy')).policy)
      await saved("Saved. The host's default policy applies.")
    })
  })
  const form = actionForm(
    { class: 'fields' },
    [
      summary,
      h('div', { class: 'field' }, h('label', { for: 'policy-max-days' }, 'Longest lifetime, in days (empty: no maximum)'), days),
      h('div', { class: 'field' }, h('label', {}, expiry, ' Every passcode needs an expiry')),
      h('div', { class: 'field' }, h('label', {}, description, ' Every passcode needs a description')),
    ],
    {
      submit: 'Save policy',
      primary: false,
      action: async () => {
        const text = days.value.trim()
        const body = {
          maxLifetimeDays: text === '' ? null : Number(text),
          requireExpiry: expiry.checked,
          requireDescription: description.checked,
        }
        show((await api<AccountPolicy>('PUT', '/account/policy', body)).policy)
        await saved('Saved. Passcodes made before that break it keep working and are marked "Breaks policy"; the admins get one email.')
      },
    },
  )
  form.append(reset)
  return form
}
