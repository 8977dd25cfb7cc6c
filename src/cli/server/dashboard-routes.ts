import type { IncomingMessage, ServerResponse } from 'node:http'
import type { TLSSocket } from 'node:tls'
import { createDashboard } from '../../http/dashboard/create-dashboard'
import type { DashboardResponse } from '../../http/management/types'
import { nodeBody, nodeHeader, writeNodeDashboardResponse } from '../../http/node/dashboard-io'
import type { Runtime } from '../runtime'
import { DASHBOARD_BASE, LOGIN_PATH, LOGOUT_PATH, type DashboardLogins } from './dashboard-logins'
import { PAGE_HEADERS } from '../../http/dashboard/pages'
import { isTrusted, trustedProxies } from './client-address'
import { requestPath, type Route } from './route'

const write = (request: IncomingMessage, response: ServerResponse, answer: DashboardResponse) =>
  writeNodeDashboardResponse(response, answer, request.method === 'HEAD')

/** Options of {@link dashboardRoutes}. */
export interface DashboardRouteOptions {
  /** Proxies whose `X-Forwarded-Proto` says whether the client used HTTPS (`--trust-proxy`). @default none */
  readonly trustProxy?: readonly string[]
}

/**
 * The dashboard of the reference server at /settings, over Node's request and
 * response like every route of it: the one-time login route and the logout route
 * first, then the pages and the management API, whose session is the login cookie and
 * nothing else. The cookie is `Secure` when the request came over HTTPS: on a TLS
 * socket, or from a trusted proxy whose `X-Forwarded-Proto` says `https`.
 */
export function dashboardRoutes(runtime: Runtime, logins: DashboardLogins, options: DashboardRouteOptions = {}): Route[] {
  const dashboard = createDashboard(runtime.auth, { logoutUrl: LOGOUT_PATH })
  const proxies = options.trustProxy === undefined || options.trustProxy.length === 0 ? undefined : trustedProxies(options.trustProxy)
  const overHttps = (request: IncomingMessage): boolean => {
    if ((request.socket as TLSSocket).encrypted === true) return true
    const peer = request.socket.remoteAddress
    if (proxies === undefined || peer === undefined || !isTrusted(proxies, peer)) return false
    // The proxy the client reached wrote the first value.
    const proto = nodeHeader(request.headers, 'x-forwarded-proto')?.split(',')[0]?.trim().toLowerCase()
    return proto === 'https'
  }
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
      handle: async (request, response) =>
        write(
          request,
          response,
          request.method === 'HEAD'
            ? { statusCode: 200, headers: { ...PAGE_HEADERS, 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' }, body: '' }
            : await logins.login(new URL(request.url ?? '/', 'http://localhost').searchParams.get('token') ?? undefined, overHttps(request)),
        ),
    },
    {
      path: LOGOUT_PATH,
      methods: ['POST'],
      async handle(request, response) {
        // Another site's page may not sign the operator out (CSRF): a browser says where a form came from.
        const site = nodeHeader(request.headers, 'sec-fetch-site')
        const origin = nodeHeader(request.headers, 'origin')
        const crossSite = site !== undefined ? site !== 'same-origin' && site !== 'none' : origin !== undefined && origin !== 'null' && new URL(origin).host !== request.headers.host
        if (crossSite) return write(request, response, { statusCode: 403, headers: { 'content-type': 'text/plain; charset=utf-8' }, body: 'Cross-site request refused' })
        write(request, response, await logins.logout(request.headers.cookie, overHttps(request)))
      },
    },
    { path: DASHBOARD_BASE, methods: '*', handle },
    { path: `${DASHBOARD_BASE}/`, prefix: true, methods: '*', handle },
  ]
}
