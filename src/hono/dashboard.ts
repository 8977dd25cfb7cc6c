import type { Context, MiddlewareHandler } from 'hono'
import type { DashboardOptions } from '../http/dashboard/create-dashboard'
import { fetchDashboard } from '../http/fetch/fetch-dashboard'
import type { SessionResult } from '../http/management/types'
import type { PasscodeAuth } from '../service/create-passcode-auth'

/**
 * Options of the Hono {@link dashboard}.
 *
 * @example
 * ```ts
 * const options: DashboardMountOptions = { basePath: '/settings', session: (c) => sessionOf(c.req.header('cookie')) }
 * ```
 */
export interface DashboardMountOptions extends DashboardOptions {
  /** The path it answers below, such as `/settings`: the full path of the request URL. */
  readonly basePath: string
  /**
   * Resolves the request's session, from the host's own login, to
   * `{ accountId, actor }`, or `undefined` (answered 401). The only source of the
   * account and the actor: never the URL or the body.
   */
  readonly session: (c: Context) => SessionResult | Promise<SessionResult>
}

/**
 * The dashboard for Hono 4: the management API under `basePath + '/api'` and the
 * Settings pages; every other path goes on to `next`. It reads the body through
 * `c.req.text()`, so it works after a validator or middleware that read it first.
 *
 * @param auth - what `createPasscodeAuth` returned
 * @param options - `basePath` and `session` (required), and {@link DashboardOptions}
 * @example
 * ```ts
 * import { dashboard } from 'passcode-auth/hono'
 *
 * app.use(dashboard(auth, { basePath: '/settings', session: (c) => sessionOf(c.req.header('cookie')) }))
 * ```
 */
export function dashboard(auth: PasscodeAuth, options: DashboardMountOptions): MiddlewareHandler {
  const glue = fetchDashboard(auth, options, '(c) => { accountId, actor } | undefined')
  return async function dashboardMiddleware(c, next) {
    const url = new URL(c.req.url)
    if (!glue.inside(url)) return next()
    return glue.answer(c.req.raw, { url, text: () => c.req.text(), session: () => options.session(c) })
  }
}
