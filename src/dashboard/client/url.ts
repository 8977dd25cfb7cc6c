// A page's view (search, filters, sort, page) kept in its URL's query, so that a reload
// or a link shows the same view. Replaced, not pushed, unless the caller says the change
// is a step of its own (a filter chosen): then Back returns to the view before it.

/** The page's query parameters now. */
export function readQuery(): URLSearchParams {
  return new URLSearchParams(location.search)
}

/** A query value: a list repeats its parameter (`tags=a&tags=b`). */
export type QueryValue = string | number | null | undefined | readonly string[]

/**
 * Writes `values` as the query (empty and default values left out); with `push`, as a new
 * history entry, unless the query is unchanged.
 *
 * @example
 * ```ts
 * writeQuery({ q: 'billing', tags: ['eu'], page: 1 }, { page: '1' }) // ?q=billing&tags=eu
 * ```
 */
export function writeQuery(values: Readonly<Record<string, QueryValue>>, defaults: Readonly<Record<string, string>> = {}, push = false): void {
  const next = new URLSearchParams()
  for (const [key, value] of Object.entries(values)) {
    for (const item of typeof value === 'object' && value !== null ? value : [value]) {
      if (item === null || item === undefined || item === '' || String(item) === defaults[key]) continue
      next.append(key, String(item))
    }
  }
  const text = next.toString()
  const url = text ? `?${text}` : location.pathname
  if (push && text !== location.search.slice(1)) history.pushState(null, '', url)
  else history.replaceState(null, '', url)
}
