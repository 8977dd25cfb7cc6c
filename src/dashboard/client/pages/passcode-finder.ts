// Finding one of 100 passcodes (SPEC §5.43, §5.51): search (name, description and tags by
// the API's `search`; hint and partners here), tags (the API's `tags`: a row's tag chip
// or the Tag picker), a Status filter with what a request would meet, Sort by (credits
// left by the API's `sortBy`), and pages of 25, 50 or 100, all kept in the URL
// (?q=&tags=&status=&sort=&per=&page=) so that a link, a reload, Back and Forward show the
// same view.
import { h, hidden } from '../dom'
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
/** The sort choices: name A–Z, newest first, soonest expiry first, most recent use first, fewest credits left first. */
const SORTS: Readonly<Record<string, { readonly label: string; readonly compare: Compare }>> = {
  name: { label: 'Name', compare: named },
  created: { label: 'Created (newest first)', compare: byTime('createdAt', -1) },
  expiry: { label: 'Expiry (soonest first)', compare: byTime('expiresAt', 1) },
  used: { label: 'Last used (most recent first)', compare: byTime('lastUsedAt', -1) },
  // The API's order (`sortBy=creditsRemaining`, passcodes without credits last): the list is loaded in it, and kept.
  credits: { label: 'Credits left (fewest first)', compare: () => 0 },
}

/** What the API answered to the finder's tags and search (`GET /passcodes?tags=&search=`), and for which. */
export interface Found {
  readonly ids: ReadonlySet<string>
  readonly tags: readonly string[]
  readonly search: string
}

/** The finder's form, and what it selects. */
export interface Finder {
  readonly form: HTMLFormElement
  /** The chosen tags, each with a button that removes it (under the form). */
  readonly chosen: HTMLElement
  /** The status line under it ("Showing 26–50 of 100"). */
  readonly shown: HTMLElement
  /** The tags chosen to filter by. */
  tags(): readonly string[]
  /** Adds `tag` to the chosen tags, or takes it away when chosen (a row's tag chip). */
  toggleTag(tag: string): void
  /** Offers `tags` (those the account's passcodes carry) in the Tag picker. */
  offer(tags: readonly string[]): void
  /** The `GET /passcodes` query the list is loaded with: `sortBy=creditsRemaining` for that sort, else none. */
  listQuery(): string
  /** The `GET /passcodes` query of the chosen tags and the search, or `''` when there are none (no request). */
  findQuery(): string
  /** The search and tags as {@link findQuery} sent them. */
  asked(): Pick<Found, 'tags' | 'search'>
  /** The matching passcodes, sorted: `all` (loaded with {@link listQuery}) narrowed by the status and by `found`. */
  matching(all: readonly Passcode[], found: Found | null, accepted: Accepted): Passcode[]
  /** Rows per page. */
  per(): number
  /** The page asked for (1 on any change of the search, filter, sort or size). */
  page: number
  /** Writes the view into the URL; with `push`, as a step of its own in the history. */
  remember(push?: boolean): void
}

/**
 * The search box's words the API does not search (SPEC §5.43: hint and partners; the API
 * searches name, description and tags): matched here, among the passcodes with every
 * chosen tag, so the box finds by all of them.
 */
function matchesHere(passcode: Passcode, found: Found): boolean {
  const text = found.search.trim().toLowerCase()
  return (
    text !== '' &&
    found.tags.every((tag) => passcode.tags.includes(tag)) &&
    [passcode.hint, ...(passcode.partners ?? []), passcode.lastUsedPartner ?? ''].some((word) => word.toLowerCase().includes(text))
  )
}

/**
 * The finder, read from the URL; `changed` runs on every change of its controls, and on
 * Back and Forward (the URL's view is read again). Choosing or removing a tag, and
 * starting a search, are steps of their own in the history.
 */
