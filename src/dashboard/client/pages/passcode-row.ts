// One account passcode's row on Passcodes: name (and description, and tags), what a
// request with it would meet, its hint (and a rotation's overlap), expiry, partners, its
// scopes and address ranges, its rate limit and credits, last use with
// its usage chart on demand, and, for those who may change it, Edit and a menu of the
// rest (Rotate, Disable or Enable, Delete), so that the row stays one line tall.
import { LEAKED_ENABLE_WARNING } from '../../../core/labels'
import { api, segment } from '../api'
import { context } from '../context'
import { policyMark } from '../components/policy-mark'
import { h, hidden, type Child } from '../dom'
import { quoted } from '../format'
import { rowFocus } from '../focus'
import { confirmThen } from '../components/action-form'
import { leakMark } from '../components/leak-notice'
import { menuButton } from '../components/menu'
import { statusOf } from '../components/status'
import { restrictionsCell, tagChips } from '../components/restriction-cells'
import { cell } from '../components/table'
import { time } from '../components/time'
import { underRow, usageButton } from '../components/usage-panel'
import { unusedFor } from '../components/usage-chart'
import type { Passcode, UsageAnswer } from '../wire'
import { worksForNoPartner, type Finder } from './passcode-finder'
import { editForm, rotateForm } from './passcode-forms'
import type { PasscodesView } from './passcodes-view'

function partnersCell(passcode: Passcode): Child {
  if (!passcode.partners) return h('span', { class: 'muted' }, 'Any')
  const stale = passcode.partnersNotWhitelisted
  if (worksForNoPartner(passcode))
    return [
      h('span', { class: 'badge not_accepted' }, 'No partner'),
      h('p', { class: 'why' }, `Bound to ${passcode.partners.join(', ')}, no longer whitelisted: /v1/connect refuses it for every partner.`),
    ]
  return [passcode.partners.join(', '), stale.length > 0 ? h('span', { class: 'muted' }, ` (no longer whitelisted: ${stale.join(', ')})`) : null]
}

/** The passcode's actions: Edit, and the menu of the rest. */
function actions(view: PasscodesView, passcode: Passcode, row: HTMLTableRowElement): HTMLElement {
  const path = `/passcodes/${segment(passcode.id)}`
  const name = quoted(passcode.name)
  const change = (verb: string, request: { question: string; confirm: string; danger?: boolean }, done: string) => () =>
    confirmThen(null, request, async () => {
      const focus = rowFocus(row, 'menu')
      await api('POST', `${path}/${verb}`)
      await view.reload(focus, done)
    })
  const enable = passcode.leak
    ? change(
        'enable',
        {
          question: `Enable ${name} with its public value? ${LEAKED_ENABLE_WARNING}`,
          confirm: 'Enable the public value',
          danger: true,
        },
        'Passcode enabled. Its public value works again.',
      )
    : change('enable', { question: `Enable the passcode ${name}? Calls with it work again at once.`, confirm: `Enable ${name}` }, 'Passcode enabled.')
  const disable = change(
    'disable',
    {
      question: `Disable the passcode ${name}? Calls with it are refused until you enable it again; its value, name, partners and expiry are kept.`,
      confirm: `Disable ${name}`,
    },
    'Passcode disabled.',
  )
  const remove = () =>
    confirmThen(
      null,
      { question: `Delete the passcode ${name}? Calls with it stop working at once.`, confirm: `Delete ${name}`, danger: true },
      async () => {
        const focus = rowFocus(row)
        await api('DELETE', path)
        await view.reload(focus, 'Passcode deleted.')
      },
    )
  return h(
    'div',
    { class: 'actions row-actions' },
    h('button', { type: 'button', 'data-control': 'edit', onclick: () => editForm(view, passcode, row) }, 'Edit', hidden(` ${passcode.name}`)),
    menuButton('More', ` actions for ${passcode.name}`, [
      { text: 'Rotate', select: () => rotateForm(view, passcode, row) },
      passcode.status === 'disabled' ? { text: 'Enable', select: enable } : { text: 'Disable', select: disable },
      { text: 'Delete', danger: true, select: remove },
    ]),
  )
}

/** The row of `passcode`; its tag chips filter the list by `tags`. */
export function passcodeRow(view: PasscodesView, passcode: Passcode, tags: Pick<Finder, 'tags' | 'toggleTag'>): HTMLTableRowElement {
  const { canManagePasscodes } = context()
  const row = h('tr', { 'data-key': passcode.id })
  const usage = async () => (await api<UsageAnswer>('GET', `/passcodes/${segment(passcode.id)}/usage`)).usage
  const unused = unusedFor(passcode.lastUsedAt)
  row.append(
    h(
      'td',
      { class: 'name', 'data-label': 'Name' },
      // The description under the name, as text (newlines kept by CSS); dir="auto" keeps its direction to itself; then the tags.
      passcode.description || passcode.tags.length > 0
        ? h(
            'div',
            {},
            passcode.name,
            passcode.description ? h('p', { class: 'description', dir: 'auto' }, passcode.description) : null,
            tagChips(passcode.tags, tags.tags(), (tag) => tags.toggleTag(tag)),
          )
        : passcode.name,
    ),
    cell(
      'Status',
      statusOf('account', passcode.status, view.accepted),
      leakMark(passcode.leak, canManagePasscodes ? 'Rotate it: the public value never works again.' : undefined),
      policyMark(passcode.policyViolations),
    ),
    cell(
      'Passcode',
      h('code', {}, passcode.hint),
      passcode.previousValueEndsAt ? h('span', { class: 'overlap' }, 'Previous value works until ', time(passcode.previousValueEndsAt)) : null,
    ),
    cell('Expires', passcode.expiresAt ? time(passcode.expiresAt) : 'Never'),
    cell('Partners', partnersCell(passcode)),
    restrictionsCell(passcode),
    cell(
      'Last used',
      h(
        'div',
        {},
        time(passcode.lastUsedAt),
        passcode.lastUsedPartner ? h('span', { class: 'via' }, `via ${passcode.lastUsedPartner}`) : null,
        unused ? h('span', { class: 'unused' }, unused) : null,
        usageButton(passcode.name, usage, underRow(row, view.columns)),
      ),
    ),
  )
  if (canManagePasscodes) row.append(h('td', { class: 'actions-cell', 'data-label': 'Actions' }, actions(view, passcode, row)))
  return row
}
