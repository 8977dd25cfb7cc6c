// Finding one of 100 passcodes (SPEC §5.43): search (name, hint, description, partner),
// a Status filter with what a request would meet, Sort by, and pages of 25, 50 or 100,
// all kept in the URL (?q=&status=&sort=&per=&page=) so that a link shows the same view.
import { h } from '../dom'
import { byName } from '../format'
import { pageSize, pageSizeField } from '../components/pager'
import { accepts, works } from '../components/status'
import { readQuery, writeQuery } from '../url'
import type { Accepted, Passcode } from '../wire'

/** Bound only to partners that are no longer whitelisted: `/v1/connect` refuses it for every partner. */
export function worksForNoPartner(passcode: Passcode): boolean {
  return passcode.partners !== null && passcode.partners.length > 0 && passcode.partnersNotWhitelisted.length >= passcode.partners.length
}

/** The status filter's choices: what a request would meet. */
const FILTERS: Readonly<Record<string, string>> = {
  '': 'All',
  active: 'Active',
  expiring_soon: 'Expiring soon',
  expired: 'Expired',
  disabled: 'Disabled',
  not_accepted: 'Not accepted by this account',
  no_partner: 'Works for no partner on /v1/connect',
}

type Compare = (a: Passcode, b: Passcode) => number
const named: Compare = (a, b) => byName(a.name, b.name)
/** Compares two times, the missing one (never) last, then by name. */
const byTime =
  (key: 'createdAt' | 'expiresAt' | 'lastUsedAt', direction: 1 | -1): Compare =>
  (a, b) => {
    const x = a[key] ? Date.parse(a[key]) : null
    const y = b[key] ? Date.parse(b[key]) : null
    if (x === y) return named(a, b)
    if (x === null) return 1
    if (y === null) return -1
    return direction * (x - y) || named(a, b)
  }
/** The sort choices: name A–Z, newest first, soonest expiry first, most recent use first. */
const SORTS: Readonly<Record<string, { readonly label: string; readonly compare: Compare }>> = {
  name: { label: 'Name', compare: named },
  created: { label: 'Created (newest first)', compare: byTime('createdAt', -1) },
  expiry: { label: 'Expiry (soonest first)', compare: byTime('expiresAt', 1) },
  used: { label: 'Last used (most recent first)', compare: byTime('lastUsedAt', -1) },
}

/** The finder's form, and what it selects. */
export interface Finder {
  readonly form: HTMLFormElement
  /** The status line under it ("Showing 26–50 of 100"). */
  readonly shown: HTMLElement
  /** The matching passcodes, sorted. */
  matching(all: readonly Passcode[], accepted: Accepted): Passcode[]
  /** Rows per page. */
  per(): number
  /** The page asked for (1 on any change of the search, filter, sort or size). */
  page: number
  /** Writes the view into the URL. */
  remember(): void
}

/** The finder, read from the URL; `changed` runs on every change of its controls. */
export function passcodeFinder(changed: () => void): Finder {
  const params = readQuery()
  const field = (id: string, label: string, control: HTMLElement) => h('div', { class: 'field' }, h('label', { for: id }, label), control)
  const search = h('input', { type: 'search', id: 'find-q', name: 'q', value: params.get('q') ?? '', autocomplete: 'off', spellcheck: 'false' })
  const options = (choices: readonly (readonly [string, string])[], current: string) =>
    choices.map(([value, text]) => h('option', { value, selected: value === current }, text))
  const status = h('select', { id: 'find-status', name: 'status' }, options(Object.entries(FILTERS), params.get('status') ?? ''))
  const sorts = Object.entries(SORTS).map(([value, { label }]) => [value, label] as const)
  const sort = h('select', { id: 'find-sort', name: 'sort' }, options(sorts, params.get('sort') ?? 'name'))
  const size = pageSizeField('find-per', pageSize(params.get('per')))
  const shown = h('p', { class: 'shown', id: 'find-shown', role: 'status' })
  const form = h(
    'form',
    { class: 'finder', role: 'search', 'aria-label': 'Find passcodes' },
    field('find-q', 'Search', search),
    field('find-status', 'Status', status),
    field('find-sort', 'Sort by', sort),
    size.field,
  )
  form.addEventListener('submit', (event) => event.preventDefault())
  const finder: Finder = {
    form,
    shown,
    page: Math.max(1, Math.trunc(Number(params.get('page'))) || 1),
    per: () => Number(size.select.value),
    matching(all, accepted) {
      const query = search.value.trim().toLowerCase()
      /** What a request would meet: "not accepted" before the passcode's own status. */
      const effective = (passcode: Passcode) => (works(passcode.status) && !accepts(accepted, 'account') ? 'not_accepted' : passcode.status)
      const wanted = (passcode: Passcode) =>
        !status.value || (status.value === 'no_partner' ? worksForNoPartner(passcode) : effective(passcode) === status.value)
      const found = (passcode: Passcode) =>
        !query ||
        [passcode.name, passcode.hint, passcode.description, ...(passcode.partners ?? []), passcode.lastUsedPartner ?? ''].some((text) =>
          text.toLowerCase().includes(query),
        )
      return all.filter((passcode) => wanted(passcode) && found(passcode)).sort((SORTS[sort.value] ?? SORTS.name!).compare)
    },
    remember() {
      writeQuery(
        { q: search.value.trim(), status: status.value, sort: sort.value, per: size.select.value, page: finder.page },
        { sort: 'name', per: size.select.options[0]!.value, page: '1' },
      )
    },
  }
  for (const control of [search, status, sort, size.select])
    control.addEventListener(control === search ? 'input' : 'change', () => {
      finder.page = 1
      changed()
    })
  return finder
}
