// passcode-auth dashboard: the Settings > Passcodes, Users and own-passcode pages.
// Browser TypeScript, no framework, bundled and minified by esbuild at build time
// (`npm run dashboard:assets`). Every string from the server is put into the page as
// text (textContent, attribute values), never as HTML, so a passcode named
// <img src=x onerror=alert(1)> shows as those characters. The CSP of the page allows
// this file and nothing inline.

import { activityPage } from './activity'
import { confirmAction } from './confirm-dialog'
import { leakBanner, leakMark, ownLeakNotice, userLeakBanner, type Leak } from './leak-notice'
import { unusedFor, usageDetails, type PasscodeUsage } from './usage-chart'

/** A status as the management API sends it (SPEC §5.38 adds `disabled`). */
type Status = 'active' | 'expiring_soon' | 'expired' | 'revoked' | 'disabled'
/** Which passcodes the account accepts. */
type Accepted = 'account' | 'user' | 'both'

/** An account passcode as `GET /passcodes` sends it (times as ISO strings). */
interface Passcode {
  readonly id: string
  readonly name: string
  readonly hint: string
  readonly description?: string
  readonly expiry: number | 'forever'
  readonly createdAt: string
  readonly expiresAt: string | null
  readonly status: Status
  readonly partners: readonly string[] | null
  readonly partnersNotWhitelisted?: readonly string[]
  readonly previousValueEndsAt?: string | null
  readonly lastUsedAt: string | null
  readonly lastUsedPartner: string | null
  /** Where its value was found in public, until an admin enables, rotates or deletes it (SPEC §5.42). */
  readonly leak?: Leak | null
}

/** A user passcode as the management API sends it. */
interface UserPasscode {
  readonly hint: string
  readonly validity: { readonly type: 'finite'; readonly days: number } | { readonly type: 'infinite' }
  readonly expiresAt: string
  readonly status: Status
  readonly lastUsedAt: string | null
  /** Where its value was found in public (the leak revoked it), until an admin grants a new one (SPEC §5.42). */
  readonly leak?: Leak | null
}

/** A row of `GET /users`. */
interface User {
  readonly id: string
  readonly name?: string
  readonly email?: string
  readonly passcode: UserPasscode | null
}

/** A passcode value shown once. */
interface Issued<T> {
  readonly passcode: T
  readonly value: string
}

const main = document.getElementById('main')!
const API = main.dataset.api ?? ''
const ME = main.dataset.userId ?? ''
const CAN_MANAGE_PASSCODES = main.dataset.canManagePasscodes === 'true'
const CAN_MANAGE_USERS = main.dataset.canManageUsers === 'true'
const BASE = main.dataset.base ?? ''
/** The most account passcodes an account may have (SPEC §2, MAX_ACCOUNT_PASSCODES). */
const MAX_PASSCODES = 100

// ---------------------------------------------------------------- small helpers

/** An attribute value: `true` sets it empty, `false`, `null` and `undefined` leave it out; `on…` takes a listener. */
type Attribute = string | number | boolean | null | undefined | ((event: Event) => unknown)
/** A child: text, an element, nothing, or a list of them. */
type Child = string | number | Node | null | undefined | false | readonly Child[]

/** Creates an element; strings among the children become text nodes. */
function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes?: Readonly<Record<string, Attribute>> | null,
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag)
  for (const [name, value] of Object.entries(attributes ?? {})) {
    if (value === undefined || value === null || value === false) continue
    if (typeof value === 'function') element.addEventListener(name.slice(2), value)
    else if (value === true) element.setAttribute(name, '')
    else element.setAttribute(name, String(value))
  }
  for (const child of children.flat(Infinity as 1) as Exclude<Child, readonly Child[]>[]) {
    if (child === undefined || child === null || child === false) continue
    element.append(child instanceof Node ? child : document.createTextNode(String(child)))
  }
  return element
}

/** An error answer of the management API: `{ error: { code, message, field? } }`. */
class ApiError extends Error {
  readonly status: number
  readonly code: string | undefined
  readonly field: string | undefined
  constructor(status: number, error: { code?: string; message?: string; field?: string } | null | undefined) {
    super(error && typeof error.message === 'string' ? error.message : `The server answered ${status}`)
    this.status = status
    this.code = error?.code
    this.field = error?.field
  }
}

/** An input the page refuses before sending anything: shown as the API's field errors are. */
class FieldError extends Error {
  readonly field: string
  readonly code = undefined
  constructor(field: string, message: string) {
    super(message)
    this.field = field
  }
}

// A user ID as the server checks it (SPEC §5.4, isVisibleAscii in src/core/rules.ts):
// 1 to 256 visible ASCII characters. The message is the API's own for it.
const USER_ID = /^[\x21-\x7E]{1,256}$/
const USER_ID_MESSAGE = 'Invalid userId: must be 1 to 256 visible ASCII characters'

/** Calls the management API; an error answer throws an {@link ApiError}. */
async function api<T = unknown>(method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' }
  const init: RequestInit = { method, headers, credentials: 'same-origin', cache: 'no-store' }
  if (body !== undefined) {
    headers['content-type'] = 'application/json'
    init.body = JSON.stringify(body)
  }
  const response = await fetch(API + path, init)
  if (response.status === 204) return null as T
  const data = (await response.json().catch(() => null)) as { error?: { code?: string; message?: string; field?: string } } | null
  if (!response.ok) throw new ApiError(response.status, data?.error)
  return data as T
}

const notice = document.getElementById('notice')!
const announcer = document.getElementById('announcer')!

function errorMessage(error: unknown): string {
  return error instanceof ApiError || error instanceof FieldError ? error.message : 'Something went wrong. Try again.'
}
/** Shows an error at the top of the page; it replaces any earlier message. */
function showError(error: unknown): void {
  clearMessages()
  if (error instanceof ApiError && error.status === 401) {
    notice.append('Your session has ended. ', h('a', { href: `${BASE}/` }, 'Sign in again'), '.')
    return
  }
  notice.textContent = errorMessage(error)
}
let announcement = 0
/** Clears every message of the page: each new one replaces the last. */
function clearMessages() {
  notice.replaceChildren()
  announcer.textContent = ''
  announcement++
  for (const element of main.querySelectorAll('.form-error')) element.remove()
}
function clearError() {
  notice.replaceChildren()
}
function announce(text: string): void {
  clearMessages()
  const mine = announcement
  // A fresh text node makes screen readers read the same message twice in a row too.
  setTimeout(() => {
    if (mine === announcement) announcer.textContent = text
  }, 50)
}

