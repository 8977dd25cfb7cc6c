import { InvalidOptionsError } from '../core/errors'
import { assertPasscodeAuth, assertSessionOption } from '../http/adapter-options'
import { createDashboard, type DashboardOptions } from '../http/dashboard/create-dashboard'
import type { DashboardResponse, SessionResult } from '../http/management/types'
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

// A copy of the headers: answers share frozen header objects, and a server may add to
// the object a Response was made with (@hono/node-server sets Content-Length on it).
const toResponse = (answer: DashboardResponse, head: boolean): Response =>
  new Response(answer.statusCode === 204 || head ? null : answer.body, { status: answer.statusCode, headers: { ...answer.headers } })

/**
 * The dashboard over web-standard `Request`/`Response` (Bun, Deno, Cloudflare Workers,
 * Next.js route handlers, Hono's `c.req.raw`): the management API under
 * `basePath + '/api'` and the Settings pages. Call it for requests under `basePath`;
 * it answers 404 for any other path.
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
  assertPasscodeAuth(auth, 'dashboard')
  assertSessionOption(options, '(request) => { accountId, actor } | undefined')
  const base = typeof options.basePath === 'string' ? options.basePath.replace(/\/+$/, '') : undefined
  if (base === undefined || (base !== '' && !base.startsWith('/'))) throw new InvalidOptionsError('basePath', 'must be a path such as "/settings"')
  const handler = createDashboard(auth, options)

  return async (request) => {
    const method = request.method.toUpperCase()
    const url = new URL(request.url)
    const path = url.pathname
    const inside = path === base || path.startsWith(`${base}/`)
    const answer = await handler.handle(
      {
        method,
        base,
        // Outside basePath: a path the dashboard has not, so its 404.
        path: inside ? path.slice(base.length) || '/' : '/not-the-dashboard',
        query: url.search.slice(1),
        header: (name) => request.headers.get(name) ?? undefined,
        body: async () => {
          const text = await request.text()
          return text === '' ? undefined : { text }
        },
      },
      () => options.session(request),
    )
    return toResponse(answer, method === 'HEAD')
  }
}
