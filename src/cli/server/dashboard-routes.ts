import type { IncomingMessage, ServerResponse } from 'node:http'
import { nodeDashboard, type DashboardResponse } from '../../dashboard/index'
import type { Runtime } from '../runtime'
import { DASHBOARD_BASE, LOGIN_PATH, type DashboardLogins } from './dashboard-logins'
import type { Route } from './route'

/** Writes the login route's answer (its own page or redirect); no body on `HEAD`. */
function write(request: IncomingMessage, response: ServerResponse, answer: DashboardResponse): void {
  response.statusCode = answer.statusCode
  for (const name in answer.headers) response.setHeader(name, answer.headers[name]!)
  response.setHeader('content-length', Buffer.byteLength(answer.body))
  response.end(request.method === 'HEAD' ? undefined : answer.body)
}

/**
 * The dashboard of the reference server at /settings, over Node's request and
 * response like every route of it: the one-time login route first, then the pages and
 * the management API (`nodeDashboard` of `passcode-auth/dashboard`), whose session is
 * the login cookie and nothing else.
 */
export function dashboardRoutes(runtime: Runtime, logins: DashboardLogins): Route[] {
  const handle = nodeDashboard(runtime.auth, { basePath: DASHBOARD_BASE, session: (request) => logins.session(request.headers.cookie) })
  return [
    {
      path: LOGIN_PATH,
      methods: ['GET', 'HEAD'],
      handle: (request, response) => write(request, response, logins.login(new URL(request.url ?? '/', 'http://localhost').searchParams.get('token') ?? undefined)),
    },
    { path: DASHBOARD_BASE, methods: '*', handle },
    { path: `${DASHBOARD_BASE}/`, prefix: true, methods: '*', handle },
  ]
}