let fieldErrorCount = 0
/** The name a person sees for a field: its label, or its group's legend. */
function labelOf(target: HTMLElement): string | null {
  const label = 'labels' in target ? (target as HTMLInputElement).labels?.[0] : undefined
  const text = target.getAttribute('aria-label') || label?.textContent || target.querySelector('legend')?.textContent
  return text ? text.trim() : null
}
/** An API message "Invalid <field>: why" told with the field's label: "<Label>: why". */
function labelledMessage(target: HTMLElement, field: string, message: string): string {
  const label = labelOf(target)
  const prefix = `Invalid ${field}: `
  return label && message.startsWith(prefix) ? `${label}: ${message.slice(prefix.length)}` : message
}
/** Marks the field invalid and shows `message` under it, as its description; moves the focus to it. */
function showFieldError(target: HTMLElement, message: string): void {
  const id = `field-error-${++fieldErrorCount}`
  ;(target.closest('.field, fieldset') ?? target.parentElement)?.append(h('p', { class: 'field-error', id, role: 'alert' }, message))
  target.setAttribute('aria-invalid', 'true')
  // The error first, then what described the field before (a hint), restored when the error goes.
  const before = target.getAttribute('aria-describedby')
  if (before !== null) target.dataset.describedby = before
  target.setAttribute('aria-describedby', before === null ? id : `${id} ${before}`)
  target.focus()
}
function clearFieldErrors(form: HTMLElement): void {
  for (const input of form.querySelectorAll<HTMLElement>('[aria-invalid]')) {
    input.removeAttribute('aria-invalid')
    if (input.dataset.describedby === undefined) input.removeAttribute('aria-describedby')
    else input.setAttribute('aria-describedby', input.dataset.describedby)
  }
  for (const note of form.querySelectorAll('.field-error')) note.remove()
}

/**
 * Runs an action from a button or form, with the button disabled meanwhile. An error
 * shows in the notice; one that names a field of the form (from the API, or a
 * FieldError the page raised before sending) shows under that field too.
 */
async function run(button: HTMLButtonElement | null, action: () => Promise<unknown>, form?: HTMLFormElement): Promise<void> {
  clearError()
  if (form) clearFieldErrors(form)
  if (button) button.disabled = true
  try {
    await action()
  } catch (error) {
    const known = error instanceof ApiError || error instanceof FieldError
    const field = known ? error.field || CODE_FIELDS[error.code ?? ''] : undefined
    const target = form && field ? fieldTarget(form, field) : null
    // Once, where it belongs: under its field, else in the open form, else at the top of the page.
    if (target) {
      clearMessages()
      showFieldError(target, labelledMessage(target, field!, errorMessage(error)))
    } else if (form && known && !(error instanceof ApiError && error.status === 401)) {
      clearMessages()
      form.querySelector('.actions')?.before(h('p', { class: 'form-error', role: 'alert' }, errorMessage(error)))
    } else showError(error)
  } finally {
    if (button?.isConnected) button.disabled = false
  }
}

const ACCEPTED_LABELS: Readonly<Record<Accepted, string>> = { account: 'Account passcodes only', user: 'User passcodes only', both: 'Both' }
/** Whether the account's setting lets a passcode of this kind ('account' or 'user') authenticate. */
function accepts(accepted: Accepted, kind: 'account' | 'user'): boolean {
  return accepted === 'both' || accepted === kind
}
/** Whether a passcode of this status would authenticate, the account's setting aside. */
function works(status: Status): boolean {
  return status === 'active' || status === 'expiring_soon'
}
/**
 * The status of a passcode the account does not accept: what a request meets (400), said
 * in the row, with the way to the setting that changes it.
 */
function notAccepted(kind: 'account' | 'user'): Child {
  return [
    h('span', { class: 'badge not_accepted' }, 'Not accepted'),
    h(
      'p',
      { class: 'why' },
      `This account accepts only ${kind === 'account' ? 'user' : 'account'} passcodes: requests with this one are refused. `,
      h('a', { href: `${BASE}/users#accepted-passcodes` }, 'Change which passcodes the API accepts'),
    ),
  ]
}

const STATUS_LABELS: Readonly<Record<string, string>> = {
  active: 'Active',
  expiring_soon: 'Expiring soon',
  expired: 'Expired',
  revoked: 'Revoked',
  disabled: 'Disabled',
}
function badge(status: Status | null): HTMLElement {
  return h('span', { class: `badge ${status || 'none'}` }, (status && STATUS_LABELS[status]) || 'None')
}
const LOCAL_TIME = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' })
const RELATIVE_TIME = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' })
const UNITS: readonly (readonly [Intl.RelativeTimeFormatUnit, number])[] = [
  ['year', 365 * 86_400_000],
  ['month', 30 * 86_400_000],
  ['day', 86_400_000],
  ['hour', 3_600_000],
  ['minute', 60_000],
]
/** "in 3 months", "5 minutes ago", "just now": the largest unit that fits at least once (days up to 60). */
function relative(ms: number): string {
  const diff = ms - Date.now()
  const size = Math.abs(diff)
  if (size < 60_000) return 'just now'
  for (const [unit, length] of UNITS) {
    if (unit === 'month' && size < 60 * 86_400_000) continue
    if (size >= length) return RELATIVE_TIME.format(Math.round(diff / length), unit)
  }
  return 'just now'
}
/**
 * A time as people read it: relative ("in 3 months") and in their own time zone, with the
 * UTC time on hover and in `datetime`.
 */
function time(iso: string | null | undefined): Child {
  if (!iso) return ''
  const at = new Date(iso)
  return h(
    'time',
    { datetime: iso, title: `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC` },
    relative(at.getTime()),
    ' ',
    h('span', { class: 'local' }, LOCAL_TIME.format(at)),
  )
}
/**
 * A row's last use: when and through which partner, how long unused (what people check
 * before deleting one: SPEC §5.41), and the 30-day usage chart on demand from `usagePath`.
 */
function lastUse(name: string, at: string | null, partner: string | null, usagePath: string): Child {
  const unused = unusedFor(at)
  return h(
    'div',
    {},
    at ? [time(at), partner ? h('span', { class: 'muted' }, ` (${partner})`) : null] : null,
    unused ? h('span', { class: 'unused' }, unused) : null,
    usageDetails(name, async () => (await api<{ usage: PasscodeUsage }>('GET', usagePath)).usage),
  )
}
function cell(label: string, ...children: Child[]): HTMLTableCellElement {
  return h('td', { 'data-label': label }, ...children)
}

