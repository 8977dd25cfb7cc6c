// A row's "Usage" button: it opens the 30-day chart (usage-chart.ts) in a row of its own
// under the passcode's row, as wide as the table, instead of squeezing it into a column;
// on My passcode, under the details. Closed, it costs nothing; opened the first time, it
// loads the usage.
import { h, hidden } from '../dom'
import { usageChart, type PasscodeUsage } from './usage-chart'

let panels = 0

/**
 * A disclosure button "Usage" (" of Billing" for screen readers) whose panel `place`
 * puts on the page (and returns how to take it away again).
 */
export function usageButton(name: string, load: () => Promise<PasscodeUsage>, place: (panel: HTMLElement) => () => void): HTMLButtonElement {
  const id = `usage-${++panels}`
  let remove: (() => void) | undefined
  const button = h(
    'button',
    { type: 'button', class: 'link usage-toggle', 'aria-expanded': 'false', 'aria-controls': id },
    'Usage',
    hidden(` of ${name}`),
  )
  button.addEventListener('click', () => {
    if (remove) {
      remove()
      remove = undefined
      button.setAttribute('aria-expanded', 'false')
      return
    }
    const body = h('div', { class: 'usage-body', 'aria-live': 'polite' }, 'Loading…')
    const panel = h(
      'section',
      { class: 'usage-panel', id, 'aria-labelledby': `${id}-title` },
      h('h3', { id: `${id}-title` }, `Usage of ${name}`),
      body,
    )
    remove = place(panel)
    button.setAttribute('aria-expanded', 'true')
    load().then(
      (usage) => body.replaceChildren(usageChart(usage)),
      (error: unknown) => {
        body.textContent = `The usage could not be loaded${error instanceof Error && error.message ? `: ${error.message}` : ''}.`
      },
    )
  })
  return button
}

/** Places a panel in a row of its own right under `row`, spanning the table. */
export function underRow(row: HTMLTableRowElement, columns: number): (panel: HTMLElement) => () => void {
  return (panel) => {
    const detail = h('tr', { class: 'detail-row' }, h('td', { colspan: columns }, panel))
    row.after(detail)
    return () => detail.remove()
  }
}
