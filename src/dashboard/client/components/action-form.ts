// Forms and confirmed actions: a form that ends with its buttons and runs through run()
// (so errors show by their field), a form in place of a table row that keeps the
// passcode's name in sight, and an action that asks first.
import { h, type Attributes, type Child } from '../dom'
import { clearFieldErrors, run } from '../feedback'
import { confirmAction, type ConfirmRequest } from './confirm-dialog'

/** What a form does on submit, and its buttons. */
export interface FormActions {
  /** The submit button's text. */
  readonly submit: string
  /** Primary (blue) unless false. */
  readonly primary?: boolean
  /** Cancel, also on Escape; no Cancel button without it. */
  readonly onCancel?: () => unknown
  /** What submitting does; its errors show through run(). */
  readonly action: () => Promise<unknown>
}

/**
 * A form that ends with its actions. Submitting runs `action` through run(), so errors
 * show and point at their field; reset() brings its radios' dependants back too.
 */
export function actionForm(attributes: Attributes, children: Child, { submit, primary = true, onCancel, action }: FormActions): HTMLFormElement {
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

let rowForms = 0

/**
 * Puts a form in place of a table row's cells, under a heading that keeps in sight what
 * it changes ("Rotate “Billing”"), which also names the form; moves the focus into it.
 */
export function openRowForm(row: HTMLTableRowElement, columns: number, title: string, form: HTMLFormElement, focus: HTMLElement): void {
  const id = `row-form-${++rowForms}`
  form.setAttribute('aria-labelledby', id)
  form.prepend(h('h3', { id, class: 'row-form-title' }, title))
  row.replaceChildren(h('td', { colspan: columns }, form))
  row.className = 'row-form'
  focus.focus()
}

/** Asks `request` first; once confirmed, runs `action` through run() with `button` off meanwhile. */
export async function confirmThen(button: HTMLButtonElement | null, request: ConfirmRequest, action: () => Promise<unknown>): Promise<void> {
  if (await confirmAction(request)) await run(button, action)
}