/** The element the page itself put there (a form's own input, a region of the page). */
// eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters -- the caller names the element it put there
function $<T extends Element = HTMLInputElement>(root: ParentNode, selector: string): T {
  return root.querySelector<T>(selector)!
}

/** The field that an error without `field` is about. */
const CODE_FIELDS: Readonly<Record<string, string>> = { ERR_DUPLICATE_NAME: 'name', ERR_ALREADY_GRANTED: 'userId' }

/** The input of a form that an API field name points at (`validity.days` → `validity`). */
function fieldTarget(form: HTMLElement, field: string): HTMLElement | null {
  return form.querySelector(`[data-field="${CSS.escape(field.split('.')[0] ?? field)}"]`)
}

/**
 * A form that ends with its actions: the submit button (primary unless `primary` is
 * false) and, when `onCancel` is given, Cancel. Submitting runs `action` through run(),
 * so errors show and point at their field.
 */
function actionForm(
  attributes: Readonly<Record<string, Attribute>>,
  children: Child,
  { submit, primary = true, onCancel, action }: { submit: string; primary?: boolean; onCancel?: () => unknown; action: () => Promise<unknown> },
): HTMLFormElement {
  const form = h(
    'form',
    { ...attributes, novalidate: true },
    children,
    h(
      'div',
      { class: 'actions' },
      h('button', { type: 'submit', class: primary ? 'primary' : undefined }, submit),
      onCancel ? h('button', { type: 'button', onclick: onCancel }, 'Cancel') : null,
    ),
  )
  form.addEventListener('submit', (event) => {
    event.preventDefault()
    void run(form.querySelector('button[type="submit"]'), action, form)
  })
  // Back to the defaults after reset(): the radios change without a change event, so tell the inputs that follow them.
  form.addEventListener('reset', () => {
    clearFieldErrors(form)
    queueMicrotask(() => {
      for (const radio of form.querySelectorAll('input[type="radio"]')) radio.dispatchEvent(new Event('change', { bubbles: true }))
    })
  })
  if (onCancel)
    form.addEventListener('keydown', (event) => {
      if (event.key === 'Escape') onCancel()
    })
  return form
}

/** A button that asks `question` in a confirm dialog whose button says `confirm`, then runs `action`. */
function confirmButton(
  text: string,
  {
    label,
    danger = false,
    question,
    confirm,
    action,
  }: { label: string; danger?: boolean; question: string; confirm: string; action: () => Promise<unknown> },
): HTMLButtonElement {
  const onclick = async (event: Event) => {
    const button = event.currentTarget as HTMLButtonElement
    if (await confirmAction({ question, confirm, danger })) await run(button, action)
  }
  return h('button', { type: 'button', class: danger ? 'danger' : undefined, 'aria-label': label, onclick }, text)
}

/** Puts a form in place of a table row's cells and moves the focus into it. */
function openRowForm(row: HTMLTableRowElement, columnCount: number, form: HTMLElement, focus: HTMLElement): void {
  row.replaceChildren(h('td', { colspan: columnCount }, form))
  row.className = 'row-form'
  focus.focus()
}

// ---------------------------------------------------------------- value shown once

const revealSlot = document.getElementById('reveal-slot')!

/** Shows a passcode value once, with a copy button; Done removes it from the page. */
function revealValue(title: string, value: string, warning: string): void {
  revealSlot.replaceChildren()
  const input = h('input', { class: 'value', readonly: true, value, 'aria-label': 'Passcode value', spellcheck: 'false', autocomplete: 'off' })
  const copied = h('span', { role: 'status', class: 'muted' })
  const copy = h(
    'button',
    {
      type: 'button',
      class: 'primary',
      onclick: async () => {
        try {
          await navigator.clipboard.writeText(input.value)
          copied.textContent = 'Copied.'
        } catch {
          input.select()
          copied.textContent = 'Press Ctrl+C (⌘C on a Mac) to copy.'
        }
      },
    },
    'Copy',
  )
  const done = h(
    'button',
    {
      type: 'button',
      onclick: () => {
        revealSlot.replaceChildren()
        $<HTMLElement>(main, 'h2').focus()
      },
    },
    'Done',
  )
  const panel = h(
    'section',
    { class: 'panel reveal', role: 'region', 'aria-labelledby': 'reveal-title' },
    h('h3', { id: 'reveal-title', tabindex: '-1' }, title),
    warning ? h('p', { class: 'warning' }, warning) : null,
    h('div', { class: 'value-row' }, input, copy, done, copied),
  )
  revealSlot.append(panel)
  input.focus()
  input.select()
}

// ---------------------------------------------------------------- Passcodes page

function expiryFieldset(idPrefix: string, current?: number | 'forever'): HTMLFieldSetElement {
  const forever = current === 'forever'
  const days = h('input', {
    type: 'number',
    name: 'days',
    id: `${idPrefix}-days`,
    min: 1,
    max: 3650,
    step: 1,
    value: typeof current === 'number' ? current : 90,
    inputmode: 'numeric',
    'aria-label': 'Number of days',
    'data-field': 'expiry',
    disabled: forever,
    required: true,
  })
  const radios = [
    h('input', { type: 'radio', name: 'expiry-kind', value: 'days', checked: !forever }),
    h('input', { type: 'radio', name: 'expiry-kind', value: 'forever', checked: forever }),
  ]
  const soon = soonNote(days, `${idPrefix}-soon`)
  for (const radio of radios) radio.addEventListener('change', () => (days.disabled = radios[1]!.checked))
  return h('fieldset', {}, h('legend', {}, 'Expiry'), h('label', {}, radios[0], 'Days'), days, h('label', {}, radios[1], 'Forever'), soon)
}

/**
 * The note a days input carries while 30 days or fewer are chosen: such a passcode is
 * "Expiring soon" from the start (SPEC §2).
 */
function soonNote(days: HTMLInputElement, id: string): HTMLElement {
  const note = h('p', { class: 'hint', id, 'aria-live': 'polite' })
  const update = () => {
    const value = Number(days.value)
    note.textContent =
      !days.disabled && Number.isInteger(value) && value >= 1 && value <= 30 ? '30 days or fewer: it shows as “Expiring soon” from the start.' : ''
  }
  days.setAttribute('aria-describedby', id)
  days.addEventListener('input', update)
  // A radio or a reset changes the input without an input event: look again after each change in the group.
  queueMicrotask(() => days.closest('fieldset')?.addEventListener('change', () => queueMicrotask(update)))
  return note
}

