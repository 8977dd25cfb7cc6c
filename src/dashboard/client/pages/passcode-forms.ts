// The Passcodes page's forms: + Passcode (create), and Edit and Rotate in place of a row,
// under a heading that keeps the passcode's name in sight.
import { api, FieldError, segment } from '../api'
import { $, h } from '../dom'
import { quoted } from '../format'
import { rowFocus } from '../focus'
import { actionForm, openRowForm } from '../components/action-form'
import { confirmAction } from '../components/confirm-dialog'
import { descriptionField, expiryFieldset, partnersFieldset, readExpiry, readPartners } from '../components/fields'
import { restrictionFields } from '../components/restrictions'
import { revealValue } from '../components/reveal'
import { time } from '../components/time'
import type { IssuedPasscode, Passcode } from '../wire'
import type { PasscodesView } from './passcodes-view'

const COPY_NOW = 'Copy this passcode now: you will not see it again.'

/** The + Passcode form: once created, the list reloads and the value shows once; Done goes to the new row. */
export function createForm(view: PasscodesView, close: () => void): HTMLFormElement {
  // No maxlength: a pasted name is not cut silently; the API's refusal names the field and the limit.
  const name = h('input', { id: 'create-name', name: 'name', required: true, autocomplete: 'off', 'data-field': 'name' })
  const restrictions = restrictionFields({ id: 'create', declared: view.scopes, metadata: true })
  const form: HTMLFormElement = actionForm(
    { class: 'panel', id: 'create-form', hidden: true, 'aria-labelledby': 'create-title' },
    [
      h('h3', { id: 'create-title' }, 'New passcode'),
      h(
        'div',
        { class: 'fields' },
        h('div', { class: 'field' }, h('label', { for: 'create-name' }, 'Passcode Name'), name),
        expiryFieldset('create'),
        partnersFieldset(view.partnerNames),
        descriptionField('create-description', ''),
      ),
      restrictions.element,
    ],
    {
      submit: 'Create & View',
      onCancel: close,
      action: async () => {
        const input: Record<string, unknown> = { name: name.value, expiry: readExpiry(form) }
        const bound = readPartners(form)
        if (bound) input.partners = bound
        const description = $<HTMLTextAreaElement>(form, 'textarea[name="description"]').value
        if (description !== '') input.description = description
        Object.assign(input, restrictions.read(form))
        const created = await api<IssuedPasscode>('POST', '/passcodes', input)
        form.reset()
        close()
        await view.reload()
        const back = { key: created.passcode.id, control: undefined, index: 0 }
        revealValue(`Passcode ${quoted(created.passcode.name)} created`, created.value, COPY_NOW, () => view.show(back))
      },
    },
  )
  return form
}

/** Edit in place of the row: name, expiry (kept unless changed), partners, description, and the restrictions and limits (only what changed is sent). */
export function editForm(view: PasscodesView, passcode: Passcode, row: HTMLTableRowElement): void {
  const back = rowFocus(row, 'edit')
  const nameId = `edit-name-${passcode.id}`
  const name = h('input', { name: 'name', id: nameId, value: passcode.name, autocomplete: 'off', 'data-field': 'name' })
  const keepExpiry = h('input', { type: 'checkbox', name: 'keep-expiry', checked: true })
  const expiry = expiryFieldset(`edit-${passcode.id}`, passcode.expiry)
  expiry.disabled = true
  keepExpiry.addEventListener('change', () => (expiry.disabled = keepExpiry.checked))
  const restrictions = restrictionFields({ id: `edit-${passcode.id}`, declared: view.scopes, metadata: true, current: passcode })
  const form = actionForm(
    { class: 'fields' },
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
      partnersFieldset(view.partnerNames, passcode.partners),
      descriptionField(`edit-description-${passcode.id}`, passcode.description),
      restrictions.element,
    ],
    {
      submit: 'Save',
      onCancel: () => view.show(back),
      action: async () => {
        const patch: Record<string, unknown> = {}
        if (name.value.trim() !== passcode.name) patch.name = name.value
        if (!keepExpiry.checked) patch.expiry = readExpiry(form)
        const description = $<HTMLTextAreaElement>(form, 'textarea[name="description"]').value
        if (description !== passcode.description) patch.description = description
        const bound = readPartners(form)
        if (JSON.stringify(bound) !== JSON.stringify(passcode.partners)) patch.partners = bound
        Object.assign(patch, restrictions.changes(form))
        if (Object.keys(patch).length === 0) {
          view.show(back)
          return
        }
        await api('PATCH', `/passcodes/${segment(passcode.id)}`, patch)
        await view.reload(back, 'Passcode saved.')
      },
    },
  )
  openRowForm(row, view.columns, `Edit ${quoted(passcode.name)}`, form, name)
}

/**
 * Rotate in place of the row: how long the current value keeps working, and a warning
 * when a previous value is still in its overlap. A value found in public (SPEC §5.45),
 * with its mark open or enabled since, gets no overlap: the form offers none and says why.
 */
export function rotateForm(view: PasscodesView, passcode: Passcode, row: HTMLTableRowElement): void {
  const back = rowFocus(row, 'menu')
  const leaked = passcode.leak !== null || passcode.valueLeaked
  const id = `overlap-${passcode.id}`
  const minutes = h('input', {
    type: 'number',
    name: 'overlapMinutes',
    min: 0,
    max: 10080,
    step: 1,
    value: 60,
    inputmode: 'numeric',
    'data-field': 'overlapMinutes',
    id,
  })
  const overlapping = passcode.previousValueEndsAt !== null
  const form = actionForm(
    { class: 'fields' },
    [
      overlapping
        ? h(
            'p',
            { class: 'warning' },
            'The value replaced by the last rotation stops working ',
            time(passcode.previousValueEndsAt),
            '. Rotating again stops the previous value at once.',
          )
        : null,
      leaked
        ? h('p', { class: 'warning no-overlap' }, 'Its value was found in public, so the rotation ends it at once: the public value gets no overlap.')
        : h('div', { class: 'field' }, h('label', { for: id }, 'Old value keeps working for (minutes)'), minutes),
    ],
    {
      submit: 'Rotate & View',
      onCancel: () => view.show(back),
      action: async () => {
        const text = leaked ? '0' : minutes.value.trim()
        // Empty is not zero: ending the current value at once must be chosen.
        if (text === '')
          throw new FieldError(
            'overlapMinutes',
            'Old value keeps working for (minutes): enter a number of minutes, 0 to stop the current value at once',
          )
        const overlap = /^\d+$/.test(text) ? Number(text) : text
        const current = leaked
          ? 'the public one, which stops working at once and never works again'
          : `the current one, which ${overlap === 0 ? 'stops working at once' : `keeps working for ${overlap} minutes`}`
        const question = `Rotate ${quoted(passcode.name)}? A new value replaces ${current}.${overlapping ? ' The previous value, from the last rotation, stops working at once.' : ''}`
        if (typeof overlap === 'number' && !(await confirmAction({ question, confirm: 'Rotate now', danger: true }))) return
        const rotated = await api<IssuedPasscode>('POST', `/passcodes/${segment(passcode.id)}/rotate`, { overlapMinutes: overlap })
        await view.reload()
        revealValue(`New value for ${quoted(rotated.passcode.name)}`, rotated.value, COPY_NOW, () => view.show(back))
      },
    },
  )
  openRowForm(row, view.columns, `Rotate ${quoted(passcode.name)}`, form, leaked ? $<HTMLButtonElement>(form, 'button[type="submit"]') : minutes)
}
