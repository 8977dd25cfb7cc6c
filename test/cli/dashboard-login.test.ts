import { setTimeout as sleep } from 'node:timers/promises'
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createDashboardLogins, type LoginDatabase } from '../../src/cli/server/dashboard-logins'
import { browserAvailability, launchBrowser } from '../helpers/browser'
import { cli, demoOwingDataFolder, linkMadeBy, loginLinkIn, requestLog, serveInProcess, shownText, type ServeUnderTest } from './cli-process'

/**
 * The reference server's dashboard: `serve` shows a one-time login link to the
 * operator (on a terminal's stderr, else in the data folder's owner-only shown.txt;
 * never in the request log), the link sets an HttpOnly, SameSite=Strict session
 * cookie, and `dashboard link` prints one for any user on stdout. On the embedded store, out of the box (a data folder that owes the
 * demo, so that the server seeds it), with the server in this process.
 */

let folder: { dir: string; remove(): void }
let dataDir: string
let server: ServeUnderTest
let operatorLink: string
let madeBeforeStart: { url: string; expiresAt: string }

const linkIn = loginLinkIn

beforeAll(async () => {
  folder = await demoOwingDataFolder()
  dataDir = folder.dir
  // Made in the data folder's store, with no server running: the server accepts it once it runs.
  const early = await cli(['dashboard', 'link', '--account', 'acc_demo', '--json'], { dataDir })
  expect(early).toMatchObject({ code: 0, stderr: '' })
  madeBeforeStart = linkMadeBy(early)
  server = await serveInProcess(dataDir)
  operatorLink = linkIn(await shownText(dataDir, 'token='))
}, 120_000)

afterAll(async () => {
  await server?.stop()
  folder?.remove()
})

const open = (url: string, cookie?: string) => fetch(url, { redirect: 'manual', headers: cookie === undefined ? {} : { cookie } })