function readExpiry(form: HTMLElement): number | string {
  if ($(form, 'input[name="expiry-kind"][value="forever"]').checked) return 'forever'
  const text = $(form, 'input[name="days"]').value.trim()
  return /^\d+$/.test(text) ? Number(text) : text
}

/** Checkboxes of the whitelisted partners; none checked means "every partner". */
function partnersFieldset(names: readonly string[], current?: readonly string[] | null): HTMLElement | null {
  if (names.length === 0) return null
  const bound = new Set(current || [])
  return h(
    'fieldset',
    { 'data-field': 'partners' },
    h('legend', {}, 'Partners (none checked: every whitelisted partner)'),
    names.map((name) => h('label', {}, h('input', { type: 'checkbox', name: 'partner', value: name, checked: bound.has(name) }), name)),
  )
}

/** The checked partners, or null when none is checked (unbound). */
function readPartners(form: HTMLElement): string[] | null {
  const checked = [...form.querySelectorAll<HTMLInputElement>('input[name="partner"]:checked')].map((input) => input.value)
  return checked.length === 0 ? null : checked
}

function partnersCell(passcode: Passcode): Child {
  if (!passcode.partners) return h('span', { class: 'muted' }, 'Any')
  const stale = passcode.partnersNotWhitelisted || []
  return [passcode.partners.join(', '), stale.length > 0 ? h('span', { class: 'muted' }, ` (no longer whitelisted: ${stale.join(', ')})`) : null]
}

/** The status filter's choices: the statuses a request would meet. */
const FILTERS: Readonly<Record<string, string>> = {
  '': 'All',
  active: 'Active',
  expiring_soon: 'Expiring soon',
  expired: 'Expired',
  disabled: 'Disabled',
  not_accepted: 'Not accepted by this account',
}
type Compare = (a: Passcode, b: Passcode) => number
const byName: Compare = (a, b) => a.name.localeCompare(b.name, undefined, { numeric: true, sensitivity: 'base' })
/** Compares two times, the missing one (never) last, then by name. */
const byTime =
  (key: 'createdAt' | 'expiresAt' | 'lastUsedAt', direction: 1 | -1): Compare =>
  (a, b) => {
    const x = a[key] ? Date.parse(a[key]) : null
    const y = b[key] ? Date.parse(b[key]) : null
    if (x === y) return byName(a, b)
    if (x === null) return 1
    if (y === null) return -1
    return direction * (x - y) || byName(a, b)
  }
/** The sort choices: name A–Z, newest first, soonest expiry first, most recent use first. */
const SORTS: Readonly<Record<string, { readonly label: string; readonly compare: Compare }>> = {
  name: { label: 'Name', compare: byName },
  created: { label: 'Created (newest first)', compare: byTime('createdAt', -1) },
  expiry: { label: 'Expiry (soonest first)', compare: byTime('expiresAt', 1) },
  used: { label: 'Last used (most recent first)', compare: byTime('lastUsedAt', -1) },
}

/** A description (0 to 500 characters, SPEC §5.39), optional. */
function descriptionField(id: string, current: string): HTMLElement {
  return h(
    'div',
    { class: 'field description-field' },
    h('label', { for: id }, 'Description (optional)'),
    h('textarea', { id, name: 'description', rows: 2, 'data-field': 'description' }, current),
  )
}

/** `GET /account`. */
interface AccountAnswer {
  readonly account: { readonly acceptedPasscodes: Accepted }
}

