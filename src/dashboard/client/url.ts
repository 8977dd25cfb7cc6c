// A page's view (search, filters, sort, page) kept in its URL's query, so that a reload
// or a link shows the same view. Replaced, not pushed: Back leaves the page.

/** The page's query parameters now. */
export function readQuery(): URLSearchParams {
  return new URLSearchParams(location.search)
}

/** Writes `values` as the query (empty and default values left out). */
export function writeQuery(
  values: Readonly<Record<string, string | number | null | undefined>>,
  defaults: Readonly<Record<string, string>> = {},
): void {
  const next = new URLSearchParams()
  for (const [key, value] of Object.entries(values)) {
    if (value === null || value === undefined || value === '' || String(value) === defaults[key]) continue
    next.set(key, String(value))
  }
  const text = next.toString()
  history.replaceState(null, '', text ? `?${text}` : location.pathname)
}
