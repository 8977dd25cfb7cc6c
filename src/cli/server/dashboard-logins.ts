import { createHash, randomBytes } from 'node:crypto'
import type { DashboardResponse, DashboardSession } from '../../dashboard/index'
import type { Runtime } from '../runtime'

/** Where the reference server mounts the dashboard. */
export const DASHBOARD_BASE = '/settings'
/** The login route, below {@link DASHBOARD_BASE}. Its query carries the token, so the request log drops it. */
export const LOGIN_PATH = `${DASHBOARD_BASE}/login`
const COOKIE = 'passcode_auth_dashboard'
const LINK_TTL_MS = 15 * 60_000
const SESSION_TTL_MS = 12 * 3_600_000
const MAX_ENTRIES = 1_000
// The refused link's page: static HTML, no script, no style, not to be framed or cached.
const REFUSAL_HEADERS = Object.freeze({
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  'content-security-policy': "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
})

/**
 * The reference server's own operator login (the host service has its own; SPEC §6):
 * one-time links, like Jupyter's token URL. A link holds a random token, good for one
 * use within 15 minutes; opening it sets an `HttpOnly; SameSite=Strict` session cookie
 * for 12 hours. Everything lives in this process's memory and ends with it. Tokens and
 * session IDs are kept as SHA-256 hashes, so a heap dump does not hand them out.
 */
export interface DashboardLogins {
  /** A one-time login path (`/settings/login?token=…`) for `session`, to show the operator (on stderr) after the server's URL. */
  link(session: DashboardSession): string
  /** Answers `GET /settings/login?token=…`: a cookie and a redirect, or 401. */
  login(token: string | undefined): DashboardResponse
  /** The session of a request's `Cookie` header, for the dashboard's resolver. */
  session(cookieHeader: string | undefined): DashboardSession | undefined
}

interface Entry {
  readonly session: DashboardSession
  readonly expiresAt: number
}

const hash = (secret: string) => createHash('sha256').update(secret).digest('base64url')

function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of header?.split(';') ?? []) {
    const [key, ...value] = part.trim().split('=')
    if (key === name) return value.join('=')
  }
  return undefined
}

/** Creates the login store of one server. */
export function createDashboardLogins(now: () => number = Date.now): DashboardLogins {
  const links = new Map<string, Entry>()
  const sessions = new Map<string, Entry>()
  const remember = (map: Map<string, Entry>, secret: string, entry: Entry) => {
    for (const [key, old] of map) if (old.expiresAt <= now()) map.delete(key)
    // Oldest first: Map keeps insertion order.
    while (map.size >= MAX_ENTRIES) map.delete(map.keys().next().value!)
    map.set(hash(secret), entry)
  }

  return {
    link(session) {
      const token = randomBytes(32).toString('base64url')
      remember(links, token, { session, expiresAt: now() + LINK_TTL_MS })
      return `${LOGIN_PATH}?token=${token}`
    },

    login(token) {
      const key = token === undefined ? undefined : hash(token)
      const entry = key === undefined ? undefined : links.get(key)
      if (key !== undefined) links.delete(key)
      if (entry === undefined || entry.expiresAt <= now()) {
        const body = `<!doctype html><html lang="en"><meta charset="utf-8"><title>Login link not valid · Settings</title>
<h1>This login link is not valid</h1><p>It was used already or is older than 15 minutes. Ask for a new one with <code>passcode-auth dashboard link --account &lt;accountId&gt;</code>.</p></html>`
        return { statusCode: 401, headers: REFUSAL_HEADERS, body }
      }
      const id = randomBytes(32).toString('base64url')
      remember(sessions, id, { session: entry.session, expiresAt: now() + SESSION_TTL_MS })
      const landing = entry.session.actor.role === 'admin' ? `${DASHBOARD_BASE}/` : `${DASHBOARD_BASE}/me`
      return {
        statusCode: 303,
        headers: {
          location: landing,
          'set-cookie': `${COOKIE}=${id}; Path=${DASHBOARD_BASE}; HttpOnly; SameSite=Strict; Max-Age=${SESSION_TTL_MS / 1000}`,
          'cache-control': 'no-store',
          'referrer-policy': 'no-referrer',
        },
        body: '',
      }
    },

    session(cookieHeader) {
      const id = cookieValue(cookieHeader, COOKIE)
      if (id === undefined) return undefined
      const entry = sessions.get(hash(id))
      return entry !== undefined && entry.expiresAt > now() ? entry.session : undefined
    },
  }
}

// The running server's logins, for `dashboard link` forwarded to it over the control socket.
const running = new WeakMap<Runtime, { readonly logins: DashboardLogins; readonly url: string }>()

/** Makes the server's logins, and the URL it is reached at, reachable from commands it runs for other processes. */
export function registerDashboardLogins(runtime: Runtime, logins: DashboardLogins, url: string): void {
  running.set(runtime, { logins, url })
}

/** The logins of the server running on `runtime`, if one is. */
export function dashboardLoginsOf(runtime: Runtime): { readonly logins: DashboardLogins; readonly url: string } | undefined {
  return running.get(runtime)
}
