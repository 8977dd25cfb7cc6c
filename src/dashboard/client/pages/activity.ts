// Settings > Activity (SPEC §5.40): the account's audit trail, for admins, from
// `GET /audit`, newest first, each record told as a sentence (activity-sentences.ts);
// the filters (activity-filters.ts) and how far Older went are kept in the URL
// (`?older=2`: the first page and two older ones), so that a reload or a link shows the
// same records. Every string from the server goes in as text.
import { api, ApiError } from '../api'
import { context } from '../context'
import { $, h } from '../dom'
import { run } from '../feedback'
import { emptyRow, listTable } from '../components/table'
import { time } from '../components/time'
import { readQuery, writeQuery } from '../url'
import type { AuditPage, AuditRecord, PasscodeList, UserList } from '../wire'
import { activityFilters, FILTER_KEYS, type Filters } from './activity-filters'
import { sentence, type FilterLink } from './activity-sentences'

const PAGE = 25
/** The most records one `GET /audit` answers. */
const MOST = 200
const DATE = /^\d{4}-\d{2}-\d{2}$/

/** Local midnight of a `YYYY-MM-DD` date, `days` later, as the API's ISO 8601 time. */
function localMidnight(date: string, days = 0): string {
  const [year, month, day] = date.split('-').map(Number) as [number, number, number]
  return new Date(year, month - 1, day + days).toISOString()
}

/** The API's query for the filters: dates become instants, `to` inclusive of its whole day. */
function apiQuery(filters: Filters, cursor: string | null, limit: number): string {
  const query = new URLSearchParams()
  for (const key of ['action', 'target', 'actor'] as const) if (filters[key]) query.set(key, filters[key])
  if (filters.from && DATE.test(filters.from)) query.set('from', localMidnight(filters.from))
  if (filters.to && DATE.test(filters.to)) query.set('to', localMidnight(filters.to, 1))
  if (cursor !== null) query.set('cursor', cursor)
  query.set('limit', String(limit))
  return query.toString()
}

/** Settings > Activity, for admins. */
export async function activityPage(): Promise<void> {
  const { canManageUsers, userId: me } = context()
  const content = $<HTMLElement>(document, '#content')
  if (!canManageUsers) {
    content.append(h('p', { class: 'readonly-note' }, 'Only admins of this account see its activity.'))
    return
  }
  const params = readQuery()
  const initial: Filters = {}
  for (const key of FILTER_KEYS) if (params.get(key)) initial[key] = params.get(key)!
  let older = Math.max(0, Math.trunc(Number(params.get('older'))) || 0)

  const [{ users }, { passcodes }] = await Promise.all([
    api<UserList>('GET', '/users').catch((): Pick<UserList, 'users'> => ({ users: [] })),
    api<PasscodeList>('GET', '/passcodes').catch((): Pick<PasscodeList, 'passcodes'> => ({ passcodes: [] })),
  ])
  const names = new Map(users.filter((user) => user.name).map((user) => [user.id, user.name!]))
  const filters = activityFilters(initial, users, passcodes, me)
  const shown = h('p', { class: 'shown', id: 'activity-shown', role: 'status' })
  const rows = h('tbody', {})
  const more = h('button', { type: 'button', id: 'activity-older', hidden: true }, 'Older')
  content.append(filters.form, shown, listTable(['When', 'What happened'], rows, 'activity'), h('div', { class: 'actions pager' }, more))

  let cursor: string | null = null
  let count = 0

  /** A link that filters the page by this person or passcode. */
  const link: FilterLink = (key, id, text) => {
    const next = readQuery()
    next.set(key, id)
    next.delete('older')
    const go = (event: Event) => {
      event.preventDefault()
      filters.pick(key, id)
      apply()
    }
    return h('a', { href: `?${next.toString()}`, onclick: go }, text)
  }

  const row = (record: AuditRecord) =>
    h(
      'tr',
      {},
      h('td', { 'data-label': 'When', class: 'when' }, time(record.at)),
      // One element: in the narrow layout a cell's children are flex items, which would break the sentence apart.
      h('td', { 'data-label': 'What happened', class: 'what' }, h('span', { class: 'sentence' }, sentence(record, names, me, link))),
    )

  /**
   * Loads `pages` pages of 25: the first ones when `fresh` (in place of the rows), else
   * those after the cursor (added under them), in as few requests as the API allows.
   */
  async function load(fresh: boolean, pages: number): Promise<HTMLTableRowElement[]> {
    const current = filters.read()
    const added: HTMLTableRowElement[] = []
    try {
      for (let wanted = pages * PAGE, first = fresh; wanted > 0 && (first || cursor !== null); first = false) {
        const page = await api<AuditPage>('GET', `/audit?${apiQuery(current, first ? null : cursor, Math.min(wanted, MOST))}`)
        added.push(...page.records.map(row))
        wanted -= page.records.length
        cursor = page.nextCursor
        if (page.records.length === 0) break
      }
    } catch (error) {
      if (!(error instanceof ApiError && error.code === 'ERR_AUDIT_BROKEN')) throw error
      unvouched(error.message)
      filters.update()
      writeQuery({ ...current, older }, { older: '0' })
      return []
    }
    count = (fresh ? 0 : count) + added.length
    const filtered = Object.keys(current).length > 0
    if (fresh) rows.replaceChildren(...(count === 0 ? [emptyRow(2, filtered ? 'No activity matches these filters.' : 'No activity yet.')] : added))
    else rows.append(...added)
    more.hidden = cursor === null
    filters.update()
    shown.textContent = count === 0 ? '' : `Showing ${count} ${count === 1 ? 'event' : 'events'}${cursor === null ? '' : ', newest first'}`
    writeQuery({ ...current, older }, { older: '0' })
    return added
  }

  /**
   * The server refused a page it cannot vouch for (SPEC §5.44: the stored trail was changed
   * outside this service, or is keyed under an audit key this server was not given): the
   * table says so in place of the records, none of which is shown, with the server's words
   * (which record, what broke); "Older" goes.
   */
  function unvouched(message: string): void {
    count = 0
    cursor = null
    more.hidden = true
    shown.textContent = ''
    rows.replaceChildren(
      h(
        'tr',
        {},
        h(
          'td',
          { colspan: 2, class: 'empty unvouched', id: 'activity-unvouched', role: 'alert' },
          h('strong', {}, 'This activity cannot be shown: the stored trail does not verify. '),
          message,
        ),
      ),
    )
  }

  function apply(): void {
    older = 0
    void run(null, () => load(true, 1))
  }
  for (const control of filters.form.querySelectorAll('select, input')) control.addEventListener('change', apply)
  $(filters.form, '#activity-clear').addEventListener('click', () => {
    filters.clear()
    apply()
  })
  more.addEventListener('click', () => {
    void run(more, async () => {
      older++
      const added = await load(false, 1)
      // The focus goes to the first older record (the button may be gone), as a reader continues.
      if (added[0] !== undefined) {
        added[0].tabIndex = -1
        added[0].focus()
      }
    })
  })
  await run(null, () => load(true, older + 1))
}
