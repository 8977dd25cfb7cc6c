import { createHash, randomBytes } from 'node:crypto'
import type { Actor } from '../../index'
import type { DashboardResponse, DashboardSession } from '../../dashboard/index'
import { commandName } from '../command-name'
import type { Runtime } from '../runtime'

/** Where the reference server mounts the dashboard. */
export const DASHBOARD_BASE = '/settings'
/** The login route, below {@link DASHBOARD_BASE}. Its query carries the token, so the request log drops it. */
export const LOGIN_PATH = `${DASHBOARD_BASE}/login`
/** The logout route (POST, from the pages' "Sign out" button). */
export const LOGOUT_PATH = `${DASHBOARD_BASE}/logout`
/** The cookie of an operator's session (named in docs/management-openapi.json). */
export const SESSION_COOKIE = 'passcode_auth_dashboard'
/** How long a login link works, in ms. */
export const LINK_TTL_MS = 15 * 60_000
const SESSION_TTL_MS = 12 * 3_600_000

/** The headers of the login routes' own pages: static HTML, no script, no style, not to be framed. */
export const PAGE_HEADERS = Object.freeze({
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy': "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
})

const HTML_ESCAPES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }
const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (character) => HTML_ESCAPES[character]!)

/**
 * The reference server's own operator login (the host service has its own; SPEC §6 and
 * §5.35): one-time links, like Jupyter's token URL. A link holds a random token, good
 * for one use within 15 minutes; opening it (a GET: a HEAD never does) sets an
 * `HttpOnly; SameSite=Strict` session cookie for 12 hours, `Secure` when the request
 * came over HTTPS. Links and sessions are rows of the store's `dashboard_logins` table,
 * keyed by the SHA-256 of their token (never the token), so every instance on one
 * database accepts them, a link is used up by one `DELETE … RETURNING` across the
 * fleet, and a logout ends the session everywhere at once.
 */
export interface DashboardLogins {
  /** Makes a one-time login path (`/settings/login?token=…`) for `session`, to show after the server's URL. */
  link(session: DashboardSession): Promise<{ readonly path: string; readonly expiresAt: Date }>
  /**
   * Answers `GET /settings/login?token=…`: a cookie and a redirect; for a link used
   * already, expired or missing, a redirect to the dashboard when the request's
   * `Cookie` holds a live session, else a 401 page that says what happened and how to
   * get in.
   */
  login(token: string | undefined, secure: boolean, cookieHeader?: string): Promise<DashboardResponse>
  /** The session of a request's `Cookie` header, for the dashboard's resolver. */
  session(cookieHeader: string | undefined): Promise<DashboardSession | undefined>
  /** Answers `POST /settings/logout`: ends the session on every instance and clears the cookie. */
  logout(cookieHeader: string | undefined, secure: boolean): Promise<DashboardResponse>
}

/** What the logins need of the store: one statement at a time, and the schema of the tables. */
export type LoginDatabase = Pick<Runtime, 'query' | 'schema'>

const hash = (secret: string) => createHash('sha256').update(secret).digest('base64url')

function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of header?.split(';') ?? []) {
    const [key, ...value] = part.trim().split('=')
    if (key === name) return value.join('=')
  }
  return undefined
}

const page = (statusCode: number, title: string, body: string, headers: Record<string, string> = {}): DashboardResponse => ({
  statusCode,
  headers: { ...PAGE_HEADERS, 'cache-control': 'no-store', 'referrer-policy': 'no-referrer', ...headers },
  body: `<!doctype html><html lang="en"><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)} · Settings</title>\n${body}</html>`,
})

const askForLink = () => `Ask for a new one with <code>${escapeHtml(`${commandName()} dashboard link --account <accountId>`)}</code>.`

const refusals = {
  missing: ['Sign in with a login link', 'This address opens the dashboard only with the token of a login link.'],
  expired: ['This login link has expired', 'A login link works for 15 minutes after it is made, and this one is older.'],
  used: [
    'This login link was used already',
    'A login link works once: this one was opened before (perhaps by a link preview of a chat or mail app), or is not a link of this server.',
  ],
} as const

