import { InvalidOptionsError } from '../../core/errors'
import type { PasscodeAuth } from '../../service/create-passcode-auth'
import { createManagementApi, type ManagementApi, type ManagementApiOptions } from '../management/management-api'
import { isValidSession } from '../management/session'
import type { DashboardRequest, DashboardResponse, SessionResult } from '../management/types'
import { DASHBOARD_SCRIPT, DASHBOARD_SCRIPT_FILE, DASHBOARD_STYLE, DASHBOARD_STYLE_FILE } from './assets'
import { maySee, PAGE_HEADERS, PAGES, renderNotFound, renderPage, renderSignIn, type PagePath } from './pages'

/**
 * Options of {@link createDashboard}.
 *
 * @example
 * ```ts
 * const options: DashboardOptions = { loginUrl: '/login', users: async () => [{ id: 'u_42', name: 'Amy' }] }
 * ```
 */
export interface DashboardOptions extends ManagementApiOptions {
  /**
   * Where the host signs people in; the page shown without a session links there.
   * @default undefined (no link)
   */
  readonly loginUrl?: string
  /**
   * Where the pages' "Sign out" button posts (a same-origin form POST that ends the
   * host's session); without it the pages have no such button.
   * @default undefined (no button)
   */
  readonly logoutUrl?: string
}

/**
 * The management API and the Settings pages behind one handler; mounts call {@link Dashboard.handle}.
 *
 * @example
 * ```ts
 * const answer = await createDashboard(auth).handle({ ...request, base: '/settings' }, () => session)
 * ```
 */
export interface Dashboard {
  /**
   * Answers one request below the mount point: `/api/…` is the management API,
   * `/assets/…` the script and style sheet, `/`, `/users`, `/me` and (admins only)
   * `/activity` the pages.
   * `base` is the mount point's path (`/settings`, or `''`), used in links.
   */
  handle(
    request: DashboardRequest & { readonly base: string },
    resolveSession: () => SessionResult | Promise<SessionResult>,
  ): Promise<DashboardResponse>
  /** The management API alone, for hosts that mount only it. */
  readonly api: ManagementApi
}

const asset = (type: string, body: string, file: string, cacheControl: string): DashboardResponse => ({
  statusCode: 200,
  headers: {
    'content-type': type,
    'cache-control': cacheControl,
    'x-content-type-options': 'nosniff',
    etag: `"${file.split('.')[1]}"`,
  },
  body,
})

// The pages link the content-hashed names: a new version is a new URL, so browsers keep
// a file for a year without asking again. The plain names stay for links made before,
// revalidated on each use.
const IMMUTABLE = 'public, max-age=31536000, immutable'
const REVALIDATE = 'no-cache'
const SCRIPT_TYPE = 'text/javascript; charset=utf-8'
const STYLE_TYPE = 'text/css; charset=utf-8'
const ASSETS: Readonly<Record<string, DashboardResponse>> = {
  [`/assets/${DASHBOARD_SCRIPT_FILE}`]: asset(SCRIPT_TYPE, DASHBOARD_SCRIPT, DASHBOARD_SCRIPT_FILE, IMMUTABLE),
  [`/assets/${DASHBOARD_STYLE_FILE}`]: asset(STYLE_TYPE, DASHBOARD_STYLE, DASHBOARD_STYLE_FILE, IMMUTABLE),
  '/assets/dashboard.js': asset(SCRIPT_TYPE, DASHBOARD_SCRIPT, DASHBOARD_SCRIPT_FILE, REVALIDATE),
  '/assets/dashboard.css': asset(STYLE_TYPE, DASHBOARD_STYLE, DASHBOARD_STYLE_FILE, REVALIDATE),
}

const html = (statusCode: number, body: string, headers?: Record<string, string>): DashboardResponse => ({
  statusCode,
  headers: headers === undefined ? PAGE_HEADERS : { ...PAGE_HEADERS, ...headers },
  body,
})

/**
 * Creates the dashboard (SPEC §5.29): Settings > Passcodes, Users and the user's own
 * passcode page, server-rendered shells filled by one small script from the
 * management API, under a strict CSP. Framework mounts wrap it:
 * `dashboard` in `passcode-auth/express` and `passcode-auth/koa`, `dashboardPlugin` in
 * `passcode-auth/fastify`.
 *
 * @param auth - what `createPasscodeAuth` returned
 * @param options - see {@link DashboardOptions}
 * @example
 * ```ts
 * import { createDashboard } from 'passcode-auth/dashboard'
 *
 * const dashboard = createDashboard(auth, { users: (accountId) => directory.members(accountId) })
 * const response = await dashboard.handle(request, () => sessionOf(request))
 * ```
 */
export function createDashboard(auth: PasscodeAuth, options: DashboardOptions = {}): Dashboard {
  if (options.loginUrl !== undefined && typeof options.loginUrl !== 'string') {
    throw new InvalidOptionsError('loginUrl', 'must be a URL string')
  }
  if (options.logoutUrl !== undefined && typeof options.logoutUrl !== 'string') {
    throw new InvalidOptionsError('logoutUrl', 'must be a URL string')
  }
  const api = createManagementApi(auth, options)

  return {
    api,
    async handle(request, resolveSession) {
      const { path, base } = request
      if (path === '/api' || path.startsWith('/api/')) {
        const { query } = request
        return api.handle(
          { method: request.method, path: path.slice(4) || '/', ...(query !== undefined && { query }), header: request.header, body: request.body },
          resolveSession,
        )
      }
      const method = request.method
      if (method !== 'GET' && method !== 'HEAD') return html(405, renderNotFound(base), { allow: 'GET, HEAD' })
      const file = Object.hasOwn(ASSETS, path) ? ASSETS[path] : undefined
      if (file !== undefined) return file
      if (!Object.hasOwn(PAGES, path)) return html(404, renderNotFound(base))
      let session: SessionResult
      try {
        session = await resolveSession()
      } catch {
        return html(500, renderNotFound(base))
      }
      if (session === undefined || session === null) return html(401, renderSignIn(base, options.loginUrl))
      if (!isValidSession(session)) return html(500, renderNotFound(base))
      const page = path as PagePath
      return html(maySee(page, session) ? 200 : 403, renderPage(page, base, session, options.logoutUrl))
    },
  }
}
