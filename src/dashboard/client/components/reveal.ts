// A passcode value or a webhook's signing secret, shown once (create, rotate, "Show my passcode"), with a copy button;
// Done takes it off the page.
import { h } from '../dom'

/**
 * Shows `value` in the page's reveal slot under `title`, focused and selected; Done
 * removes it and calls `onDone` (which puts the focus back where the work was). `label`
 * names the value for a screen reader.
 */
export function revealValue(title: string, value: string, warning: string, onDone: () => void, label = 'Passcode value'): void {
  const slot = document.getElementById('reveal-slot')!
  slot.replaceChildren()
  const input = h('input', { class: 'value', readonly: true, value, 'aria-label': label, spellcheck: 'false', autocomplete: 'off' })
  const copied = h('span', { role: 'status', class: 'muted' })
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(input.value)
      copied.textContent = 'Copied.'
    } catch {
      input.select()
      copied.textContent = 'Press Ctrl+C (⌘C on a Mac) to copy.'
    }
  }
  const done = () => {
    slot.replaceChildren()
    onDone()
  }
  slot.append(
    h(
      'section',
      { class: 'panel reveal', role: 'region', 'aria-labelledby': 'reveal-title' },
      h('h3', { id: 'reveal-title', tabindex: '-1' }, title),
      warning ? h('p', { class: 'warning' }, warning) : null,
      h(
        'div',
        { class: 'value-row' },
        input,
        h('button', { type: 'button', class: 'primary', onclick: copy }, 'Copy'),
        h('button', { type: 'button', onclick: done }, 'Done'),
        copied,
      ),
    ),
  )
  input.focus()
  input.select()
}
