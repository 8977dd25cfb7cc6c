import type { Context, Middleware, Next } from 'koa'
import { assertPasscodeAuth, assertSessionOption, dashboardBasePath } from '../http/adapter-options'
import { createDashboard, type DashboardOptions } from '../http/dashboard/create-dashboard'
import type { SessionResult } from '../http/management/types'
import { nodeBody, nodeHeader } from '../http/node/dashboard-io'
import type { PasscodeAuth } from '../service/create-passcode-auth'

/**
 * Options of the Koa {@link dashboard}.
 *
 * @example
 * ```ts
 * const options: DashboardMountOptions = { basePath: '/settings', session: (ctx) => ctx.state.session }
 * ```
 */
export interface DashboardMountOptions extends DashboardOptions {
  /** The path it answers below, such as `/settings`. Koa has no mounting of its own. */
  readonly basePath: string
  /**
   * Resolves the request's session, from the host's own login, to
   * `{ accountId, actor }`, or `undefined` (answered 401). The only source of the
   * account and the actor: never the URL or the body.
   */
  readonly session: (ctx: Context) => SessionResult | Promise<SessionResult>
}

/**
 * The dashboard for Koa 2 and 3: the management API under `basePath + '/api'` and the
 * Settings pages; every other path goes on to `next`. Works with or without a body
 * parser before it.
 *
 * @param auth - what `createPasscodeAuth` returned
 * @param options - `basePath` and `session` (required), and {@link DashboardOptions}
 * @example
 * ```ts
 * import { dashboard } from 'passcode-auth/koa'
 *
 * app.use(dashboard(auth, { basePath: '/settings', session: (ctx) => ctx.state.dashboardSession }))
 * ```
 */
export function dashboard(auth: PasscodeAuth, options: DashboardMountOptions): Middleware {
  assertPasscodeAuth(auth, 'dashboard')
  assertSessionOption(options, '(ctx) => { accountId, actor } | undefined')
  const base = dashboardBasePath(options.basePath)
  const handler = createDashboard(auth, options)

  return async (ctx: Context, next: Next) => {
    const path = ctx.path
    if (path !== base && !path.startsWith(`${base}/`)) {
      await next()
      return
    }
    const answer = await handler.handle(
      {
        method: ctx.method.toUpperCase(),
        base,
        path: path.slice(base.length) || '/',
        query: ctx.querystring,
        header: (name) => nodeHeader(ctx.req.headers, name),
        body: () => nodeBody(ctx.req, () => (ctx.request as { body?: unknown }).body),
      },
      () => options.session(ctx),
    )
    ctx.status = answer.statusCode
    ctx.set(answer.headers as Record<string, string>)
    if (answer.statusCode !== 204) ctx.body = answer.body
  }
}
