import type { DashboardRequest } from './types'

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS'])
const NO_ORIGINS: ReadonlySet<string> = new Set()

/**
 * Whether a state-changing request comes from another site and must be refused
 * (CSRF, SPEC §5.29). The same decision as Go's `net/http.CrossOriginProtection`:
 * browsers send `Sec-Fetch-Site` (all current ones) or at least `Origin` on every
 * cross-origin POST, PUT, PATCH and DELETE, so
 *
 * 1. safe methods always pass;
 * 2. `Sec-Fetch-Site: same-origin` (or `none`, typed by the user) passes, any other
 *    value is refused;
 * 3. without it, an `Origin` whose host is the request's `Host`, or that is listed in
 *    `trustedOrigins`, passes; any other `Origin` is refused;
 * 4. with neither header the request is not from a browser (curl, a server) and
 *    passes: CSRF needs a victim's browser.
 *
 * An `Origin` that is not a URL (`garbage`, `http://[`, `null`) is another site's: the
 * answer is `true`, never an exception. The management API refuses with it; a host's
 * own state-changing routes beside it (a logout form) can use the same rule.
 *
 * The JSON-only bodies add a second fence: a cross-site HTML form cannot send
 * `Content-Type: application/json`.
 *
 * @param request - the request's method and headers (`header` gets lower-case names)
 * @param trustedOrigins - origins (`https://admin.example.com`) allowed besides the same host. @default none
 * @example
 * ```ts
 * import { isCrossSite } from 'passcode-auth/dashboard'
 *
 * const headers: Record<string, string> = { host: 'app.example.com', origin: 'https://evil.example' }
 * isCrossSite({ method: 'POST', header: (name) => headers[name] }) // true: refuse it with 403
 * ```
 */
export function isCrossSite(request: Pick<DashboardRequest, 'method' | 'header'>, trustedOrigins: ReadonlySet<string> = NO_ORIGINS): boolean {
  if (SAFE_METHODS.has(request.method)) return false
  const site = request.header('sec-fetch-site')
  if (site !== undefined) return site !== 'same-origin' && site !== 'none'
  const origin = request.header('origin')
  if (origin === undefined) return false
  if (trustedOrigins.has(origin)) return false
  const host = request.header('host')
  if (host === undefined) return true
  try {
    return new URL(origin).host !== host.toLowerCase()
  } catch {
    // "null" (sandboxed frames, some redirects) or garbage: not our origin.
    return true
  }
}