export function passcodeFinder(changed: (typing: boolean) => void): Finder {
  let params = readQuery()
  const field = (id: string, label: string, control: HTMLElement) => h('div', { class: 'field' }, h('label', { for: id }, label), control)
  const search = h('input', { type: 'search', id: 'find-q', name: 'q', value: params.get('q') ?? '', autocomplete: 'off', spellcheck: 'false' })
  const options = (choices: readonly (readonly [string, string])[], current: string) =>
    choices.map(([value, text]) => h('option', { value, selected: value === current }, text))
  const status = h('select', { id: 'find-status', name: 'status' }, options(Object.entries(FILTERS), params.get('status') ?? ''))
  const sorts = Object.entries(SORTS).map(([value, { label }]) => [value, label] as const)
  const sort = h('select', { id: 'find-sort', name: 'sort' }, options(sorts, params.get('sort') ?? 'name'))
  const size = pageSizeField('find-per', pageSize(params.get('per')))
  const picker = h('select', { id: 'find-tag', name: 'tag' })
  const shown = h('p', { class: 'shown', id: 'find-shown', role: 'status' })
  const chosen = h('div', { class: 'chosen-tags', id: 'find-tags', role: 'group', 'aria-label': 'Tags chosen' })
  let tags: string[] = params.getAll('tags')
  let offered: readonly string[] = []
  // A search's first keystroke is a step in the history; the next ones only change it.
  let typing = false
  const form = h(
    'form',
    { class: 'finder', role: 'search', 'aria-label': 'Find passcodes' },
    field('find-q', 'Search', search),
    field('find-tag', 'Tag', picker),
    field('find-status', 'Status', status),
    field('find-sort', 'Sort by', sort),
    size.field,
  )
  form.addEventListener('submit', (event) => event.preventDefault())

  /** The picker's choices (tags not chosen yet) and the chosen tags' buttons, as `tags` says. */
  function draw(): void {
    picker.replaceChildren(
      h('option', { value: '' }, tags.length === 0 ? 'Any' : 'Add a tag…'),
      ...offered.filter((tag) => !tags.includes(tag)).map((tag) => h('option', { value: tag }, tag)),
    )
    chosen.hidden = tags.length === 0
    chosen.replaceChildren(
      h('span', { class: 'muted' }, 'Only passcodes tagged'),
      ...tags.map((tag) =>
        h(
          'button',
          { type: 'button', class: 'tag chosen', onclick: () => finder.toggleTag(tag) },
          hidden('Remove the tag '),
          tag,
          h('span', { 'aria-hidden': 'true' }, ' ×'),
        ),
      ),
    )
  }
  function step(): void {
    typing = false
    finder.page = 1
    draw()
    finder.remember(true)
    changed(false)
  }
  const finder: Finder = {
    form,
    chosen,
    shown,
    page: Math.max(1, Math.trunc(Number(params.get('page'))) || 1),
    per: () => Number(size.select.value),
    tags: () => tags,
    toggleTag(tag: string) {
      tags = tags.includes(tag) ? tags.filter((other) => other !== tag) : [...tags, tag]
      step()
    },
    offer(list: readonly string[]) {
      offered = list
      draw()
    },
    listQuery: () => (sort.value === 'credits' ? 'sortBy=creditsRemaining' : ''),
    findQuery() {
      const query = new URLSearchParams(tags.map((tag) => ['tags', tag]))
      if (search.value.trim()) query.set('search', search.value.trim())
      return query.toString()
    },
    asked: () => ({ tags: [...tags], search: search.value.trim() }),
    matching(all: readonly Passcode[], found: Found | null, accepted: Accepted) {
      /** What a request would meet: "not accepted" before the passcode's own status. */
      const effective = (passcode: Passcode) => (works(passcode.status) && !accepts(accepted, 'account') ? 'not_accepted' : passcode.status)
      const wanted = (passcode: Passcode) =>
        !status.value || (status.value === 'no_partner' ? worksForNoPartner(passcode) : effective(passcode) === status.value)
      const kept = (passcode: Passcode) => found === null || found.ids.has(passcode.id) || matchesHere(passcode, found)
      return all.filter((passcode) => wanted(passcode) && kept(passcode)).sort((SORTS[sort.value] ?? SORTS.name!).compare)
    },
    remember(push = false) {
      writeQuery(
        { q: search.value.trim(), tags, status: status.value, sort: sort.value, per: size.select.value, page: finder.page },
        { sort: 'name', per: size.select.options[0]!.value, page: '1' },
        push,
      )
    },
  }
  picker.addEventListener('change', () => {
    if (picker.value && !tags.includes(picker.value)) finder.toggleTag(picker.value)
  })
  search.addEventListener('input', () => {
    finder.page = 1
    finder.remember(!typing)
    typing = true
    changed(true)
  })
  for (const control of [status, sort, size.select])
    control.addEventListener('change', () => {
      typing = false
      finder.page = 1
      changed(false)
    })
  // Back and Forward: the view of that entry, read again.
  addEventListener('popstate', () => {
    params = readQuery()
    typing = false
    search.value = params.get('q') ?? ''
    tags = params.getAll('tags')
    status.value = params.get('status') ?? ''
    sort.value = params.get('sort') ?? 'name'
    size.select.value = String(pageSize(params.get('per')))
    finder.page = Math.max(1, Math.trunc(Number(params.get('page'))) || 1)
    draw()
    changed(false)
  })
  draw()
  return finder
}