async function passcodesPage(): Promise<void> {
  const section = $<HTMLElement>(document, '#content')
  const rows = h('tbody', {})
  const [{ partners: partnerNames }, { account }] = await Promise.all([
    api<{ partners: string[] }>('GET', '/partners').catch(() => ({ partners: [] as string[] })),
    api<AccountAnswer>('GET', '/account').catch((): AccountAnswer => ({ account: { acceptedPasscodes: 'both' } })),
  ])
  const accepted = account.acceptedPasscodes
  const count = h('p', { class: 'count', id: 'passcode-count' })
  $(document, '.toolbar h2').after(count)
  let showCap = (_full: boolean): void => {}
  const columns = ['Name', 'Status', 'Passcode', 'Expires', 'Partners', 'Last used']
  if (CAN_MANAGE_PASSCODES) columns.push('Actions')
  const table = h(
    'table',
    { 'aria-labelledby': 'page-title' },
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        columns.map((name) => h('th', { scope: 'col' }, name)),
      ),
    ),
    rows,
  )

  if (CAN_MANAGE_PASSCODES) {
    // No maxlength: a pasted name is not cut silently; the API's refusal names the field and the limit.
    const name = h('input', { id: 'create-name', name: 'name', required: true, autocomplete: 'off', 'data-field': 'name' })
    const createForm: HTMLFormElement = actionForm(
      { class: 'panel', id: 'create-form', hidden: true, 'aria-labelledby': 'create-title' },
      [
        h('h3', { id: 'create-title' }, 'New passcode'),
        h(
          'div',
          { class: 'fields' },
          h('div', { class: 'field' }, h('label', { for: 'create-name' }, 'Passcode Name'), name),
          expiryFieldset('create'),
          partnersFieldset(partnerNames),
          descriptionField('create-description', ''),
        ),
      ],
      {
        submit: 'Create & View',
        onCancel: () => toggleCreate(false),
        action: async () => {
          const input: Record<string, unknown> = { name: name.value, expiry: readExpiry(createForm) }
          const bound = readPartners(createForm)
          if (bound) input.partners = bound
          const description = $<HTMLTextAreaElement>(createForm, 'textarea[name="description"]').value
          if (description !== '') input.description = description
          const created = await api<Issued<Passcode>>('POST', '/passcodes', input)
          createForm.reset()
          toggleCreate(false)
          await load()
          revealValue(`Passcode “${created.passcode.name}” created`, created.value, 'Copy this passcode now: you will not see it again.')
        },
      },
    )
    const newButton = $<HTMLButtonElement>(document, '#new-passcode')
    newButton.hidden = false
    const capNote = h(
      'p',
      { class: 'cap-note', id: 'cap-note', hidden: true },
      `This account has ${MAX_PASSCODES} passcodes, the most it may have: delete one to add another.`,
    )
    $(document, '.toolbar').after(capNote)
    newButton.addEventListener('click', () => {
      if (newButton.getAttribute('aria-disabled') !== 'true') toggleCreate(createForm.hidden)
    })
    // Off at the cap, but still focusable, so that its description (why it is off) is read.
    showCap = (full) => {
      capNote.hidden = !full
      if (full) {
        newButton.setAttribute('aria-disabled', 'true')
        newButton.setAttribute('aria-describedby', 'cap-note')
        if (!createForm.hidden) toggleCreate(false)
      } else {
        newButton.removeAttribute('aria-disabled')
        newButton.removeAttribute('aria-describedby')
      }
    }
    function toggleCreate(open: boolean): void {
      createForm.hidden = !open
      newButton.setAttribute('aria-expanded', String(open))
      if (open) name.focus()
      else newButton.focus()
    }
    section.append(createForm)
  } else {
    section.append(
      h(
        'p',
        { class: 'readonly-note' },
        'You can see this account’s passcodes. Only admins and users with write access to User Settings change them.',
      ),
    )
  }
  // Finding one of 100: search, status filter and sort, kept in the URL (?q=&status=&sort=).
  const params = new URLSearchParams(location.search)
  const search = h('input', { type: 'search', id: 'find-q', name: 'q', value: params.get('q') || '', autocomplete: 'off', spellcheck: 'false' })
  const statusFilter = h(
    'select',
    { id: 'find-status', name: 'status' },
    Object.entries(FILTERS).map(([value, text]) => h('option', { value, selected: value === (params.get('status') || '') }, text)),
  )
  const sortBy = h(
    'select',
    { id: 'find-sort', name: 'sort' },
    Object.entries(SORTS).map(([value, { label }]) => h('option', { value, selected: value === (params.get('sort') || 'name') }, label)),
  )
  const shown = h('p', { class: 'shown', id: 'find-shown', role: 'status' })
  const finder = h(
    'form',
    { class: 'finder', role: 'search', 'aria-label': 'Find passcodes' },
    h('div', { class: 'field' }, h('label', { for: 'find-q' }, 'Search'), search),
    h('div', { class: 'field' }, h('label', { for: 'find-status' }, 'Status'), statusFilter),
    h('div', { class: 'field' }, h('label', { for: 'find-sort' }, 'Sort by'), sortBy),
    shown,
  )
  finder.addEventListener('submit', (event) => event.preventDefault())
  for (const control of [search, statusFilter, sortBy]) control.addEventListener(control === search ? 'input' : 'change', () => render(true))
  // The leak banner (SPEC §5.42), above everything else of the page while any passcode has an open mark.
  const leakSlot = h('div', { id: 'leak-slot' })
  section.prepend(leakSlot)
  section.append(finder, table)

  let all: readonly Passcode[] = []
  /** The status a request would meet: "not accepted" before the passcode's own. */
  const effective = (passcode: Passcode): string => (works(passcode.status) && !accepts(accepted, 'account') ? 'not_accepted' : passcode.status)
  function render(remember: boolean): void {
    const query = search.value.trim().toLowerCase()
    const status = statusFilter.value
    const sort = SORTS[sortBy.value] ? sortBy.value : 'name'
    if (remember) {
      const next = new URLSearchParams()
      if (query) next.set('q', search.value.trim())
      if (status) next.set('status', status)
      if (sort !== 'name') next.set('sort', sort)
      const text = next.toString()
      history.replaceState(null, '', text ? `?${text}` : location.pathname)
    }
    const matching = all
      .filter((passcode) => !status || effective(passcode) === status)
      .filter((passcode) => {
        if (!query) return true
        const haystack = [passcode.name, passcode.hint, passcode.description || '', ...(passcode.partners || []), passcode.lastUsedPartner || '']
        return haystack.some((text) => text.toLowerCase().includes(query))
      })
      .sort(SORTS[sort]!.compare)
    shown.textContent = matching.length === all.length ? '' : `Showing ${matching.length} of ${all.length}`
    rows.replaceChildren(
      ...(all.length === 0
        ? [h('tr', {}, h('td', { colspan: columns.length, class: 'empty' }, 'No passcodes yet.'))]
        : matching.length === 0
          ? [h('tr', {}, h('td', { colspan: columns.length, class: 'empty' }, 'No passcode matches.'))]
          : matching.map(passcodeRow)),
    )
  }

  function editRow(passcode: Passcode, row: HTMLTableRowElement): void {
    const nameId = `edit-name-${passcode.id}`
    const name = h('input', { name: 'name', id: nameId, value: passcode.name, autocomplete: 'off', 'data-field': 'name' })
    const keepExpiry = h('input', { type: 'checkbox', name: 'keep-expiry', checked: true })
    const expiry = expiryFieldset(`edit-${passcode.id}`, passcode.expiry)
    expiry.disabled = true
    keepExpiry.addEventListener('change', () => (expiry.disabled = keepExpiry.checked))
    const form = actionForm(
      { class: 'fields', 'aria-label': `Edit ${passcode.name}` },
      [
        h('div', { class: 'field' }, h('label', { for: nameId }, 'Passcode Name'), name),
        h(
          'p',
          { class: 'hint current-expiry' },
          'Expires: ',
          passcode.expiresAt ? time(passcode.expiresAt) : 'Never',
          '. A new number of days counts from today.',
        ),
        h('label', {}, keepExpiry, 'Keep the current expiry'),
        expiry,
        partnersFieldset(partnerNames, passcode.partners),
        descriptionField(`edit-description-${passcode.id}`, passcode.description || ''),
      ],
      {
        submit: 'Save',
        onCancel: () => load(),
        action: async () => {
          const patch: Record<string, unknown> = {}
          if (name.value.trim() !== passcode.name) patch.name = name.value
          if (!keepExpiry.checked) patch.expiry = readExpiry(form)
          const description = $<HTMLTextAreaElement>(form, 'textarea[name="description"]').value
          if (description !== (passcode.description || '')) patch.description = description
          const bound = partnerNames.length > 0 ? readPartners(form) : passcode.partners
          if (JSON.stringify(bound) !== JSON.stringify(passcode.partners || null)) patch.partners = bound
          if (Object.keys(patch).length === 0) return load()
          await api('PATCH', `/passcodes/${encodeURIComponent(passcode.id)}`, patch)
          await load()
          announce('Passcode saved.')
        },
      },
    )
    openRowForm(row, columns.length, form, name)
  }

  function rotateRow(passcode: Passcode, row: HTMLTableRowElement): void {
    const minutes = h('input', {
      type: 'number',
      name: 'overlapMinutes',
      min: 0,
      max: 10080,
      step: 1,
      value: 60,
      inputmode: 'numeric',
      'data-field': 'overlapMinutes',
      id: `overlap-${passcode.id}`,
    })
    const overlapping = passcode.previousValueEndsAt !== null && passcode.previousValueEndsAt !== undefined
    const overlapWarning = overlapping
      ? h(
          'p',
          { class: 'warning' },
          'The value replaced by the last rotation stops working ',
          time(passcode.previousValueEndsAt),
          '. Rotating again stops the previous value at once.',
        )
      : null
    const form = actionForm(
      { class: 'fields', 'aria-label': `Rotate ${passcode.name}` },
      [overlapWarning, h('div', { class: 'field' }, h('label', { for: `overlap-${passcode.id}` }, 'Old value keeps working for (minutes)'), minutes)],
      {
        submit: 'Rotate & View',
        onCancel: () => load(),
        action: async () => {
          const text = minutes.value.trim()
          // Empty is not zero: ending the current value at once must be chosen.
          if (text === '')
            throw new FieldError(
              'overlapMinutes',
              'Old value keeps working for (minutes): enter a number of minutes, 0 to stop the current value at once',
            )
          const overlap = /^\d+$/.test(text) ? Number(text) : text
          const question = [
            `Rotate “${passcode.name}”? A new value replaces the current one, which ${overlap === 0 ? 'stops working at once' : `keeps working for ${overlap} minutes`}.`,
            overlapping ? 'The previous value, from the last rotation, stops working at once.' : '',
          ]
            .filter(Boolean)
            .join(' ')
          if (typeof overlap === 'number' && !(await confirmAction({ question, confirm: 'Rotate now', danger: true }))) return
          const rotated = await api<Issued<Passcode>>('POST', `/passcodes/${encodeURIComponent(passcode.id)}/rotate`, { overlapMinutes: overlap })
          await load()
          revealValue(`New value for “${rotated.passcode.name}”`, rotated.value, 'Copy this passcode now: you will not see it again.')
        },
      },
    )
    openRowForm(row, columns.length, form, minutes)
  }

  function passcodeRow(passcode: Passcode): HTMLTableRowElement {
    const row = h(
      'tr',
      {},
      h(
        'td',
        { class: 'name', 'data-label': 'Name' },
        // The description under the name, as text (newlines kept by CSS); dir="auto" keeps its direction to itself.
        passcode.description ? h('div', {}, passcode.name, h('p', { class: 'description', dir: 'auto' }, passcode.description)) : passcode.name,
      ),
      cell('Status', works(passcode.status) && !accepts(accepted, 'account') ? notAccepted('account') : badge(passcode.status), leakMark(passcode)),
      cell(
        'Passcode',
        h('code', {}, passcode.hint),
        passcode.previousValueEndsAt ? h('span', { class: 'overlap' }, 'Previous value works until ', time(passcode.previousValueEndsAt)) : null,
      ),
      cell('Expires', passcode.expiresAt ? time(passcode.expiresAt) : 'Never'),
      cell('Partners', partnersCell(passcode)),
      cell('Last used', lastUse(passcode.name, passcode.lastUsedAt, passcode.lastUsedPartner, `/passcodes/${encodeURIComponent(passcode.id)}/usage`)),
    )
    if (CAN_MANAGE_PASSCODES) {
      const label = (verb: string): string => `${verb} ${passcode.name}`
      row.append(
        h(
          'td',
          { class: 'actions-cell', 'data-label': 'Actions' },
          h(
            'div',
            { class: 'actions' },
            h('button', { type: 'button', 'aria-label': label('Edit'), onclick: () => editRow(passcode, row) }, 'Edit'),
            h('button', { type: 'button', 'aria-label': label('Rotate'), onclick: () => rotateRow(passcode, row) }, 'Rotate'),
            passcode.status === 'disabled'
              ? confirmButton('Enable', {
                  label: label('Enable'),
                  confirm: `Enable “${passcode.name}”`,
                  question: `Enable the passcode “${passcode.name}”? Calls with it work again at once.`,
                  action: async () => {
                    await api('POST', `/passcodes/${encodeURIComponent(passcode.id)}/enable`)
                    await load()
                    announce('Passcode enabled.')
                  },
                })
              : confirmButton('Disable', {
                  label: label('Disable'),
                  confirm: `Disable “${passcode.name}”`,
                  question: `Disable the passcode “${passcode.name}”? Calls with it are refused until you enable it again; its value, name, partners and expiry are kept.`,
                  action: async () => {
                    await api('POST', `/passcodes/${encodeURIComponent(passcode.id)}/disable`)
                    await load()
                    announce('Passcode disabled.')
                  },
                }),
            confirmButton('Delete', {
              label: label('Delete'),
              confirm: `Delete “${passcode.name}”`,
              danger: true,
              question: `Delete the passcode “${passcode.name}”? Calls with it stop working at once.`,
              action: async () => {
                await api('DELETE', `/passcodes/${encodeURIComponent(passcode.id)}`)
                await load()
                announce('Passcode deleted.')
              },
            }),
          ),
        ),
      )
    }
    return row
  }

  async function load() {
    const { passcodes } = await api<{ passcodes: Passcode[] }>('GET', '/passcodes')
    count.textContent = `${passcodes.length} of ${MAX_PASSCODES}`
    showCap(passcodes.length >= MAX_PASSCODES)
    all = passcodes
    leakSlot.replaceChildren(...[leakBanner(passcodes, CAN_MANAGE_PASSCODES)].filter((banner) => banner !== null))
    render(false)
  }
  await run(null, load)
}

