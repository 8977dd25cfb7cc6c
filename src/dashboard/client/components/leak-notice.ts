// The leak notices (SPEC §5.42): a passcode whose value was found in public shows a mark
// on its row, and its page a banner that says which, where they were found and what to
// do, until an admin acts: on Passcodes, enables, rotates or deletes each account
// passcode; on Users, grants each user a new passcode (the leak revoked the old one).
// The member's own page says theirs was found and revoked. Everything from the server
// goes in as text, never as HTML; a URL is shown, not linked (it names a public place
// the reporter chose, not one of ours).

/** Where a passcode's value was found, as `GET /passcodes` and `GET /users` send it (SPEC §5.42). */
export interface Leak {
  readonly reportedAt: string
  readonly url: string | null
  readonly source: string
}

/** What a row mark needs of a passcode, account or user. */
export interface MaybeLeaked {
  readonly leak?: Leak | null
}

/** What the Passcodes banner needs of an account passcode. */
export interface LeakedPasscode extends MaybeLeaked {
  readonly name: string
  readonly hint: string
}

/** What the Users banner needs of a user: who, and their passcode. */
export interface LeakedUser {
  readonly id: string
  readonly name?: string
  readonly passcode: MaybeLeaked | null
}

type Child = Node | string | null | undefined

function element(tag: string, attributes: Readonly<Record<string, string>>, ...children: Child[]): HTMLElement {
  const node = document.createElement(tag)
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value)
  for (const child of children) if (child !== null && child !== undefined) node.append(child)
  return node
}

const DAY = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeZone: 'UTC' })

/** "found by github, at https://…" for one leak. */
function where(leak: Leak): Child[] {
  return [
    'found by ',
    element('span', { class: 'leak-source', dir: 'auto' }, leak.source),
    leak.url === null ? null : ' at ',
    leak.url === null ? null : element('span', { class: 'leak-url', dir: 'auto' }, leak.url),
    ' on ',
    element('time', { datetime: leak.reportedAt }, DAY.format(new Date(leak.reportedAt))),
  ]
}

const byName = (a: string, b: string): number => a.localeCompare(b, undefined, { numeric: true, sensitivity: 'base' })

/**
 * A banner over a page's table. A region with its own heading (not an alert: it is there
 * on every load until an admin acts).
 */
function banner(title: string, items: readonly Child[][], todo: string): HTMLElement {
  return element(
    'section',
    { class: 'leak-banner', id: 'leak-banner', role: 'region', 'aria-labelledby': 'leak-title' },
    element('h3', { id: 'leak-title' }, title),
    element('ul', {}, ...items.map((item) => element('li', {}, ...item))),
    element('p', { class: 'leak-todo' }, element('strong', {}, 'What to do: '), todo),
  )
}

/** The Passcodes page's banner, or `null` when no account passcode has an open leak mark. */
export function leakBanner(passcodes: readonly LeakedPasscode[], canManage: boolean): HTMLElement | null {
  const leaked = passcodes.filter((passcode) => passcode.leak).sort((a, b) => byName(a.name, b.name))
  if (leaked.length === 0) return null
  const count = leaked.length === 1 ? '1 passcode was' : `${leaked.length} passcodes were`
  const todo = canManage
    ? 'Rotate each one (Rotate gives it a new value, and the public one never works again), enable it, and give the new value to the partners that use it; or delete it if nothing needs it. Enabling it without rotating puts its public value back in service.'
    : 'Ask an admin of this account to rotate or delete each one.'
  return banner(
    `${count} found in public and disabled`,
    leaked.map((passcode) => [
      element('strong', { dir: 'auto' }, passcode.name),
      ' ',
      element('code', {}, passcode.hint),
      ': ',
      ...where(passcode.leak!),
    ]),
    todo,
  )
}

/**
 * The Users page's banner, or `null` when no user passcode has an open leak mark. Its
 * own page's, not the Passcodes banner's: what to do (grant) is done here, and the
 * account passcodes' advice (rotate, enable) does not apply to a revoked user passcode.
 */
export function userLeakBanner(users: readonly LeakedUser[], canManage: boolean): HTMLElement | null {
  const who = (user: LeakedUser): string => user.name || user.id
  const leaked = users.filter((user) => user.passcode?.leak).sort((a, b) => byName(who(a), who(b)))
  if (leaked.length === 0) return null
  const count = leaked.length === 1 ? '1 user passcode was' : `${leaked.length} user passcodes were`
  const todo = canManage
    ? 'Grant each user a new passcode (Grant Passcode on their row): the public value never works again, and the user sees the new one on their own Settings page.'
    : 'Ask an admin of this account to grant each user a new passcode.'
  return banner(
    `${count} found in public and revoked`,
    leaked.map((user) => [
      element('strong', { dir: 'auto' }, who(user)),
      user.name ? ' ' : null,
      user.name ? element('span', { class: 'mono', dir: 'auto' }, user.id) : null,
      ': ',
      ...where(user.passcode!.leak!),
    ]),
    todo,
  )
}

/**
 * The mark on a leaked passcode's row (Passcodes and Users): words, not a colour alone,
 * where and when, and `todo` (what to do about it) when given; `null` for one not leaked.
 */
export function leakMark(passcode: MaybeLeaked, todo?: string): HTMLElement | null {
  const { leak } = passcode
  if (!leak) return null
  return element(
    'span',
    { class: 'leak-mark' },
    element('span', { class: 'badge leaked' }, 'Found in public'),
    element('span', { class: 'leak-where' }, ...where(leak)),
    todo === undefined ? null : element('span', { class: 'leak-where leak-next' }, todo),
  )
}

/** The member's own page when their passcode was found in public: what happened, where, and whom to ask. */
export function ownLeakNotice(leak: Leak): HTMLElement {
  return element(
    'div',
    { class: 'leak-banner', id: 'leak-banner', role: 'region', 'aria-labelledby': 'leak-title' },
    element('h3', { id: 'leak-title' }, 'Your passcode was found in public and revoked'),
    element('p', {}, 'Its value was ', ...where(leak), '. It no longer works, so nobody can call the API as you with it.'),
    element('p', { class: 'leak-todo' }, element('strong', {}, 'What to do: '), 'ask an admin of this account to grant you a new passcode.'),
  )
}
