import type { DashboardOptions } from '../http/dashboard/create-dashboard'
import { fetchDashboard } from '../http/fetch/fetch-dashboard'
import type { SessionResult } from '../http/management/types'
import type { PasscodeAuth } from '../service/create-passcode-auth'

/**
 * Options of the fetch {@link dashboard}.
 *
 * @example
 * ```ts
 * const options: DashboardMountOptions = { basePath: '/settings', session: (request) => sessionOf(request.headers.get('cookie')) }
 * ```
 */
export interface DashboardMountOptions extends DashboardOptions {
  /** The path it answers below, such as `/settings`. */
  readonly basePath: string
  /**
   * Resolves the request's session, from the host's own login, to
   * `{ accountId, actor }`, or `undefined` (answered 401). The only source of the
   * account and the actor: never the URL or the body.
   */
  readonly session: (request: Request) => SessionResult | Promise<SessionResult>
}

/**
 * The dashboard over web-standard `Request`/`Response` (Bun, Deno, Cloudflare Workers,
 * Next.js route handlers): the management API under `basePath + '/api'` and the
 * Settings pages. Call it for requests under `basePath`; it answers 404 for any other
 * path. For Hono, `passcode-auth/hono` has its own `dashboard`.
 *
 * @param auth - what `createPasscodeAuth` returned
 * @param options - `basePath` and `session` (required), and {@link DashboardOptions}
 * @example
 * ```ts
 * import { dashboard } from 'passcode-auth/fetch'
 *
 * const settings = dashboard(auth, { basePath: '/settings', session: (request) => sessionOf(request) })
 * Bun.serve({ fetch: (request) => (new URL(request.url).pathname.startsWith('/settings') ? settings(request) : app(request)) })
 * ```
 */
export function dashboard(auth: PasscodeAuth, options: DashboardMountOptions): (request: Request) => Promise<Response> {
  const glue = fetchDashboard(auth, options, '(request) => { accountId, actor } | undefined')
  return (request) => glue.answer(request, { url: new URL(request.url), text: () => request.text(), session: () => options.session(request) })
}