// ---------------------------------------------------------------- Users page

function validityFieldset(idPrefix: string): HTMLFieldSetElement {
  const days = h('input', {
    type: 'number',
    name: 'validity-days',
    id: `${idPrefix}-days`,
    min: 1,
    max: 365,
    step: 1,
    value: 90,
    inputmode: 'numeric',
    'aria-label': 'Number of days',
    'data-field': 'validity',
  })
  const finite = h('input', { type: 'radio', name: 'validity-type', value: 'finite', checked: true })
  const infinite = h('input', { type: 'radio', name: 'validity-type', value: 'infinite' })
  for (const radio of [finite, infinite]) radio.addEventListener('change', () => (days.disabled = infinite.checked))
  const soon = soonNote(days, `${idPrefix}-soon`)
  return h('fieldset', {}, h('legend', {}, 'Validity'), h('label', {}, finite, 'Finite'), days, h('label', {}, infinite, 'Infinite'), soon)
}

function readValidity(form: HTMLElement): { type: 'infinite' } | { type: 'finite'; days: number | string } {
  if ($(form, 'input[name="validity-type"][value="infinite"]').checked) return { type: 'infinite' }
  const text = $(form, 'input[name="validity-days"]').value.trim()
  return { type: 'finite', days: /^\d+$/.test(text) ? Number(text) : text }
}

