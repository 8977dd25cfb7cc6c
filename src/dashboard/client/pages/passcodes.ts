// Settings > Passcodes: the account's passcodes, "N of 100", + Passcode, the finder
// (passcode-finder.ts), a page of rows (passcode-row.ts) and Previous / Next. The whole
// list (at most 100) is loaded for the count, the cap and the leak banner; the tags and
// the search are the API's (`GET /passcodes?tags=&search=`), asked beside it.
import { MAX_ACCOUNT_PASSCODES } from '../../../core/rules'
import { api } from '../api'
import { context } from '../context'
import { $, h } from '../dom'
import { announce, run } from '../feedback'
import { restoreFocus, type RowFocus } from '../focus'
import { leakBanner } from '../components/leak-notice'
import { pager, shownText } from '../components/pager'
import { emptyRow, listTable } from '../components/table'
import { byName } from '../format'
import type { AccountAnswer, Passcode, PasscodeList, PartnerList, ScopeList } from '../wire'
import { passcodeFinder, type Found } from './passcode-finder'
import { createForm } from './passcode-forms'
import { passcodeRow } from './passcode-row'
import type { PasscodesView } from './passcodes-view'

/** How long a pause in typing a search waits before asking the API: one request per search, not per keystroke. */
const SEARCH_PAUSE_MS = 250

/** The + Passcode button and its form; at the cap the button is off and says why. */
function creating(view: PasscodesView, content: HTMLElement): (full: boolean) => void {
  const button = $<HTMLButtonElement>(document, '#new-passcode')
  button.hidden = false
  const form: HTMLFormElement = createForm(view, () => toggle(false))
  const note = h(
    'p',
    { class: 'cap-note', id: 'cap-note', hidden: true },
    `This account has ${MAX_ACCOUNT_PASSCODES} passcodes, the most it may have: delete one to add another.`,
  )
  $(document, '.toolbar').after(note)
  function toggle(open: boolean): void {
    form.hidden = !open
    button.setAttribute('aria-expanded', String(open))
    ;(open ? $<HTMLElement>(form, '#create-name') : button).focus()
  }
  button.addEventListener('click', () => {
    if (button.getAttribute('aria-disabled') !== 'true') toggle(form.hidden)
  })
  content.append(form)
  // Off at the cap, but still focusable, so that its description (why it is off) is read.
  return (full) => {
    note.hidden = !full
    if (full && !form.hidden) toggle(false)
    for (const [name, value] of [
      ['aria-disabled', 'true'],
      ['aria-describedby', 'cap-note'],
    ] as const)
      if (full) button.setAttribute(name, value)
      else button.removeAttribute(name)
  }
}

