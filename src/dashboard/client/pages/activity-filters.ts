// The Activity page's filters: action, passcode (or user passcode), person and dates,
// read from and kept in the URL. At phone width they fold behind a "Filters" button
// that says how many are on, so that the records come first.
import { h } from '../dom'
import { byName, quoted } from '../format'
import type { Passcode, User } from '../wire'
import { ACTIONS } from './activity-sentences'

/** The filters, as the URL keeps them (`from` and `to` are local dates, `YYYY-MM-DD`). */
export const FILTER_KEYS = ['action', 'target', 'actor', 'from', 'to'] as const
/** Some of the filters. */
export type Filters = Partial<Record<(typeof FILTER_KEYS)[number], string>>

/** The filter form and what it reads. */
export interface ActivityFilters {
  readonly form: HTMLFormElement
  /** The filters set now. */
  read(): Filters
  /** Sets one filter to `id` (a name in a record links here), adding it to its list if it is not there. */
  pick(key: 'actor' | 'target', id: string): void
  /** Clears them all. */
  clear(): void
  /** Shows how many are on (on the fold's button) and whether Clear is offered. */
  update(): void
}

/** The filters, set from `filters`, for an account with these people and passcodes; `me` is the signed-in user. */
export function activityFilters(
  filters: Filters,
  users: readonly User[],
  passcodes: readonly Pick<Passcode, 'id' | 'name'>[],
  me: string,
): ActivityFilters {
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
  const targetOptions = [
    option('', 'All passcodes', filters.target),
    ...[...passcodes].sort((a, b) => byName(a.name, b.name)).map((passcode) => option(passcode.id, quoted(passcode.name), filters.target)),
    ...users.filter((user) => user.passcode).map((user) => option(user.id, `User passcode of ${user.name || user.id}`, filters.target)),
  ]
  const target = h(
    'select',
    { id: 'activity-target', name: 'target' },
    withCurrent(targetOptions, filters.target, (id) => `ID ${id}`),
  )
  const people = new Map<string, string>([[me, `You (${me})`]])
  for (const user of users) if (!people.has(user.id)) people.set(user.id, user.name ? `${user.name} (${user.id})` : user.id)
  const personOptions = [option('', 'Everyone', filters.actor), ...[...people].map(([id, text]) => option(id, text, filters.actor))]
  const actor = h(
    'select',
    { id: 'activity-actor', name: 'actor' },
    withCurrent(personOptions, filters.actor, (id) => id),
  )
  const from = h('input', { type: 'date', id: 'activity-from', name: 'from', value: filters.from ?? '' })
  const to = h('input', { type: 'date', id: 'activity-to', name: 'to', value: filters.to ?? '' })
  const controls = { action, target, actor, from, to }
  const clear = h('button', { type: 'button', id: 'activity-clear' }, 'Clear filters')
  const fold = h('button', {
    type: 'button',
    class: 'fold-toggle',
    id: 'activity-fold',
    'aria-expanded': 'false',
    'aria-controls': 'activity-fields',
  })
  const field = (id: string, label: string, control: HTMLElement) => h('div', { class: 'field' }, h('label', { for: id }, label), control)
  const fields = h(
    'div',
    { class: 'fold-body', id: 'activity-fields' },
    field('activity-action', 'Action', action),
    field('activity-target', 'Passcode', target),
    field('activity-actor', 'Person', actor),
    field('activity-from', 'From', from),
    field('activity-to', 'To', to),
    clear,
  )
  const form = h('form', { class: 'finder folding', id: 'activity-filters', role: 'search', 'aria-label': 'Filter activity' }, fold, fields)
  form.addEventListener('submit', (event) => event.preventDefault())
  fold.addEventListener('click', () => {
    const open = !form.classList.toggle('folded')
    fold.setAttribute('aria-expanded', String(open))
  })
  form.classList.add('folded')

  const result: ActivityFilters = {
    form,
    read() {
      const current: Filters = {}
      for (const key of FILTER_KEYS) if (controls[key].value) current[key] = controls[key].value
      return current
    },
    pick(key, id) {
      const select = controls[key]
      if (![...select.options].some((element) => element.value === id)) select.append(option(id, key === 'actor' ? id : `ID ${id}`, id))
      select.value = id
    },
    clear() {
      for (const control of Object.values(controls)) control.value = ''
    },
    update() {
      const on = Object.keys(result.read()).length
      fold.textContent = on === 0 ? 'Filters' : `Filters (${on} on)`
      clear.hidden = on === 0
    },
  }
  return result
}
