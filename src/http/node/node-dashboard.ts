import type { IncomingMessage } from 'node:http'
import type { PasscodeAuth } from '../../service/create-passcode-auth'
import { assertPasscodeAuth, assertSessionOption, dashboardBasePath } from '../adapter-options'
import { createDashboard, type DashboardOptions } from '../dashboard/create-dashboard'
import { queryOf } from '../management/query'
import type { SessionResult } from '../management/types'
import { nodeBody, nodeHeader, writeNodeDashboardResponse } from './dashboard-io'
import type { NodeHandler } from './node-handlers'

/**
 * Options of {@link nodeDashboard}.
 *
 * @example
 * ```ts
 * const options: NodeDashboardMountOptions = { basePath: '/settings', session: (request) => sessions.get(request.headers.cookie ?? '') }
 * ```
 */
export interface NodeDashboardMountOptions extends DashboardOptions {
  /**
   * Resolves the request's session, from the host's own login, to
   * `{ accountId, actor }`, or `undefined` (answered 401). The only source of the
   * account and the actor: never the URL or the body.
   */
  readonly session: (request: IncomingMessage) => SessionResult | Promise<SessionResult>
  /** Where the host mounts the dashboard, such as `/settings` (`''` for the root): the management API is under `basePath + '/api'`. */
  readonly basePath: string
}

/** The path of a request target, without the query; an absolute-form target gives its path. */
function pathOf(target: string | undefined): string {
  const path = (target ?? '/').split('?', 1)[0]!
  if (path.startsWith('/')) return path
  try {
    return new URL(path).pathname
  } catch {
    return path
  }
}

/**
 * The dashboard for Node's own `http` server, with no framework: the management API
 * under `basePath + '/api'` and the Settings pages. Route the requests under
 * `basePath` to the handler it returns (it answers any other path with the dashboard's
 * 404); it always answers. It reads the request body itself.
 *
 * @param auth - what `createPasscodeAuth` returned
 * @param options - `basePath` and `session` (required), and {@link DashboardOptions}
 * @example
 * ```ts
 * import { createServer } from 'node:http'
 * import { nodeDashboard } from 'passcode-auth/dashboard'
 *
 * const settings = nodeDashboard(auth, { basePath: '/settings', session: (request) => sessionOf(request) })
 * createServer((request, response) => {
 *   if (request.url?.startsWith('/settings')) return void settings(request, response)
 *   response.statusCode = 404
 *   response.end()
 * }).listen(3000)
 * ```
 */
export function nodeDashboard(auth: PasscodeAuth, options: NodeDashboardMountOptions): NodeHandler {
  assertPasscodeAuth(auth, 'nodeDashboard')
  assertSessionOption(options, '(request) => { accountId, actor } | undefined')
  const base = dashboardBasePath(options.basePath)
  const { session } = options
  const dashboard = createDashboard(auth, options)
  return async function handleDashboard(request, response) {
    const method = (request.method ?? 'GET').toUpperCase()
    const path = pathOf(request.url)
    const inside = path === base || path.startsWith(`${base}/`)
    const answer = await dashboard.handle(
      {
        method,
        base,
        // Outside basePath: a path the dashboard has not, so its 404.
        path: inside ? path.slice(base.length) || '/' : '/not-the-dashboard',
        query: queryOf(request.url),
        header: (name) => nodeHeader(request.headers, name),
        body: () => nodeBody(request, () => undefined),
      },
      () => session(request),
    )
    writeNodeDashboardResponse(response, answer, method === 'HEAD')
  }
}
