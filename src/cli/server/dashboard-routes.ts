import type { IncomingMessage, ServerResponse } from 'node:http'
import { createDashboard } from '../../http/dashboard/create-dashboard'
import type { DashboardResponse } from '../../http/management/types'
import { nodeBody, nodeHeader, writeNodeDashboardResponse } from '../../http/node/dashboard-io'
import type { Runtime } from '../runtime'
import { DASHBOARD_BASE, LOGIN_PATH, type DashboardLogins } from './dashboard-logins'
import { PAGE_HEADERS } from '../../http/dashboard/pages'
import { requestPath, type Route } from './route'

const write = (request: IncomingMessage, response: ServerResponse, answer: DashboardResponse) =>
  writeNodeDashboardResponse(response, answer, request.method === 'HEAD')

/**
 * The dashboard of the reference server at /settings, over Node's request and
 * response like every route of it: the one-time login route first, then the pages and
 * the management API, whose session is the login cookie and nothing else.
 */
export function dashboardRoutes(runtime: Runtime, logins: DashboardLogins): Route[] {
  const dashboard = createDashboard(runtime.auth)
  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const answer = await dashboard.handle(
      {
        method: (request.method ?? 'GET').toUpperCase(),
        base: DASHBOARD_BASE,
        path: requestPath(request.url).slice(DASHBOARD_BASE.length) || '/',
        header: (name) => nodeHeader(request.headers, name),
        body: () => nodeBody(request, () => undefined),
      },
      () => logins.session(request.headers.cookie),
    )
    write(request, response, answer)
  }
  return [
    {
      path: LOGIN_PATH,
      methods: ['GET', 'HEAD'],
      // A HEAD (a link preview, a scanner) never uses the link up: only the person's GET does (SPEC §5.35).
      handle: (request, response) =>
        write(
          request,
          response,
          request.method === 'HEAD'
            ? { statusCode: 200, headers: { ...PAGE_HEADERS, 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' }, body: '' }
            : logins.login(new URL(request.url ?? '/', 'http://localhost').searchParams.get('token') ?? undefined),
        ),
    },
    { path: DASHBOARD_BASE, methods: '*', handle },
    { path: `${DASHBOARD_BASE}/`, prefix: true, methods: '*', handle },
  ]
}
