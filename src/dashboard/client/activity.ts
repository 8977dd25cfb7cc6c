// Settings > Activity (SPEC §5.40): the account's audit trail, for admins, from
// `GET /audit`. Each record is told as a sentence ("Ana (admin) rotated passcode
// “Billing” — the old value works until 14:05"); the filters (action, passcode, person,
// dates) live in the page's URL; "Older" continues by cursor. Like the other pages, every
// string from the server goes in as text. A record holds no passcode value, hash or
// key, and the page shows none of its own chain hashes either.

/** A child as dashboard.ts's `h` takes it: text, an element, nothing, or a list of them. */
type Child = string | number | Node | null | undefined | false | readonly Child[]
type Attribute = string | number | boolean | null | undefined | ((event: Event) => unknown)

/**
 * What the page uses of dashboard.ts, handed over by it (this module imports nothing
 * from it, so the two do not import each other): the element builder, the API call, the
 * action runner that shows errors, and the time element of every page.
 */
export interface PageTools {
  readonly h: <K extends keyof HTMLElementTagNameMap>(
    tag: K,
    attributes?: Readonly<Record<string, Attribute>> | null,
    ...children: Child[]
  ) => HTMLElementTagNameMap[K]
  readonly api: <T>(method: string, path: string, body?: unknown) => Promise<T>
  readonly run: (button: HTMLButtonElement | null, action: () => Promise<unknown>) => Promise<void>
  readonly time: (iso: string | null | undefined) => Child
}

// Set by activityPage() before anything below runs.
let h: PageTools['h']

/** An audit record as `GET /audit` sends it. */
interface AuditRecord {
  readonly sequence: number
  readonly at: string
  readonly actor: { readonly type: 'user'; readonly userId: string; readonly role: 'admin' | 'member' } | { readonly type: 'system' }
  readonly action: string
  readonly target:
    | { readonly type: 'passcode'; readonly id: string; readonly name: string }
    | { readonly type: 'user'; readonly id: string }
    | { readonly type: 'account' }
  readonly changes: Readonly<Record<string, { readonly before: Value; readonly after: Value }>>
}
type Value = string | number | boolean | null | readonly string[]

interface AuditPage {
  readonly records: readonly AuditRecord[]
  readonly nextCursor: string | null
}

/** The actions the filter offers, as people name them. */
const ACTIONS: Readonly<Record<string, string>> = {
  'passcode.created': 'Passcode created',
  'passcode.updated': 'Passcode edited',
  'passcode.partners_changed': 'Partners changed',
  'passcode.rotated': 'Passcode rotated',
  'passcode.disabled': 'Passcode disabled',
  'passcode.enabled': 'Passcode enabled',
  'passcode.deleted': 'Passcode deleted',
  'passcode.leak_reported': 'Leak reported',
  'user_passcode.granted': 'User passcode granted',
  'user_passcode.reset': 'User passcode reset',
  'user_passcode.revoked': 'User passcode revoked',
  'user_passcode.revealed': 'User passcode viewed',
  'account.accepted_passcodes_changed': 'Accepted passcodes changed',
  'notification.sent': 'Notification sent',
  'notification.failed': 'Notification failed',
  'audit.pruned': 'Old records pruned',
}
const ACCEPTED: Readonly<Record<string, string>> = { account: 'account passcodes only', user: 'user passcodes only', both: 'both kinds' }
const FIELD_NAMES: Readonly<Record<string, string>> = { name: 'name', expiry: 'expiry', description: 'description', partners: 'partners' }
const NOTICES: Readonly<Record<string, string>> = { expiring_soon: 'expires soon', expired: 'has expired' }
const SHORT_TIME = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' })

/** The filters of the page, as its URL keeps them (`from` and `to` are local dates, `YYYY-MM-DD`). */
const FILTERS = ['action', 'target', 'actor', 'from', 'to'] as const
type Filters = Partial<Record<(typeof FILTERS)[number], string>>

const DATE = /^\d{4}-\d{2}-\d{2}$/

/** Local midnight of a `YYYY-MM-DD` date, `days` later, as the API's ISO 8601 time. */
function localMidnight(date: string, days = 0): string {
  const [year, month, day] = date.split('-').map(Number) as [number, number, number]
  return new Date(year, month - 1, day + days).toISOString()
}

