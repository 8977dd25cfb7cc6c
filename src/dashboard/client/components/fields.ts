// The fields the forms share: an expiry (days or Forever), a validity (Finite days or
// Infinite), the partners a passcode is bound to, and a description.
import { $, h } from '../dom'

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

/** A fieldset of two radios, the first followed by a days input it enables. */
function daysFieldset(
  legend: string,
  names: { readonly group: string; readonly days: string; readonly field: string },
  [finite, endless]: readonly [string, string],
  { id, max, value, checkedEndless }: { id: string; max: number; value: number; checkedEndless: boolean },
): HTMLFieldSetElement {
  const days = h('input', {
    type: 'number',
    name: names.days,
    id: `${id}-days`,
    min: 1,
    max,
    step: 1,
    value,
    inputmode: 'numeric',
    'aria-label': 'Number of days',
    'data-field': names.field,
    disabled: checkedEndless,
    required: true,
  })
  const first = h('input', { type: 'radio', name: names.group, value: finite.toLowerCase(), checked: !checkedEndless })
  const second = h('input', { type: 'radio', name: names.group, value: endless.toLowerCase(), checked: checkedEndless })
  for (const radio of [first, second]) radio.addEventListener('change', () => (days.disabled = second.checked))
  const soon = soonNote(days, `${id}-soon`)
  return h('fieldset', {}, h('legend', {}, legend), h('label', {}, first, finite), days, h('label', {}, second, endless), soon)
}

/** Expiry: a number of days (1 to 3650) or Forever. */
export function expiryFieldset(id: string, current?: number | 'forever'): HTMLFieldSetElement {
  return daysFieldset('Expiry', { group: 'expiry-kind', days: 'days', field: 'expiry' }, ['Days', 'Forever'], {
    id,
    max: 3650,
    value: typeof current === 'number' ? current : 90,
    checkedEndless: current === 'forever',
  })
}

/** The expiry a form says, as the API takes it: days, `'forever'`, or the text typed (which the API refuses by name). */
export function readExpiry(form: HTMLElement): number | string {
  if ($(form, 'input[name="expiry-kind"][value="forever"]').checked) return 'forever'
  const text = $(form, 'input[name="days"]').value.trim()
  return /^\d+$/.test(text) ? Number(text) : text
}

/** A user passcode's validity: Finite (1 to 365 days) or Infinite. */
export function validityFieldset(id: string): HTMLFieldSetElement {
  return daysFieldset('Validity', { group: 'validity-type', days: 'validity-days', field: 'validity' }, ['Finite', 'Infinite'], {
    id,
    max: 365,
    value: 90,
    checkedEndless: false,
  })
}

/** The validity a form says, as the API takes it. */
export function readValidity(form: HTMLElement): { type: 'infinite' } | { type: 'finite'; days: number | string } {
  if ($(form, 'input[name="validity-type"][value="infinite"]').checked) return { type: 'infinite' }
  const text = $(form, 'input[name="validity-days"]').value.trim()
  return { type: 'finite', days: /^\d+$/.test(text) ? Number(text) : text }
}

/**
 * Checkboxes of the whitelisted partners, and of the bound ones that are no longer
 * whitelisted (kept checked, so that an edit of something else keeps the binding);
 * none checked means "every partner".
 */
export function partnersFieldset(whitelisted: readonly string[], current?: readonly string[] | null): HTMLElement | null {
  const bound = new Set(current ?? [])
  const names = [...new Set([...whitelisted, ...bound])]
  if (names.length === 0) return null
  return h(
    'fieldset',
    { 'data-field': 'partners' },
    h('legend', {}, 'Partners (none checked: every whitelisted partner)'),
    names.map((name) =>
      h(
        'label',
        {},
        h('input', { type: 'checkbox', name: 'partner', value: name, checked: bound.has(name) }),
        whitelisted.includes(name) ? name : `${name} (no longer whitelisted)`,
      ),
    ),
  )
}

/** The checked partners, or null when none is checked (unbound). */
export function readPartners(form: HTMLElement): string[] | null {
  const checked = [...form.querySelectorAll<HTMLInputElement>('input[name="partner"]:checked')].map((input) => input.value)
  return checked.length === 0 ? null : checked
}

/** A description (0 to 500 characters, SPEC §5.39), optional. */
export function descriptionField(id: string, current: string): HTMLElement {
  return h(
    'div',
    { class: 'field description-field' },
    h('label', { for: id }, 'Description (optional)'),
    h('textarea', { id, name: 'description', rows: 2, 'data-field': 'description' }, current),
  )
}
