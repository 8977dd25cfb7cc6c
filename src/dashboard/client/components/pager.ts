// Pages of a long list: "Rows per page" (25, 50 or 100) and Previous / Next with where
// one is ("Page 2 of 4"). The list says how many it shows ("Showing 26–50 of 100").
import { h } from '../dom'

/** The page sizes offered; the first is the default. */
export const PAGE_SIZES = [25, 50, 100] as const

/** `per` from a URL: one of {@link PAGE_SIZES}, else the default. */
export function pageSize(text: string | null): number {
  const size = Number(text)
  return (PAGE_SIZES as readonly number[]).includes(size) ? size : PAGE_SIZES[0]
}

/** The "Rows per page" field, with `id`, set to `per`. */
export function pageSizeField(id: string, per: number): { field: HTMLElement; select: HTMLSelectElement } {
  const select = h(
    'select',
    { id, name: 'per' },
    PAGE_SIZES.map((size) => h('option', { value: size, selected: size === per }, String(size))),
  )
  return { field: h('div', { class: 'field' }, h('label', { for: id }, 'Rows per page'), select), select }
}

/** What a list says of the rows it shows: "Showing 26–50 of 100", "Showing 10 of 100", or nothing when it shows all. */
export function shownText(first: number, last: number, matching: number, total: number): string {
  const range = last - first + 1 === matching ? String(matching) : `${first}–${last}`
  if (matching === total) return range === String(total) ? '' : `Showing ${range} of ${total}`
  return range === String(matching) ? `Showing ${matching} of ${total}` : `Showing ${range} of ${matching} matching (${total} in all)`
}

/**
 * Previous and Next, named for `what` ("Pages of passcodes"); `go` gets the page asked
 * for. The buttons stay focusable at the ends (aria-disabled), so the focus is never
 * dropped to the top of the page.
 */
export function pager(what: string, go: (page: number) => void): { element: HTMLElement; update(page: number, pages: number): void } {
  let current = 1
  let count = 1
  const where = h('span', { class: 'page-of' })
  const step = (by: number) => () => {
    const next = current + by
    if (next >= 1 && next <= count) go(next)
  }
  const previous = h('button', { type: 'button', onclick: step(-1) }, 'Previous')
  const next = h('button', { type: 'button', onclick: step(1) }, 'Next')
  const element = h('nav', { class: 'pager', 'aria-label': what }, previous, where, next)
  return {
    element,
    update(page, pages) {
      current = page
      count = pages
      element.hidden = pages <= 1
      where.textContent = `Page ${page} of ${pages}`
      previous.setAttribute('aria-disabled', String(page <= 1))
      next.setAttribute('aria-disabled', String(page >= pages))
    },
  }
}