async function usersPage() {
  const section = $<HTMLElement>(document, '#content')
  const rows = h('tbody', {})
  const columns = ['User', 'Passcode', 'Validity', 'Expires', 'Last used']
  if (CAN_MANAGE_USERS) columns.push('Actions')

  const accountSection = h('section', { class: 'panel', 'aria-labelledby': 'account-title' }, h('h3', { id: 'account-title' }, 'Accepted passcodes'))
  let accepted: Accepted = 'both'
  let listed: readonly User[] = []
  // The leak banner (SPEC §5.42), above everything else of the page while any user passcode has an open mark.
  const leakSlot = h('div', { id: 'leak-slot' })
  section.append(leakSlot, accountSection)

  if (CAN_MANAGE_USERS) {
    const userId = h('input', {
      id: 'grant-user-id',
      name: 'userId',
      required: true,
      autocomplete: 'off',
      autocapitalize: 'none',
      spellcheck: 'false',
      'data-field': 'userId',
    })
    const grantForm = actionForm(
      { class: 'panel', 'aria-labelledby': 'grant-title' },
      [
        h('h3', { id: 'grant-title' }, 'Grant a user passcode'),
        h(
          'div',
          { class: 'fields' },
          h('div', { class: 'field' }, h('label', { for: 'grant-user-id' }, 'User ID'), userId),
          validityFieldset('grant'),
        ),
      ],
      {
        submit: 'Grant Passcode',
        action: async () => {
          const id = userId.value.trim()
          // An empty ID would be PUT /users//passcode: refused here, before anything is sent.
          if (!USER_ID.test(id)) throw new FieldError('userId', USER_ID_MESSAGE)
          await api('PUT', `/users/${encodeURIComponent(id)}/passcode`, { validity: readValidity(grantForm) })
          announce(`Passcode granted to ${id}.`)
          grantForm.reset()
          await load()
        },
      },
    )
    section.append(grantForm)
  } else {
    section.append(h('p', { class: 'readonly-note' }, 'Only admins grant, reset or revoke user passcodes.'))
  }
  section.append(
    h(
      'table',
      { 'aria-labelledby': 'page-title' },
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          columns.map((name) => h('th', { scope: 'col' }, name)),
        ),
      ),
      rows,
    ),
  )

  function grantRow(user: User, row: HTMLTableRowElement): void {
    const form = actionForm({ class: 'fields', 'aria-label': `Grant a passcode to ${user.name || user.id}` }, validityFieldset(`grant-${user.id}`), {
      submit: 'Grant Passcode',
      onCancel: () => load(),
      action: async () => {
        await api('PUT', `/users/${encodeURIComponent(user.id)}/passcode`, { validity: readValidity(form) })
        await load()
        announce('Passcode granted.')
      },
    })
    openRowForm(row, columns.length, form, $(form, 'input'))
  }

  function userRow(user: User): HTMLTableRowElement {
    const passcode = user.passcode
    const live = passcode && passcode.status !== 'revoked' && passcode.status !== 'expired'
    const who = user.name ? [user.name, ' ', h('span', { class: 'muted mono' }, user.id)] : [h('span', { class: 'mono' }, user.id)]
    const row = h(
      'tr',
      {},
      // One element in the cell: on a phone the cell lays its label and content side by side.
      h(
        'td',
        { class: 'name', 'data-label': 'User' },
        h('div', {}, ...who, user.email ? [h('br'), h('span', { class: 'muted email' }, user.email)] : null),
      ),
      cell(
        'Passcode',
        passcode
          ? [
              works(passcode.status) && !accepts(accepted, 'user') ? notAccepted('user') : badge(passcode.status),
              // A revoked passcode has no value any more: no hint, no validity.
              passcode.status === 'revoked' ? null : [' ', h('code', {}, passcode.hint)],
              leakMark(passcode, CAN_MANAGE_USERS ? 'Grant a new passcode to replace it.' : 'An admin can grant a new one.'),
            ]
          : badge(null),
      ),
      cell(
        'Validity',
        passcode && passcode.status !== 'revoked' ? (passcode.validity.type === 'infinite' ? 'Infinite' : `${passcode.validity.days} days`) : '',
      ),
      cell('Expires', passcode && passcode.status !== 'revoked' ? (passcode.validity.type === 'infinite' ? 'Never' : time(passcode.expiresAt)) : ''),
      cell(
        'Last used',
        passcode && passcode.status !== 'revoked'
          ? lastUse(user.name || user.id, passcode.lastUsedAt, null, `/users/${encodeURIComponent(user.id)}/passcode/usage`)
          : '',
      ),
    )
    if (CAN_MANAGE_USERS) {
      const label = (verb: string): string => `${verb} for ${user.name || user.id}`
      const actions = h('div', { class: 'actions' })
      if (live) {
        actions.append(
          confirmButton('Reset Passcode', {
            label: label('Reset Passcode'),
            confirm: `Reset ${user.name || user.id}’s passcode`,
            question: `Reset the passcode of ${user.name || user.id}? The current value stops working at once.`,
            action: async () => {
              await api('POST', `/users/${encodeURIComponent(user.id)}/passcode/reset`)
              await load()
              announce('Passcode reset. The user sees the new value on their Settings page.')
            },
          }),
          confirmButton('Revoke Passcode', {
            label: label('Revoke Passcode'),
            confirm: `Revoke ${user.name || user.id}’s passcode`,
            danger: true,
            question: `Revoke the passcode of ${user.name || user.id}? Calls with it stop working at once.`,
            action: async () => {
              await api('DELETE', `/users/${encodeURIComponent(user.id)}/passcode`)
              await load()
              announce('Passcode revoked.')
            },
          }),
        )
      } else {
        actions.append(h('button', { type: 'button', 'aria-label': label('Grant Passcode'), onclick: () => grantRow(user, row) }, 'Grant Passcode'))
      }
      row.append(h('td', { class: 'actions-cell', 'data-label': 'Actions' }, actions))
    }
    return row
  }

  async function loadAccount() {
    const { account } = await api<AccountAnswer>('GET', '/account')
    accepted = account.acceptedPasscodes
    const choices = Object.entries(ACCEPTED_LABELS)
    if (!CAN_MANAGE_USERS) {
      accountSection.replaceChildren(
        accountSection.firstChild!,
        h('p', { id: 'accepted-passcodes', tabindex: '-1' }, 'This account accepts: ', h('strong', {}, ACCEPTED_LABELS[accepted] || accepted)),
      )
      return
    }
    const select = h(
      'select',
      { id: 'accepted-passcodes', name: 'acceptedPasscodes', 'data-field': 'acceptedPasscodes' },
      choices.map(([value, text]) => h('option', { value, selected: value === account.acceptedPasscodes }, text)),
    )
    const form = actionForm({ class: 'fields' }, h('div', { class: 'field' }, h('label', { for: 'accepted-passcodes' }, 'The API accepts'), select), {
      submit: 'Save',
      primary: false,
      action: async () => {
        const chosen = select.value as Accepted
        // What stops working: the kind the new setting no longer accepts, counted as a request would meet it.
        const kind =
          accepts(accepted, 'account') && !accepts(chosen, 'account')
            ? 'account'
            : accepts(accepted, 'user') && !accepts(chosen, 'user')
              ? 'user'
              : null
        let stopping = 0
        if (kind === 'account')
          stopping = (await api<{ passcodes: Passcode[] }>('GET', '/passcodes')).passcodes.filter((passcode) => works(passcode.status)).length
        if (kind === 'user') stopping = listed.filter((user) => user.passcode && works(user.passcode.status)).length
        const many = `${stopping} ${kind} passcode${stopping === 1 ? '' : 's'}`
        if (stopping > 0) {
          const question = `Accept ${ACCEPTED_LABELS[chosen].toLowerCase()}? ${many} stop${stopping === 1 ? 's' : ''} working at once: requests with ${stopping === 1 ? 'it' : 'them'} are refused until the setting changes back.`
          if (!(await confirmAction({ question, confirm: `Change to ${ACCEPTED_LABELS[chosen].toLowerCase()}`, danger: true }))) return
        }
        await api('PUT', '/account', { acceptedPasscodes: chosen })
        accepted = chosen
        await load()
        announce(stopping > 0 ? `Saved. ${many} no longer work${stopping === 1 ? 's' : ''}.` : 'Saved.')
      },
    })
    accountSection.replaceChildren(accountSection.firstChild!, form)
  }

  async function load() {
    const { users } = await api<{ users: User[] }>('GET', '/users')
    listed = users
    leakSlot.replaceChildren(...[userLeakBanner(users, CAN_MANAGE_USERS)].filter((banner) => banner !== null))
    rows.replaceChildren(
      ...(users.length === 0 ? [h('tr', {}, h('td', { colspan: columns.length, class: 'empty' }, 'No user passcodes yet.'))] : users.map(userRow)),
    )
  }
  await run(null, async () => {
    await loadAccount()
    await load()
    // A link to #accepted-passcodes (from a "Not accepted" row) lands on the setting once it is there.
    if (location.hash === '#accepted-passcodes') document.getElementById('accepted-passcodes')?.focus()
  })
}

