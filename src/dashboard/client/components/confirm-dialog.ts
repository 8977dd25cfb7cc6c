// The dashboard's confirm step: an in-page modal <dialog> instead of window.confirm, so
// that it is part of the page (axe scans it, it is styled and labelled like the rest)
// and its buttons say what they do. No inline style or script: the CSP allows neither.
import { h } from '../dom'

/** What a confirm dialog asks. */
export interface ConfirmRequest {
  /**
   * The question, as one text: its first sentence up to the "?" is the heading, the
   * rest the explanation under it ("Delete the passcode “Billing”? Calls with it stop
   * working at once.").
   */
  readonly question: string
  /** The confirming button, named by what it does: "Delete “Billing”", "Rotate now". */
  readonly confirm: string
  /** Whether what it does cannot be undone: the button is red. */
  readonly danger?: boolean
}

let open: HTMLDialogElement | undefined
let dialogs = 0

/**
 * Asks `question` in a modal dialog labelled by its heading and described by the rest;
 * resolves `true` when the confirming button is pressed, `false` on Cancel or Escape.
 * The focus starts on Cancel (the safe choice) and goes back to the element that had
 * it once the dialog closes (after the caller's own reaction, so a button the caller
 * disabled meanwhile gets it back once enabled again).
 *
 * @example
 * ```ts
 * if (await confirmAction({ question: 'Delete the passcode “Billing”? Calls with it stop working at once.', confirm: 'Delete “Billing”', danger: true })) remove()
 * ```
 */
export function confirmAction({ question, confirm, danger = false }: ConfirmRequest): Promise<boolean> {
  open?.close()
  const trigger = document.activeElement instanceof HTMLElement ? document.activeElement : null
  const id = `confirm-${++dialogs}`
  // After a quoted name when there is one: a name may hold a "?" of its own.
  const quoted = question.indexOf('”? ')
  const split = quoted === -1 ? question.indexOf('? ') : quoted + 1
  const title = split === -1 ? question : question.slice(0, split + 1)
  const details = split === -1 ? '' : question.slice(split + 2)

  const answer = (value: string) => (): void => dialog.close(value)
  const yes = h('button', { type: 'button', class: danger ? 'danger' : 'primary', onclick: answer('confirm') }, confirm)
  const no = h('button', { type: 'button', autofocus: true, onclick: answer('cancel') }, 'Cancel')
  const dialog: HTMLDialogElement = h(
    'dialog',
    { class: 'confirm', 'aria-labelledby': `${id}-title`, 'aria-describedby': details === '' ? null : `${id}-details` },
    h('h2', { id: `${id}-title` }, title),
    details === '' ? null : h('p', { id: `${id}-details` }, details),
    h('div', { class: 'actions' }, yes, no),
  )
  document.body.append(dialog)
  open = dialog
  return new Promise((resolve) => {
    // Escape fires `cancel`, then `close` with an empty returnValue: a no, like Cancel.
    dialog.addEventListener('close', () => {
      if (open === dialog) open = undefined
      dialog.remove()
      resolve(dialog.returnValue === 'confirm')
      setTimeout(() => {
        if (trigger?.isConnected && !document.querySelector('dialog[open]')) trigger.focus()
      })
    })
    dialog.showModal()
  })
}