/** The API's query for the filters: dates become instants, `to` inclusive of its whole day. */
function apiQuery(filters: Filters, cursor: string | null): string {
  const query = new URLSearchParams()
  if (filters.action) query.set('action', filters.action)
  if (filters.target) query.set('target', filters.target)
  if (filters.actor) query.set('actor', filters.actor)
  if (filters.from && DATE.test(filters.from)) query.set('from', localMidnight(filters.from))
  if (filters.to && DATE.test(filters.to)) query.set('to', localMidnight(filters.to, 1))
  if (cursor !== null) query.set('cursor', cursor)
  query.set('limit', '25')
  return query.toString()
}

/** An instant inside a sentence: the local time, with UTC on hover and in `datetime`. */
function inlineTime(ms: number): Child {
  const iso = new Date(ms).toISOString()
  return h('time', { datetime: iso, title: `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC` }, SHORT_TIME.format(new Date(ms)))
}

const quoted = (text: string): string => `“${text}”`

/** A field's value as words; instants (epoch ms) are not passed here. */
function valueText(field: string, value: Value): string {
  if (value === null) return field === 'partners' ? 'any whitelisted partner' : 'none'
  if (Array.isArray(value)) return value.join(', ')
  if (field === 'expiry') return value === 'forever' ? 'never expires' : `${String(value)} days`
  if (field === 'acceptedPasscodes') return ACCEPTED[String(value)] ?? String(value)
  return typeof value === 'string' ? quoted(value) : String(value)
}

/** Builds one record's sentence; `names` maps user IDs to the directory's names, `me` is the signed-in user. */
function sentence(
  record: AuditRecord,
  names: ReadonlyMap<string, string>,
  me: string,
  filterLink: (key: 'actor' | 'target', id: string, text: string) => Child,
): Child[] {
  const { actor, target, changes } = record
  const person = (userId: string) => (userId === me ? 'You' : names.get(userId) || userId)
  const who: Child =
    actor.type === 'user'
      ? [filterLink('actor', actor.userId, person(actor.userId)), ` (${actor.role})`]
      : record.action === 'passcode.leak_reported'
        ? 'The leak report'
        : 'The expiry notifier'
  const passcode: Child = target.type === 'passcode' ? ['passcode ', filterLink('target', target.id, quoted(target.name))] : 'the account'
  const holder = target.type === 'user' ? filterLink('target', target.id, person(target.id)) : ''
  const after = (field: string) => changes[field]?.after ?? null
  const edits = () =>
    Object.entries(changes)
      .filter(([field]) => field !== 'expiresAt')
      .map(([field, { before, after: now }]) =>
        field === 'description' ? 'a new description' : `${FIELD_NAMES[field] ?? field} ${valueText(field, before)} → ${valueText(field, now)}`,
      )
      .join('; ')

  switch (record.action) {
    case 'passcode.created': {
      const expiresAt = after('expiresAt')
      return [who, ' created ', passcode, typeof expiresAt === 'number' ? [', expiring ', inlineTime(expiresAt)] : ', which never expires']
    }
    case 'passcode.updated':
      return [who, ' edited ', passcode, edits() ? `: ${edits()}` : '']
    case 'passcode.partners_changed':
      return [
        who,
        ' changed the partners of ',
        passcode,
        ': ',
        valueText('partners', changes.partners?.before ?? null),
        ' → ',
        valueText('partners', after('partners')),
      ]
    case 'passcode.rotated': {
      const endsAt = after('previousValueEndsAt')
      return [
        who,
        ' rotated ',
        passcode,
        typeof endsAt === 'number' ? [' — the old value works until ', inlineTime(endsAt)] : ' — the old value stopped at once',
      ]
    }
    case 'passcode.disabled':
      return [who, ' disabled ', passcode, ': requests with it are refused']
    case 'passcode.enabled':
      return [who, ' enabled ', passcode, ' again']
    case 'passcode.deleted':
      return [who, ' deleted ', passcode]
    case 'passcode.leak_reported': {
      // SPEC §5.42: `action` says what was done (disabled, deleted or revoked), `url` and `source` where it was found.
      const url = after('url')
      const source = after('source')
      const done = after('action')
      const verb =
        done === 'deleted' || done === 'revoked' || done === 'disabled' ? ` ${done} ` : after('disabled') === true ? ' disabled ' : ' reported '
      return [
        who,
        verb,
        target.type === 'user' ? ['the user passcode of ', holder] : passcode,
        typeof url === 'string' && url !== '' ? `, found at ${url}` : '',
        typeof source === 'string' && source !== '' ? ` (reported by ${source})` : '',
      ]
    }
    case 'user_passcode.granted': {
      const validity = after('validity')
      return [
        who,
        ' granted a user passcode to ',
        holder,
        validity === 'infinite' ? ', with no expiry' : typeof validity === 'string' ? `, valid ${validity}` : '',
      ]
    }
    case 'user_passcode.reset':
      return [who, ' reset the user passcode of ', holder, ': the old value stopped at once']
    case 'user_passcode.revoked':
      return [who, ' revoked the user passcode of ', holder]
    case 'user_passcode.revealed':
      return actor.type === 'user' && target.type === 'user' && actor.userId === target.id
        ? [who, ' viewed their own user passcode']
        : [who, ' viewed the user passcode of ', holder]
    case 'account.accepted_passcodes_changed': {
      const { before, after: now } = changes.acceptedPasscodes ?? { before: null, after: null }
      return before === now
        ? [who, ' kept which passcodes the API accepts: ', valueText('acceptedPasscodes', now)]
        : [who, ' changed which passcodes the API accepts: ', valueText('acceptedPasscodes', before), ' → ', valueText('acceptedPasscodes', now)]
    }
    case 'notification.sent':
      return ['Notification sent: ', passcode, ` ${NOTICES[String(after('notification'))] ?? 'expires'}`]
    case 'notification.failed':
      return ['Notification about ', passcode, ' could not be sent', after('reason') ? ` (${String(after('reason'))})` : '']
    case 'audit.pruned': {
      // SPEC §5.44: the prune's own record, in the chain it shortened.
      const removed = after('removed')
      const through = after('through')
      return [`Pruning removed ${String(removed)} older record${removed === 1 ? '' : 's'}`, typeof through === 'number' ? ` (up to #${through})` : '']
    }
    default:
      return [who, ` did ${record.action} on `, target.type === 'user' ? holder : passcode]
  }
}

