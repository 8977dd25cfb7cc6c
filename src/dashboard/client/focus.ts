// Where the focus goes after a change to a row of a list: back to that row, on the
// control that started it (or its first control), so that a keyboard user goes on from
// where they were instead of from the top of a hundred rows; if the row is gone (a
// delete), the row that took its place, or the one before; with no row left, the
// page's status line. Rows carry `data-key`, their controls `data-control`.

/** A row to come back to, taken before the change. */
export interface RowFocus {
  readonly key: string
  /** The `data-control` to land on when the row still has it. */
  readonly control: string | undefined
  /** The row's place among the list's rows, for the one that takes its place. */
  readonly index: number
}

/** The row `element` is in (or is), as a {@link RowFocus}, landing on `control`. */
export function rowFocus(element: Element, control?: string): RowFocus | undefined {
  const row = element.closest<HTMLTableRowElement>('tr[data-key]')
  if (row === null) return undefined
  const rows = [...(row.parentElement?.querySelectorAll('tr[data-key]') ?? [])]
  return { key: row.dataset.key!, control, index: rows.indexOf(row) }
}

/**
 * Focuses the row of `focus` in `body` (see the file's comment); false when no row is
 * left, for the caller to focus its status line.
 */
export function restoreFocus(body: ParentNode, focus: RowFocus): boolean {
  const rows = [...body.querySelectorAll<HTMLTableRowElement>('tr[data-key]')]
  const same = rows.find((row) => row.dataset.key === focus.key)
  const row = same ?? rows[Math.min(focus.index, rows.length - 1)]
  if (row === undefined) return false
  const wanted = same && focus.control !== undefined ? row.querySelector<HTMLElement>(`[data-control="${focus.control}"]`) : null
  const target = wanted ?? row.querySelector<HTMLElement>('[data-control]')
  if (target === null) row.tabIndex = -1
  ;(target ?? row).focus()
  return true
}
