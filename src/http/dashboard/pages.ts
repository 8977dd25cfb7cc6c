import type { DashboardSession } from '../management/types'
import { DASHBOARD_SCRIPT_FILE, DASHBOARD_STYLE_FILE } from './assets'

/** One page of the dashboard: its script's page name, its title, and whether members may see it. */
interface PageEntry {
  readonly page: string
  readonly title: string
  readonly adminOnly?: boolean
}

/** The dashboard's pages, by path below the mount point; `adminOnly` ones are neither linked nor shown to members. */
export const PAGES = {
  '/': { page: 'passcodes', title: 'Passcodes' },
  '/users': { page: 'users', title: 'Users' },
  '/me': { page: 'me', title: 'My passcode' },
  // SPEC §5.40: the audit trail, which only admins read.
  '/activity': { page: 'activity', title: 'Activity', adminOnly: true },
  // SPEC §5.53: endpoints and deliveries, which only admins manage.
  '/webhooks': { page: 'webhooks', title: 'Webhooks', adminOnly: true },
} as const satisfies Readonly<Record<string, PageEntry>>

/** A path of {@link PAGES}. */
export type PagePath = keyof typeof PAGES

/** Whether the session may see the page: members do not see admin-only pages. */
export function maySee(path: PagePath, session: DashboardSession): boolean {
  const entry: PageEntry = PAGES[path]
  return entry.adminOnly !== true || session.actor.role === 'admin'
}

/**
 * The pages' Content-Security-Policy: this origin's script and style files only, no
 * inline script or style, no framing (clickjacking), no plugins, no base-URI tricks,
 * and forms and `fetch` only to this origin.
 */
export const PAGE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ')

/** Headers of every page. */
export const PAGE_HEADERS = Object.freeze({
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  'content-security-policy': PAGE_CSP,
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
})

const ESCAPES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }

/** Escapes text for HTML content and double- or single-quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => ESCAPES[character]!)
}

function layout(base: string, title: string, header: string, mainAttributes: string, content: string): string {
  const asset = (name: string) => escapeHtml(`${base}/assets/${name}`)
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(title)} · Settings</title>
<link rel="stylesheet" href="${asset(DASHBOARD_STYLE_FILE)}">
<script type="module" src="${asset(DASHBOARD_SCRIPT_FILE)}"></script>
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header>
<h1>Settings</h1>
${header}
</header>
<main id="main" tabindex="-1"${mainAttributes}>
${content}
</main>
</body>
</html>
`
}

/**
 * One dashboard page for a signed-in user: the Settings header with its navigation,
 * the page heading, and empty regions that the script fills from the management API.
 * What the user may do travels as `data-` attributes; the API checks it again.
 *
 * @param base - the mount point's path (`/settings`), or `''` at the root
 * @param logoutUrl - where the "Sign out" button posts; no button without it
 */
export function renderPage(path: PagePath, base: string, session: DashboardSession, logoutUrl?: string): string {
  const { page, title } = PAGES[path]
  const { actor } = session
  const canManagePasscodes = actor.role === 'admin' || actor.canWriteUserSettings === true
  const nav = (Object.entries(PAGES) as [PagePath, PageEntry][])
    .filter(([target]) => maySee(target, session))
    .map(([target, entry]) => {
      const current = target === path ? ' aria-current="page"' : ''
      return `<li><a href="${escapeHtml(`${base}${target === '/' ? '/' : target}`)}"${current}>${escapeHtml(entry.title)}</a></li>`
    })
    .join('')
  const signOut =
    logoutUrl === undefined
      ? ''
      : `\n<form class="sign-out" method="post" action="${escapeHtml(logoutUrl)}"><button type="submit">Sign out</button></form>`
  const header = `<p class="who">Signed in as <strong>${escapeHtml(actor.userId)}</strong> (${actor.role === 'admin' ? 'admin' : 'member'}) · account <span class="mono">${escapeHtml(session.accountId)}</span></p>${signOut}
<nav aria-label="Settings"><ul>${nav}</ul></nav>`
  const attributes = [
    ['page', page],
    ['api', `${base}/api`],
    ['base', base],
    ['user-id', actor.userId],
    ['can-manage-passcodes', String(canManagePasscodes)],
    ['can-manage-users', String(actor.role === 'admin')],
  ]
    .map(([name, value]) => ` data-${name}="${escapeHtml(value!)}"`)
    .join('')
  const toolbarButton =
    page === 'passcodes' ? '<button type="button" class="primary" id="new-passcode" aria-expanded="false" hidden>+ Passcode</button>' : ''
  if (!maySee(path, session)) {
    return layout(base, title, header, '', `<h2>${escapeHtml(title)}</h2><p class="readonly-note">Only admins of this account see this page.</p>`)
  }
  const content = `<div class="toolbar"><h2 id="page-title" tabindex="-1">${escapeHtml(title)}</h2>${toolbarButton}</div>
<div id="notice" class="notice error" role="alert"></div>
<div id="announcer" class="notice info" role="status" tabindex="-1"></div>
<div id="reveal-slot"></div>
<div id="content"></div>`
  return layout(base, title, header, attributes, content)
}

/** The page for a request without a session. */
export function renderSignIn(base: string, loginUrl: string | undefined): string {
  const link = loginUrl === undefined ? '' : ` <a href="${escapeHtml(loginUrl)}">Sign in</a>`
  return layout(
    base,
    'Sign in',
    '',
    '',
    `<h2>Sign in to see this account's passcodes.</h2><p>Your session has ended or you are not signed in.${link}</p>`,
  )
}

/** The page for a path the dashboard does not have. */
export function renderNotFound(base: string): string {
  return layout(base, 'Not found', '', '', `<h2>No such page.</h2><p><a href="${escapeHtml(`${base}/`)}">Passcodes</a></p>`)
}
