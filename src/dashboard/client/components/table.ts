// The lists' tables: a header row, body rows keyed for the focus (src/dashboard/client/
// focus.ts), and cells labelled for the phone layout, where each row becomes a card and
// each cell a labelled line. A cell with nothing in it has no label, and no line.
import { h, type Child } from '../dom'

/** A table labelled by the page's title, with `columns` as its header. */
export function listTable(columns: readonly string[], body: HTMLTableSectionElement, className?: string): HTMLTableElement {
  return h(
    'table',
    { 'aria-labelledby': 'page-title', class: className },
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        columns.map((name) => h('th', { scope: 'col' }, name)),
      ),
    ),
    body,
  )
}

const isEmpty = (children: readonly Child[]): boolean =>
  children.every((child) => child === null || child === undefined || child === false || child === '' || (Array.isArray(child) && isEmpty(child)))

/** A cell labelled `label` on a phone; one with no content is blank there (no empty "Expires" line). */
export function cell(label: string, ...children: Child[]): HTMLTableCellElement {
  return isEmpty(children) ? h('td', { class: 'blank' }) : h('td', { 'data-label': label }, ...children)
}

/** The one row of an empty list ("No passcodes yet."). */
export function emptyRow(columns: number, text: string): HTMLTableRowElement {
  return h('tr', {}, h('td', { colspan: columns, class: 'empty' }, text))
}
