import type { IncomingMessage, ServerResponse } from 'node:http'
import type { TLSSocket } from 'node:tls'
import { isCrossSite, nodeDashboard, type DashboardResponse } from '../../dashboard/index'
import type { Runtime } from '../runtime'
import { DASHBOARD_BASE, LOGIN_PATH, LOGOUT_PATH, PAGE_HEADERS, type DashboardLogins } from './dashboard-logins'
import { isTrusted, trustedProxies } from './client-address'
import type { Route } from './route'

/** One request header as a string: the first value of a repeated one. */
const headerOf = (request: IncomingMessage, name: string): string | undefined => {
  const value = request.headers[name]
  return Array.isArray(value) ? value[0] : value
}

/** Writes the login route's answer (its own page or redirect); no body on `HEAD`. */
function write(request: IncomingMessage, response: ServerResponse, answer: DashboardResponse): void {
  response.statusCode = answer.statusCode
  for (const name in answer.headers) response.setHeader(name, answer.headers[name]!)
  response.setHeader('content-length', Buffer.byteLength(answer.body))
  response.end(request.method === 'HEAD' ? undefined : answer.body)
}

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
  const proxies = options.trustProxy === undefined || options.trustProxy.length === 0 ? undefined : trustedProxies(options.trustProxy)
  const overHttps = (request: IncomingMessage): boolean => {
    // A plain socket has no `encrypted` at all.
    if ((request.socket as Partial<TLSSocket>).encrypted === true) return true
    const peer = request.socket.remoteAddress
    if (proxies === undefined || peer === undefined || !isTrusted(proxies, peer)) return false
    // The proxy the client reached wrote the first value.
    const proto = headerOf(request, 'x-forwarded-proto')?.split(',')[0]?.trim().toLowerCase()
    return proto === 'https'
  }
  const handle = nodeDashboard(runtime.auth, {
    basePath: DASHBOARD_BASE,
    logoutUrl: LOGOUT_PATH,
    session: (request) => logins.session(request.headers.cookie),
  })
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
            : await logins.login(
                URL.parse(request.url ?? '/', 'http://localhost')?.searchParams.get('token') ?? undefined,
                overHttps(request),
                request.headers.cookie,
              ),
        ),
    },
    {
      path: LOGOUT_PATH,
      methods: ['POST'],
      async handle(request, response) {
        // Another site's page may not sign the operator out (CSRF): the management API's rule, malformed Origins included.
        if (isCrossSite({ method: 'POST', header: (name) => headerOf(request, name) })) {
          write(request, response, { statusCode: 403, headers: { 'content-type': 'text/plain; charset=utf-8' }, body: 'Cross-site request refused' })
          return
        }
        write(request, response, await logins.logout(request.headers.cookie, overHttps(request)))
      },
    },
    { path: DASHBOARD_BASE, methods: '*', handle },
    { path: `${DASHBOARD_BASE}/`, prefix: true, methods: '*', handle },
  ]
}