describe('the dashboard of the reference server', () => {
  it('shows a one-time login link in the data folder (stderr is no terminal here), and keeps its token out of the request log', async () => {
    expect(operatorLink.startsWith(`${server.url}/settings/login?token=`)).toBe(true)
    expect(server.stdout()).not.toContain('token=')
    expect(server.stderr()).not.toContain('token=')
    const response = await open(operatorLink)
    expect(response.status).toBe(303)
    expect(response.headers.get('location')).toBe('/settings/')
    const setCookie = response.headers.get('set-cookie') ?? ''
    expect(setCookie).toMatch(/^passcode_auth_dashboard=[A-Za-z0-9_-]{43}; Path=\/settings; HttpOnly; SameSite=Strict; Max-Age=43200$/)
    const cookie = setCookie.split(';')[0]!

    const passcodes = await open(`${server.url}/settings/api/passcodes`, cookie)
    expect(passcodes.status).toBe(200)
    expect((await passcodes.json()).passcodes.map((passcode: { name: string }) => passcode.name)).toEqual(['Demo passcode'])
    // The query string reaches the management API (GET /audit reads its filters from it), and the operator, an admin, has Activity.
    const audit = await open(`${server.url}/settings/api/audit?limit=0`, cookie)
    expect([audit.status, (await audit.json()).error.field]).toEqual([400, 'limit'])
    expect((await open(`${server.url}/settings/api/audit?action=user_passcode.revealed`, cookie)).status).toBe(200)
    expect((await open(`${server.url}/settings/activity`, cookie)).status).toBe(200)

    const again = await open(operatorLink)
    expect(again.status).toBe(401)
    expect(again.headers.get('set-cookie')).toBeNull()
    expect((await open(`${server.url}/settings/api/passcodes`)).status).toBe(401)
    await sleep(100)
    const logins = requestLog(server.stdout()).filter((entry) => entry.path === '/settings/login')
    expect(logins.map((entry) => [entry.method, entry.status])).toEqual([
      ['GET', 303],
      ['GET', 401],
    ])
    expect(server.stdout()).not.toContain('token=')
    expect(server.stdout()).not.toContain(operatorLink.split('token=')[1])
    expect(server.stdout()).not.toContain(cookie.split('=')[1])
  })

  it('SPEC 5.35 makes a login link for a user with `dashboard link`: off a terminal, in an owner-only file whose path is printed, the token never on stdout or stderr; it opens their own page', async () => {
    const run = await cli(['dashboard', 'link', '--account', 'acc_demo', '--as', 'u_42', '--role', 'member'], { dataDir })
    expect(run.code).toBe(0)
    expect(run.stderr).toBe('')
    const { url: link, file } = linkMadeBy(run)
    expect(file.startsWith(dataDir)).toBe(true)
    const response = await open(link)
    expect(response.status).toBe(303)
    expect(response.headers.get('location')).toBe('/settings/me')
    const cookie = (response.headers.get('set-cookie') ?? '').split(';')[0]!
    const account = await open(`${server.url}/settings/api/account`, cookie)
    expect(await account.json()).toMatchObject({ account: { id: 'acc_demo' }, actor: { userId: 'u_42', role: 'member', canManagePasscodes: false } })
    const refused = await fetch(`${server.url}/settings/api/passcodes`, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Nope', expiry: 1 }),
    })
    expect(refused.status).toBe(403)
  })

  it("SPEC 5.35 shows the link made by `dashboard link` on a terminal's stderr only; stdout and --json never hold the token", async () => {
    for (const json of [[], ['--json']]) {
      const run = await cli(['dashboard', 'link', '--account', 'acc_demo', ...json], { dataDir, stderrIsTTY: true })
      expect(run.code).toBe(0)
      expect(run.stdout).not.toContain('token=')
      const link = linkIn(run.stderr)
      expect(link).not.toBe('')
      expect(run.stderr).toBe(`${link}\n`)
      if (json.length > 0) expect(JSON.parse(run.stdout)).toEqual({ shownOn: 'terminal', expiresAt: expect.any(String) })
      expect((await open(link.replace('http://127.0.0.1:3000', server.url))).status).toBe(303)
    }
  })

  it('refuses a logout from another site with 403, a malformed Origin included (never a 500), and keeps the session', async () => {
    const run = await cli(['dashboard', 'link', '--account', 'acc_demo', '--as', 'u_logout', '--role', 'member'], { dataDir })
    const cookie = ((await open(linkMadeBy(run).url)).headers.get('set-cookie') ?? '').split(';')[0]!
    const logout = (headers: Record<string, string>) =>
      fetch(`${server.url}/settings/logout`, { method: 'POST', redirect: 'manual', headers: { cookie, ...headers } })
    const refused: Record<string, string>[] = [
      { origin: 'garbage' },
      { origin: 'http://[' },
      { origin: 'http://' },
      { origin: 'null' },
      { origin: 'https://evil.example' },
      { 'sec-fetch-site': 'cross-site' },
      { 'sec-fetch-site': 'same-site', origin: server.url },
    ]
    for (const headers of refused) {
      const response = await logout(headers)
      expect({ headers, status: response.status, body: await response.text() }).toEqual({ headers, status: 403, body: 'Cross-site request refused' })
    }
    expect((await open(`${server.url}/settings/api/account`, cookie)).status).toBe(200)
    expect((await logout({ origin: server.url })).status).toBe(200)
    expect((await open(`${server.url}/settings/api/account`, cookie)).status).toBe(401)
  })

  it('opens a link that `dashboard link --json` made before the server started (at the default URL)', async () => {
    expect(madeBeforeStart.url).toMatch(/^http:\/\/127\.0\.0\.1:3000\/settings\/login\?token=[A-Za-z0-9_-]{43}$/)
    const url = madeBeforeStart.url.replace('http://127.0.0.1:3000', server.url)
    expect((await open(url)).status).toBe(303)
    expect((await open(url)).status).toBe(401)
  })

  it('sends a browser that is signed in on to the dashboard from a used link; else says what happened and how to get in', async () => {
    const made = async (...args: string[]) =>
      linkMadeBy(await cli(['dashboard', 'link', '--account', 'acc_demo', '--json', ...args], { dataDir })).url.replace(
        'http://127.0.0.1:3000',
        server.url,
      )
    const url = await made('--as', 'u_7', '--role', 'member')
    const first = await open(url)
    expect(first.status).toBe(303)
    const cookie = (first.headers.get('set-cookie') ?? '').split(';')[0]!
    // Opened again in the same browser (a reload, the history): its session goes on, to its own landing page.
    const again = await open(url, cookie)
    expect([again.status, again.headers.get('location'), again.headers.get('set-cookie')]).toEqual([303, '/settings/me', null])
    expect((await open(`${server.url}/settings/login`, cookie)).headers.get('location')).toBe('/settings/me')

    const refusedPage = async (response: Response) => {
      expect(response.status).toBe(401)
      expect(response.headers.get('set-cookie')).toBeNull()
      expect(response.headers.get('content-security-policy')).toContain("default-src 'none'")
      const html = await response.text()
      expect(html).toContain('This browser is not signed in to the dashboard.')
      expect(html).toContain('<h2>How to get in</h2>')
      expect(html).toContain('<a href="/settings/">dashboard</a>')
      expect(html).toContain('dashboard link --account &lt;accountId&gt;</code>')
      expect(html).toContain('<code>--as &lt;userId&gt; --role member</code>')
      expect(html).not.toContain('token=')
      return html
    }
    expect(await refusedPage(await open(url))).toContain('<h1>This login link was used already</h1>')
    expect(await refusedPage(await open(url, 'passcode_auth_dashboard=not-a-session'))).toContain('A login link works once')
    expect(await refusedPage(await open(`${server.url}/settings/login`))).toContain('<h1>Sign in with a login link</h1>')
  })

  it('says so when a link is older than 15 minutes, and sends a signed-in browser on', async () => {
    // The rows of dashboard_logins in a map, for a clock of the test's own.
    const rows = new Map<string, Record<string, unknown>>()
    let now = Date.UTC(2026, 0, 1)
    const database: LoginDatabase = {
      schema: 'test',
      async query(text, values = []) {
        const [key, ...rest] = values as [string, ...unknown[]]
        if (text.includes('INSERT')) {
          const [kind, account_id, actor, created_at, expires_at] = rest
          rows.set(key, { kind, account_id, actor, created_at, expires_at })
          return []
        }
        const row = rows.get(key)
        const kind = /kind = '(\w+)'/.exec(text)![1]
        if (row === undefined || row.kind !== kind) return []
        if (text.startsWith('SELECT')) return Number(row.expires_at) > Number(rest[0]) ? [row] : []
        rows.delete(key)
        return [row]
      },
    }
    const logins = createDashboardLogins(database, () => now)
    const { path } = await logins.link({ accountId: 'acc_1', actor: { userId: 'u_admin', role: 'admin' } })
    const token = new URLSearchParams(path.split('?')[1]).get('token')!
    const second = await logins.link({ accountId: 'acc_1', actor: { userId: 'u_admin', role: 'admin' } })
    now += 15 * 60_000
    const expired = await logins.login(token, false)
    expect(expired.statusCode).toBe(401)
    expect(expired.body).toContain('<h1>This login link has expired</h1>')
    expect(expired.body).toContain('A login link works for 15 minutes after it is made')
    expect(expired.body).toContain('<h2>How to get in</h2>')

    now -= 60_000
    const signedIn = await logins.login(new URLSearchParams(second.path.split('?')[1]).get('token')!, false)
    const cookie = String(signedIn.headers['set-cookie']).split(';')[0]
    now += 60_000
    expect(await logins.login(token, false, cookie)).toMatchObject({ statusCode: 303, headers: { location: '/settings/' } })
  })

  it('is not used up by a HEAD (a link preview), only by the GET', async () => {
    const run = await cli(['dashboard', 'link', '--account', 'acc_demo', '--json'], { dataDir })
    const { url } = linkMadeBy(run)
    const head = await fetch(url, { method: 'HEAD', redirect: 'manual' })
    expect([head.status, head.headers.get('set-cookie')]).toEqual([200, null])
    expect((await open(url)).status).toBe(303)
  })

  const availability = browserAvailability()
  describe.skipIf(availability.skip)(availability.title('in Chromium'), { timeout: 90_000 }, () => {
    let browser: Browser
    beforeAll(async () => {
      browser = await launchBrowser()
    })
    afterAll(async () => {
      await browser?.close()
    })

    it('lets the operator create a passcode on the embedded store after opening a fresh link', async () => {
      const run = await cli(['dashboard', 'link', '--account', 'acc_demo'], { dataDir })
      const page = await browser.newPage()
      await page.goto(linkMadeBy(run).url)
      await page.getByRole('cell', { name: 'Demo passcode', exact: true }).waitFor()
      await page.getByRole('button', { name: '+ Passcode' }).click()
      await page.getByRole('textbox', { name: 'Passcode Name' }).fill('From the browser')
      await page.getByRole('button', { name: 'Create & View' }).click()
      const value = await page.getByRole('textbox', { name: 'Passcode value' }).inputValue()
      const connect = await fetch(`${server.url}/v1/connect?partner=demo-partner`, {
        headers: { 'X-Service-Account-Id': 'acc_demo', 'X-Service-Passcode': value },
      })
      expect(connect.status).toBe(200)
      expect(server.stdout()).not.toContain(value)
      await page.close()
    })
  })
})
