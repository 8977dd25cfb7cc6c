// The leak banner and row mark of the Passcodes page (SPEC §5.42): a passcode whose
// value was found in public shows a mark on its row, and the page a banner that says
// which, where they were found and what to do, until an admin enables, rotates or
// deletes each. Everything from the server goes in as text, never as HTML; a URL is
// shown, not linked (it names a public place the reporter chose, not one of ours).

/** Where a passcode's value was found, as `GET /passcodes` sends it (SPEC §5.42). */
export interface Leak {
  readonly reportedAt: string
  readonly url: string | null
  readonly source: string
}

/** What the banner needs of a passcode. */
export interface LeakedPasscode {
  readonly name: string
  readonly hint: string
  readonly leak?: Leak | null
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

/**
 * The banner over the table, or `null` when no passcode has an open leak mark. A region
 * with its own heading (not an alert: it is there on every load until an admin acts).
 */
export function leakBanner(passcodes: readonly LeakedPasscode[], canManage: boolean): HTMLElement | null {
  const leaked = passcodes
    .filter((passcode) => passcode.leak)
    .sort((a, b) => a.name.localeCompare(b.name, undefined, { numeric: true, sensitivity: 'base' }))
  if (leaked.length === 0) return null
  const count = leaked.length === 1 ? '1 passcode was' : `${leaked.length} passcodes were`
  const todo = canManage
    ? 'Rotate each one (Rotate gives it a new value, and the public one never works again), enable it, and give the new value to the partners that use it; or delete it if nothing needs it. Enabling it without rotating puts its public value back in service.'
    : 'Ask an admin of this account to rotate or delete each one.'
  return element(
    'section',
    { class: 'leak-banner', id: 'leak-banner', role: 'region', 'aria-labelledby': 'leak-title' },
    element('h3', { id: 'leak-title' }, `${count} found in public and disabled`),
    element(
      'ul',
      {},
      ...leaked.map((passcode) =>
        element('li', {}, element('strong', { dir: 'auto' }, passcode.name), ' ', element('code', {}, passcode.hint), ': ', ...where(passcode.leak!)),
      ),
    ),
    element('p', { class: 'leak-todo' }, element('strong', {}, 'What to do: '), todo),
  )
}

/** The mark on a leaked passcode's row: words, not a colour alone; `null` for one not leaked. */
export function leakMark(passcode: LeakedPasscode): HTMLElement | null {
  const { leak } = passcode
  if (!leak) return null
  return element(
    'span',
    { class: 'leak-mark' },
    element('span', { class: 'badge leaked' }, 'Found in public'),
    element('span', { class: 'leak-where' }, ...where(leak)),
  )
}
