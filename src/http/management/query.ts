/**
 * The query string of a request target (`/audit?action=x` → `action=x`), without the
 * `?`, still percent-encoded; `''` when there is none. Works for the origin form and the
 * absolute form alike: a target's first `?` starts its query.
 */
export function queryOf(target: string | undefined): string {
  const at = target?.indexOf('?') ?? -1
  return at < 0 ? '' : target!.slice(at + 1)
}
