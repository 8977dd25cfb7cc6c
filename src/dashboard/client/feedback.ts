// What the page says back: one message at a time at the top (an error, or a status that
// screen readers announce), an error under the field it is about, and run(), which every
// button and form goes through so that its errors show where they belong.
import { ApiError, FieldError } from './api'
import { context } from './context'
import { h } from './dom'

const notice = (): HTMLElement => document.getElementById('notice')!
const announcer = (): HTMLElement => document.getElementById('announcer')!

/** The field that an error without `field` is about. */
const CODE_FIELDS: Readonly<Record<string, string>> = { ERR_DUPLICATE_NAME: 'name', ERR_ALREADY_GRANTED: 'userId' }

function errorMessage(error: unknown): string {
  return error instanceof ApiError || error instanceof FieldError ? error.message : 'Something went wrong. Try again.'
}

/** Shows an error at the top of the page; it replaces any earlier message. */
export function showError(error: unknown): void {
  clearMessages()
  if (error instanceof ApiError && error.status === 401) {
    notice().append('Your session has ended. ', h('a', { href: `${context().base}/` }, 'Sign in again'), '.')
    return
  }
  notice().textContent = errorMessage(error)
}

let announcement = 0
/** Clears every message of the page: each new one replaces the last. */
export function clearMessages(): void {
  notice().replaceChildren()
  announcer().textContent = ''
  announcement++
  for (const element of document.querySelectorAll('#main .form-error')) element.remove()
}

/**
 * Says `text` in the page's status line, which screen readers announce; with `focus`,
 * moves the focus there too (after a change that left nothing else to focus).
 */
export function announce(text: string, { focus = false }: { focus?: boolean } = {}): void {
  clearMessages()
  const mine = announcement
  // A fresh text node makes screen readers read the same message twice in a row too.
  setTimeout(() => {
    if (mine !== announcement) return
    announcer().textContent = text
    if (focus) announcer().focus()
  }, 50)
}

let fieldErrors = 0
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
  const id = `field-error-${++fieldErrors}`
  // A field in a folded part of the form (the restrictions' <details>) is shown first.
  const folded = target.closest('details')
  if (folded) folded.open = true
  ;(target.closest('.field, fieldset') ?? target.parentElement)?.append(h('p', { class: 'field-error', id, role: 'alert' }, message))
  target.setAttribute('aria-invalid', 'true')
  // The error first, then what described the field before (a hint), restored when the error goes.
  const before = target.getAttribute('aria-describedby')
  if (before !== null) target.dataset.describedby = before
  target.setAttribute('aria-describedby', before === null ? id : `${id} ${before}`)
  target.focus()
}
/** Removes the field errors of a form, and gives each field its description back. */
export function clearFieldErrors(form: HTMLElement): void {
  for (const input of form.querySelectorAll<HTMLElement>('[aria-invalid]')) {
    input.removeAttribute('aria-invalid')
    if (input.dataset.describedby === undefined) input.removeAttribute('aria-describedby')
    else input.setAttribute('aria-describedby', input.dataset.describedby)
  }
  for (const note of form.querySelectorAll('.field-error')) note.remove()
}

/**
 * The input of a form that an API field path points at: the longest part of the path an
 * input claims (`credits.refill.amount` → its own input; `allowedAddresses.2` → the
 * ranges' textarea; `validity.days` → `validity`).
 */
function fieldTarget(form: HTMLElement, field: string): HTMLElement | null {
  const parts = field.split('.')
  for (let length = parts.length; length > 0; length--) {
    const target = form.querySelector<HTMLElement>(`[data-field="${CSS.escape(parts.slice(0, length).join('.'))}"]`)
    if (target) return target
  }
  return null
}

/**
 * Runs an action from a button or form, with the button disabled meanwhile (and the
 * focus back on it afterwards if it had it). An error shows once, where it belongs:
 * under the form's field it names (from the API, or a FieldError raised before
 * sending), else in the open form, else at the top of the page.
 *
 * @example
 * ```ts
 * button.addEventListener('click', () => run(button, () => api('POST', '/passcodes/p1/enable')))
 * ```
 */
export async function run(button: HTMLButtonElement | null, action: () => Promise<unknown>, form?: HTMLFormElement): Promise<void> {
  notice().replaceChildren()
  if (form) clearFieldErrors(form)
  const hadFocus = button !== null && document.activeElement === button
  if (button) button.disabled = true
  try {
    await action()
  } catch (error) {
    const known = error instanceof ApiError || error instanceof FieldError
    const field = known ? error.field || CODE_FIELDS[error.code ?? ''] : undefined
    const target = form && field ? fieldTarget(form, field) : null
    if (target) {
      clearMessages()
      showFieldError(target, labelledMessage(target, field!, errorMessage(error)))
    } else if (form && known && !(error instanceof ApiError && error.status === 401)) {
      clearMessages()
      form.querySelector('.actions')?.before(h('p', { class: 'form-error', role: 'alert' }, errorMessage(error)))
    } else showError(error)
  } finally {
    if (button?.isConnected) {
      button.disabled = false
      // A disabled button drops the focus to <body>: give it back unless something else took it.
      if (hadFocus && (document.activeElement === null || document.activeElement === document.body)) button.focus()
    }
  }
}
