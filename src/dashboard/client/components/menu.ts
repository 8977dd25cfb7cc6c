// A menu button (the WAI-ARIA Authoring Practices' "menu button" pattern): a row's
// secondary actions behind one button, as Stripe's API keys page has them, so that a
// row is one line tall. The button says what it opens; Enter, Space or Arrow Down opens
// the menu on its first item, Arrow Up on its last; in the menu the arrows, Home and End
// move, a letter goes to the next item starting with it, Escape closes it back on the
// button, Tab closes it and moves on from the button; a click elsewhere closes it.
import { h, hidden } from '../dom'

/** One action of a menu. */
export interface MenuItem {
  /** What it does, one word or two: "Rotate", "Delete". */
  readonly text: string
  /** Red, for what cannot be undone. */
  readonly danger?: boolean
  /** Runs with the menu closed and the focus back on its button (a confirm dialog gives it back there). */
  readonly select: () => unknown
}

let menus = 0
let closeOpen: (() => void) | undefined

/**
 * A button named `text` + `label` for screen readers ("More" + " actions for Billing")
 * that opens a menu of `items`.
 *
 * @example
 * ```ts
 * menuButton('More', ' actions for Billing', [{ text: 'Delete', danger: true, select: () => remove() }])
 * ```
 */
export function menuButton(text: string, label: string, items: readonly MenuItem[]): HTMLElement {
  const id = `menu-${++menus}`
  const button = h(
    'button',
    {
      type: 'button',
      class: 'menu-button',
      id: `${id}-button`,
      'aria-haspopup': 'menu',
      'aria-expanded': 'false',
      'aria-controls': id,
      'data-control': 'menu',
    },
    text,
    hidden(label),
  )
  const entries = items.map((item) =>
    h('button', { type: 'button', role: 'menuitem', tabindex: -1, class: item.danger ? 'danger' : null, onclick: () => choose(item) }, item.text),
  )
  const menu = h('div', { class: 'menu', role: 'menu', id, 'aria-labelledby': `${id}-button`, hidden: true }, entries)

  function outside(event: Event): void {
    if (!wrap.contains(event.target as Node)) close(false)
  }
  function close(focusButton: boolean): void {
    if (menu.hidden) return
    menu.hidden = true
    button.setAttribute('aria-expanded', 'false')
    document.removeEventListener('pointerdown', outside, true)
    if (closeOpen === shut) closeOpen = undefined
    if (focusButton) button.focus()
  }
  const shut = () => close(false)
  function openOn(index: number): void {
    closeOpen?.()
    menu.hidden = false
    button.setAttribute('aria-expanded', 'true')
    document.addEventListener('pointerdown', outside, true)
    closeOpen = shut
    entries.at(index)?.focus()
  }
  function choose(item: MenuItem): void {
    close(true)
    item.select()
  }

  button.addEventListener('click', () => (menu.hidden ? openOn(0) : close(true)))
  button.addEventListener('keydown', (event) => {
    if (event.key !== 'ArrowDown' && event.key !== 'ArrowUp') return
    event.preventDefault()
    openOn(event.key === 'ArrowDown' ? 0 : -1)
  })
  menu.addEventListener('keydown', (event) => {
    const at = entries.indexOf(document.activeElement as HTMLButtonElement)
    const move = (index: number) => entries.at(index % entries.length)?.focus()
    if (event.key === 'ArrowDown') move(at + 1)
    else if (event.key === 'ArrowUp') move(at - 1)
    else if (event.key === 'Home') move(0)
    else if (event.key === 'End') move(-1)
    else if (event.key === 'Escape') close(true)
    else if (event.key === 'Tab') {
      // Closed, from its button: Tab goes on to what follows the button.
      close(true)
      return
    } else if (event.key.length === 1 && /\S/.test(event.key)) {
      const next = [...entries.slice(at + 1), ...entries.slice(0, at + 1)].find((entry) =>
        entry.textContent.toLowerCase().startsWith(event.key.toLowerCase()),
      )
      next?.focus()
    } else return
    event.preventDefault()
    // Escape closes the menu only, not a row form or dialog around it.
    event.stopPropagation()
  })
  menu.addEventListener('focusout', (event) => {
    if (!wrap.contains(event.relatedTarget as Node | null) && event.relatedTarget !== null) close(false)
  })
  const wrap = h('div', { class: 'menu-wrap' }, button, menu)
  return wrap
}