// ---------------------------------------------------------------- the user's own Settings

async function mePage() {
  const section = $<HTMLElement>(document, '#content')
  const details = h('div', {})
  section.append(details)

  async function load() {
    let passcode: UserPasscode | null = null
    try {
      ;({ passcode } = await api<{ passcode: UserPasscode }>('GET', `/users/${encodeURIComponent(ME)}/passcode`))
    } catch (error) {
      if (!(error instanceof ApiError && error.status === 404)) throw error
    }
    const { account } = await api<AccountAnswer>('GET', '/account')
    const accepted = account.acceptedPasscodes
    const acceptance = h('p', { class: 'acceptance' }, 'This account accepts: ', h('strong', {}, ACCEPTED_LABELS[accepted] || accepted), '.')
    if (passcode?.status === 'revoked' && passcode.leak) {
      details.replaceChildren(ownLeakNotice(passcode.leak), acceptance)
      return
    }
    if (!passcode || passcode.status === 'revoked') {
      details.replaceChildren(
        h('p', {}, passcode ? 'Your passcode was revoked. ' : 'You have no passcode. ', 'An admin of this account can grant you one.'),
        acceptance,
      )
      return
    }
    const show = h(
      'button',
      {
        type: 'button',
        class: 'primary',
        onclick: (event) =>
          run(event.currentTarget as HTMLButtonElement, async () => {
            const revealed = await api<Issued<UserPasscode>>('GET', '/me/passcode')
            revealValue('Your passcode', revealed.value, 'Keep it secret: it calls the API as you. Click Done to hide it.')
          }),
      },
      'Show my passcode',
    )
    details.replaceChildren(
      h(
        'dl',
        {},
        h('dt', {}, 'Status'),
        h('dd', {}, works(passcode.status) && !accepts(accepted, 'user') ? notAccepted('user') : badge(passcode.status)),
        h('dt', {}, 'Passcode'),
        h('dd', {}, h('code', {}, passcode.hint)),
        h('dt', {}, 'Validity'),
        h('dd', {}, passcode.validity.type === 'infinite' ? 'Infinite' : `${passcode.validity.days} days`),
        h('dt', {}, 'Expires'),
        h('dd', {}, passcode.validity.type === 'infinite' ? 'Never' : time(passcode.expiresAt)),
        h('dt', {}, 'Last used'),
        h('dd', {}, lastUse('your passcode', passcode.lastUsedAt, null, `/users/${encodeURIComponent(ME)}/passcode/usage`)),
      ),
      acceptance,
      passcode.status === 'expired' ? h('p', {}, 'It has expired. Ask an admin of this account to grant you a new one.') : show,
    )
  }
  await run(null, load)
}

const pages: Readonly<Record<string, () => Promise<void>>> = {
  passcodes: passcodesPage,
  users: usersPage,
  me: mePage,
  activity: () => activityPage({ h, api, run, time }),
}
void pages[main.dataset.page ?? '']?.()