interface UserRow {
  readonly id: string
  readonly name?: string
  readonly passcode: unknown
}

/** Settings > Activity, with the tools of dashboard.ts. */
export async function activityPage(tools: PageTools): Promise<void> {
  h = tools.h
  const { api, run, time } = tools
  const main = document.getElementById('main')!
  const content = document.getElementById('content')!
  const me = main.dataset.userId ?? ''
  if (main.dataset.canManageUsers !== 'true') {
    content.append(h('p', { class: 'readonly-note' }, 'Only admins of this account see its activity.'))
    return
  }
  const params = new URLSearchParams(location.search)
  const filters: Filters = {}
  for (const key of FILTERS) {
    const value = params.get(key)
    if (value) filters[key] = value
  }

  const [{ users }, { passcodes }] = await Promise.all([
    api<{ users: UserRow[] }>('GET', '/users').catch(() => ({ users: [] as UserRow[] })),
    api<{ passcodes: { id: string; name: string }[] }>('GET', '/passcodes').catch(() => ({ passcodes: [] })),
  ])
  const names = new Map(users.filter((user) => user.name).map((user) => [user.id, user.name!]))

  const option = (value: string, text: string, current: string | undefined) => h('option', { value, selected: value === (current ?? '') }, text)
  /** The current value as an option even when the lists do not have it (a deleted passcode, a former user). */
  const withCurrent = (options: HTMLOptionElement[], current: string | undefined, text: (id: string) => string) =>
    current && !options.some((element) => element.value === current) ? [...options, option(current, text(current), current)] : options

  const action = h(
    'select',
    { id: 'activity-action', name: 'action' },
    option('', 'All actions', filters.action),
    Object.entries(ACTIONS).map(([value, text]) => option(value, text, filters.action)),
  )
  const target = h(
    'select',
    { id: 'activity-target', name: 'target' },
    withCurrent(
      [
        option('', 'All passcodes', filters.target),
        ...[...passcodes].sort((a, b) => a.name.localeCompare(b.name)).map((passcode) => option(passcode.id, quoted(passcode.name), filters.target)),
        ...users.filter((user) => user.passcode).map((user) => option(user.id, `User passcode of ${user.name || user.id}`, filters.target)),
      ],
      filters.target,
      (id) => `ID ${id}`,
    ),
  )
  const people = new Map<string, string>([[me, `You (${me})`]])
  for (const user of users) if (!people.has(user.id)) people.set(user.id, user.name ? `${user.name} (${user.id})` : user.id)
  const actor = h(
    'select',
    { id: 'activity-actor', name: 'actor' },
    withCurrent(
      [option('', 'Everyone', filters.actor), ...[...people].map(([id, text]) => option(id, text, filters.actor))],
      filters.actor,
      (id) => id,
    ),
  )
  const from = h('input', { type: 'date', id: 'activity-from', name: 'from', value: filters.from ?? '' })
  const to = h('input', { type: 'date', id: 'activity-to', name: 'to', value: filters.to ?? '' })
  const clear = h('button', { type: 'button', id: 'activity-clear' }, 'Clear filters')
  const shown = h('p', { class: 'shown', id: 'activity-shown', role: 'status' })
  const field = (id: string, label: string, control: HTMLElement) => h('div', { class: 'field' }, h('label', { for: id }, label), control)
  const finder = h(
    'form',
    { class: 'finder', id: 'activity-filters', role: 'search', 'aria-label': 'Filter activity' },
    field('activity-action', 'Action', action),
    field('activity-target', 'Passcode', target),
    field('activity-actor', 'Person', actor),
    field('activity-from', 'From', from),
    field('activity-to', 'To', to),
    clear,
    shown,
  )
  const rows = h('tbody', {})
  const table = h(
    'table',
    { 'aria-labelledby': 'page-title', class: 'activity' },
    h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'When'), h('th', { scope: 'col' }, 'What happened'))),
    rows,
  )
  const older = h('button', { type: 'button', id: 'activity-older', hidden: true }, 'Older')
  content.append(finder, table, h('div', { class: 'actions pager' }, older))

  let cursor: string | null = null
  let count = 0

  /** A link that filters the page by this person or passcode. */
  const filterLink = (key: 'actor' | 'target', id: string, text: string): Child => {
    const next = new URLSearchParams(location.search)
    next.set(key, id)
    return h(
      'a',
      {
        href: `?${next.toString()}`,
        onclick: (event: Event) => {
          event.preventDefault()
          const select = key === 'actor' ? actor : target
          if (![...select.options].some((element) => element.value === id)) select.append(option(id, key === 'actor' ? id : `ID ${id}`, id))
          select.value = id
          apply()
        },
      },
      text,
    )
  }

  function read(): Filters {
    const current: Filters = {}
    if (action.value) current.action = action.value
    if (target.value) current.target = target.value
    if (actor.value) current.actor = actor.value
    if (from.value) current.from = from.value
    if (to.value) current.to = to.value
    return current
  }

  function row(record: AuditRecord): HTMLTableRowElement {
    return h(
      'tr',
      {},
      h('td', { 'data-label': 'When', class: 'when' }, time(record.at)),
      // One element: in the narrow layout a cell's children are flex items, which would break the sentence apart.
      h('td', { 'data-label': 'What happened', class: 'what' }, h('span', { class: 'sentence' }, sentence(record, names, me, filterLink))),
    )
  }

  async function load(more: boolean): Promise<void> {
    const current = read()
    const page = await api<AuditPage>('GET', `/audit?${apiQuery(current, more ? cursor : null)}`)
    if (!more) count = 0
    count += page.records.length
    const filtered = Object.keys(current).length > 0
    const empty =
      count === 0 ? [h('tr', {}, h('td', { colspan: 2, class: 'empty' }, filtered ? 'No activity matches these filters.' : 'No activity yet.'))] : []
    const added = page.records.map(row)
    if (more) rows.append(...added)
    else rows.replaceChildren(...empty, ...added)
    // After Older, the focus goes to the first older record (the button may be gone), as a reader continues.
    if (more && added[0] !== undefined) {
      added[0].tabIndex = -1
      added[0].focus()
    }
    cursor = page.nextCursor
    older.hidden = cursor === null
    clear.hidden = !filtered
    shown.textContent = count === 0 ? '' : `Showing ${count} ${count === 1 ? 'event' : 'events'}${cursor === null ? '' : ', newest first'}`
  }

  function apply(): void {
    const next = new URLSearchParams()
    for (const [key, value] of Object.entries(read())) next.set(key, value)
    const text = next.toString()
    history.replaceState(null, '', text ? `?${text}` : location.pathname)
    void run(null, () => load(false))
  }

  finder.addEventListener('submit', (event) => event.preventDefault())
  for (const control of [action, target, actor, from, to]) control.addEventListener('change', apply)
  clear.addEventListener('click', () => {
    action.value = ''
    target.value = ''
    actor.value = ''
    from.value = ''
    to.value = ''
    apply()
  })
  older.addEventListener('click', () => void run(older, () => load(true)))
  await run(null, () => load(false))
}