/** The 401 page of a link that cannot sign in: what happened, and how to get in. */
function refusedLink(why: keyof typeof refusals): DashboardResponse {
  const [title, what] = refusals[why]
  const command = (text: string) => `<code>${escapeHtml(text)}</code>`
  return page(
    401,
    title,
    `<h1>${title}</h1>
<p>${what} This browser is not signed in to the dashboard.</p>
<h2>How to get in</h2>
<p>Ask whoever runs this server for a new login link, and open it within 15 minutes. ` +
      `Once it has signed this browser in, the <a href="${DASHBOARD_BASE}/">dashboard</a> opens without a link for 12 hours.</p>
<p>Whoever runs the server makes a link with ${command(`${commandName()} dashboard link --account <accountId>`)} ` +
      `(for a member, add ${command('--as <userId> --role member')}).</p>`,
  )
}

const landingOf = (session: DashboardSession) => (session.actor.role === 'admin' ? `${DASHBOARD_BASE}/` : `${DASHBOARD_BASE}/me`)
const redirect = (location: string, headers: Record<string, string> = {}): DashboardResponse => ({
  statusCode: 303,
  headers: { location, 'cache-control': 'no-store', 'referrer-policy': 'no-referrer', ...headers },
  body: '',
})

/** Creates the logins of a server (or of `dashboard link`) over the store's database. */
export function createDashboardLogins(database: LoginDatabase, now: () => number = Date.now): DashboardLogins {
  const table = `"${database.schema}".dashboard_logins`
  const cookie = (value: string, maxAgeS: number, secure: boolean) =>
    `${SESSION_COOKIE}=${value}; Path=${DASHBOARD_BASE}; HttpOnly; SameSite=Strict; Max-Age=${maxAgeS}${secure ? '; Secure' : ''}`
  // One statement: the expired rows go as new ones come, so the table stays as small as its live logins.
  const insert = async (kind: 'link' | 'session', session: DashboardSession, ttlMs: number) => {
    const token = randomBytes(32).toString('base64url')
    const at = now()
    await database.query(
      `WITH expired AS (DELETE FROM ${table} WHERE expires_at <= $5) ` +
        `INSERT INTO ${table} (token_hash, kind, account_id, actor, created_at, expires_at) VALUES ($1, $2, $3, $4::jsonb, $5, $6)`,
      [hash(token), kind, session.accountId, JSON.stringify(session.actor), at, at + ttlMs],
    )
    return { token, expiresAt: at + ttlMs }
  }
  const sessionOf = (row: Record<string, unknown>): DashboardSession => {
    const actor = (typeof row.actor === 'string' ? JSON.parse(row.actor) : row.actor) as Actor
    return { accountId: String(row.account_id), actor }
  }

  const sessionOfCookie = async (cookieHeader: string | undefined): Promise<DashboardSession | undefined> => {
    const id = cookieValue(cookieHeader, SESSION_COOKIE)
    if (id === undefined || id === '') return undefined
    const rows = await database.query(`SELECT account_id, actor FROM ${table} WHERE token_hash = $1 AND kind = 'session' AND expires_at > $2`, [
      hash(id),
      now(),
    ])
    return rows[0] === undefined ? undefined : sessionOf(rows[0])
  }

  return {
    async link(session) {
      const { token, expiresAt } = await insert('link', session, LINK_TTL_MS)
      return { path: `${LOGIN_PATH}?token=${token}`, expiresAt: new Date(expiresAt) }
    },

    async login(token, secure, cookieHeader) {
      const rows =
        token === undefined || token === ''
          ? []
          : await database.query(`DELETE FROM ${table} WHERE token_hash = $1 AND kind = 'link' RETURNING account_id, actor, expires_at`, [
              hash(token),
            ])
      const row = rows[0]
      if (row === undefined || Number(row.expires_at) <= now()) {
        // Opened twice (a reload, the browser's history): a browser already signed in just goes on.
        const current = await sessionOfCookie(cookieHeader)
        if (current !== undefined) return redirect(landingOf(current))
        return refusedLink(token === undefined || token === '' ? 'missing' : row === undefined ? 'used' : 'expired')
      }
      const session = sessionOf(row)
      const { token: id } = await insert('session', session, SESSION_TTL_MS)
      return redirect(landingOf(session), { 'set-cookie': cookie(id, SESSION_TTL_MS / 1000, secure) })
    },

    session: sessionOfCookie,

    async logout(cookieHeader, secure) {
      const id = cookieValue(cookieHeader, SESSION_COOKIE)
      if (id !== undefined && id !== '') await database.query(`DELETE FROM ${table} WHERE token_hash = $1 AND kind = 'session'`, [hash(id)])
      return page(200, 'Signed out', `<h1>Signed out</h1><p>The session has ended on every instance. ${askForLink()}</p>`, {
        'set-cookie': cookie('', 0, secure),
      })
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