/** Settings > Passcodes. */
export async function passcodesPage(): Promise<void> {
  const { canManagePasscodes } = context()
  const content = $<HTMLElement>(document, '#content')
  const [{ partners }, { account }, { scopes }] = await Promise.all([
    api<PartnerList>('GET', '/partners').catch((): Pick<PartnerList, 'partners'> => ({ partners: [] })),
    api<AccountAnswer>('GET', '/account').catch(() => ({ account: { acceptedPasscodes: 'both' as const } })),
    api<ScopeList>('GET', '/scopes').catch((): ScopeList => ({ scopes: [] })),
  ])
  const columns = ['Name', 'Status', 'Passcode', 'Expires', 'Partners', 'Restrictions', 'Last used', ...(canManagePasscodes ? ['Actions'] : [])]
  const rows = h('tbody', {})
  const count = h('p', { class: 'count', id: 'passcode-count' })
  $(document, '.toolbar h2').after(count)
  // The account's passcodes, in the finder's list order; and what the API found for its tags and search.
  let all: readonly Passcode[] = []
  let found: Found | null = null
  let loaded = { list: '', find: '' }
  let asked = 0

  const view: PasscodesView = {
    accepted: account.acceptedPasscodes,
    partnerNames: partners,
    scopes,
    columns: columns.length,
    async reload(focus, message) {
      await load(true)
      view.show(focus, message)
    },
    show(focus?: RowFocus, message?: string) {
      render(focus?.key)
      const lost = focus !== undefined && !restoreFocus(rows, focus)
      if (message !== undefined) announce(message, { focus: lost })
      else if (lost) $<HTMLElement>(document, '#page-title').focus()
    },
  }
  // A search asks the API once the typing pauses; any other change at once. A search
  // emptied (and no tags) asks nothing, so it is drawn at once: a redraw a pause later
  // would close an edit form opened meanwhile.
  let pause: ReturnType<typeof setTimeout> | undefined
  const finder = passcodeFinder((typing) => {
    clearTimeout(pause)
    if (typing && finder.findQuery() !== '') pause = setTimeout(() => void run(null, () => load()), SEARCH_PAUSE_MS)
    else void run(null, () => load())
  })
  const pages = pager('Pages of passcodes', (page) => {
    finder.page = page
    render()
  })
  const showCap = canManagePasscodes ? creating(view, content) : () => {}
  if (!canManagePasscodes)
    content.append(
      h(
        'p',
        { class: 'readonly-note' },
        'You can see this account’s passcodes. Only admins and users with write access to User Settings change them.',
      ),
    )
  // The leak banner (SPEC §5.42), above everything else of the page while any passcode has an open mark.
  const leakSlot = h('div', { id: 'leak-slot' })
  content.prepend(leakSlot)
  content.append(finder.form, finder.chosen, finder.shown, listTable(columns, rows), pages.element)

  /** Draws the page of rows the finder asks for (the one with `key`'s row when given), and keeps the view in the URL. */
  function render(key?: string): void {
    const matching = finder.matching(all, found, view.accepted)
    const per = finder.per()
    const at = key === undefined ? -1 : matching.findIndex((passcode) => passcode.id === key)
    const last = Math.max(1, Math.ceil(matching.length / per))
    finder.page = Math.min(at === -1 ? finder.page : Math.floor(at / per) + 1, last)
    const first = (finder.page - 1) * per
    const shown = matching.slice(first, first + per)
    finder.remember()
    finder.shown.textContent = shownText(first + 1, first + shown.length, matching.length, all.length)
    pages.update(finder.page, last)
    rows.replaceChildren(
      ...(all.length === 0
        ? [emptyRow(columns.length, 'No passcodes yet.')]
        : shown.length === 0
          ? [emptyRow(columns.length, 'No passcode matches.')]
          : shown.map((passcode) => passcodeRow(view, passcode, finder))),
    )
  }

  /**
   * Loads what the finder's view needs and draws it: the list (again with `fresh`, or for
   * another order) and the API's answer to its tags and search (none without them). An
   * answer overtaken by a later change is dropped.
   */
  async function load(fresh = false): Promise<void> {
    const ticket = ++asked
    const want = { list: finder.listQuery(), find: finder.findQuery() }
    const forList = fresh || want.list !== loaded.list || all.length === 0
    const search = finder.asked()
    const [list, matches] = await Promise.all([
      forList ? api<PasscodeList>('GET', `/passcodes${want.list ? `?${want.list}` : ''}`) : null,
      want.find && (fresh || want.find !== loaded.find) ? api<PasscodeList>('GET', `/passcodes?${want.find}`) : null,
    ])
    if (ticket !== asked) return
    if (list) {
      const { passcodes } = list
      count.textContent = `${passcodes.length} of ${MAX_ACCOUNT_PASSCODES}`
      showCap(passcodes.length >= MAX_ACCOUNT_PASSCODES)
      all = passcodes
      leakSlot.replaceChildren(leakBanner(passcodes, canManagePasscodes) ?? '')
      finder.offer([...new Set(passcodes.flatMap((passcode) => passcode.tags))].sort(byName))
    }
    if (!want.find) found = null
    else if (matches) found = { ids: new Set(matches.passcodes.map((passcode) => passcode.id)), ...search }
    loaded = want
    render()
  }
  await run(null, load)
}
