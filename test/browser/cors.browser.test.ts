import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { once } from 'node:events'
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildServer, type ReferenceServer } from '../../src/cli/server/app'
import type { RequestLogEntry } from '../../src/cli/server/request-log'
import type { Runtime } from '../../src/cli/runtime'
import { createPasscodeAuth } from '../../src/index'
import { memoryStore } from '../../src/memory'
import { bundleClient } from '../../scripts/client-bundle-size'
import { browserAvailability, launchBrowser } from '../helpers/browser'

/**
 * A partner dashboard in a real browser (Chromium): a page served from one origin calls
 * the reference server (`serve --cors-origin`) on another with the connect client,
 * bundled for the browser as a dashboard would. The allowed origin sees the success, the
 * 400 and the 403 as typed results; a page from an origin that is not allowed gets an
 * opaque NetworkError after one attempt, not three (SPEC §5.30).
 */

const availability = browserAvailability()

/** The partner dashboard: it loads the bundled client and checks each case with it. */
const DASHBOARD_PAGE = `<!doctype html>
<title>partner dashboard</title>
<script type="module">
  import { createConnectClient } from '/client.js'
  window.checkAll = async (apiUrl, cases) => {
    const results = []
    for (const { passcode, partner } of cases) {
      const client = createConnectClient({ baseUrl: apiUrl, accountId: 'acc_1', passcode, timeoutMs: 10000 })
      const result = await client.check(partner)
      results.push(result.ok
        ? { ok: true, message: result.message }
        : { ok: false, code: result.code, status: result.error.status, opaque: result.error.opaque })
    }
    return results
  }
</script>`

/** What the page reports of one `client.check()`. */
interface PageResult {
  readonly ok: boolean
  readonly code?: string
  readonly message?: string
  readonly opaque?: boolean
  readonly status?: number
}

describe.skipIf(availability.skip)(availability.title('the connect client in Chromium, across origins'), () => {
  let browser: Browser
  let api: ReferenceServer
  let apiUrl: string
  let pages: Server
  let pagePort: number
  let passcode: string
  const log: RequestLogEntry[] = []

  beforeAll(async () => {
    const auth = createPasscodeAuth({ store: memoryStore(), partners: ['acme'] })
    passcode = (await auth.passcodes.create({ userId: 'u_admin', role: 'admin' }, 'acc_1', { name: 'Acme', expiry: 90 })).value

    // The page server first: its port makes the allowed origin.
    // The client as a user's bundler makes it for the browser (the bundle-size script's own build).
    const clientCode = (await bundleClient()).code
    pages = createServer((request, response) => {
      if (request.url === '/client.js') {
        response.writeHead(200, { 'content-type': 'text/javascript' }).end(clientCode)
      } else {
        response.writeHead(200, { 'content-type': 'text/html' }).end(DASHBOARD_PAGE)
      }
    })
    pages.listen(0, '127.0.0.1')
    await once(pages, 'listening')
    pagePort = (pages.address() as AddressInfo).port

    // Only what the server reads of a runtime: the service and the database check.
    const runtime = { auth, ping: async () => undefined } as unknown as Runtime
    api = buildServer(runtime, { corsOrigins: [`http://127.0.0.1:${pagePort}`], log: (entry) => log.push(entry) })
    apiUrl = `http://127.0.0.1:${(await api.listen('127.0.0.1', 0)).port}`
    browser = await launchBrowser()
  }, 120_000)

  afterAll(async () => {
    await browser?.close()
    await api?.close()
    pages?.closeAllConnections()
    pages?.close()
  })

  /** Opens the dashboard page at `origin` and runs `client.check()` for each case there. */
  async function checkFrom(origin: string, cases: readonly { passcode: string; partner: string }[]): Promise<PageResult[]> {
    const context = await browser.newContext()
    try {
      const page = await context.newPage()
      await page.goto(`${origin}/`)
      await page.waitForFunction(() => 'checkAll' in window)
      return await page.evaluate(
        ([apiUrl, cases]) => (window as unknown as { checkAll: (url: string, c: typeof cases) => Promise<PageResult[]> }).checkAll(apiUrl, cases),
        [apiUrl, cases] as const,
      )
    } finally {
      await context.close()
    }
  }

  it('from the allowed origin: success, the 400 and the 403, as typed results', async () => {
    const results = await checkFrom(`http://127.0.0.1:${pagePort}`, [
      { passcode, partner: 'acme' },
      { passcode: `${passcode.slice(0, -1)}${passcode.endsWith('x') ? 'y' : 'x'}`, partner: 'acme' },
      { passcode, partner: 'globex' },
    ])
    expect(results).toEqual([
      { ok: true, message: 'Authorised Successfully.' },
      { ok: false, code: 'ERR_INVALID_CREDENTIALS', status: 400 },
      { ok: false, code: 'ERR_PARTNER_NOT_WHITELISTED', status: 403 },
    ])
    // The browser sent a preflight and got the 204 before the first GET.
    expect(log.some((entry) => entry.method === 'OPTIONS' && entry.status === 204)).toBe(true)
  })

  it('from an origin that is not allowed: an opaque NetworkError after one attempt', async () => {
    const before = log.length
    // "localhost" and "127.0.0.1" are different origins for a browser.
    const [result] = await checkFrom(`http://localhost:${pagePort}`, [{ passcode, partner: 'acme' }])
    expect(result).toEqual({ ok: false, code: 'ERR_NETWORK', opaque: true })
    const attempts = log.slice(before).filter((entry) => entry.path === '/v1/connect')
    // One preflight, refused with the 405; no GET, and no retry.
    expect(attempts.map((entry) => [entry.method, entry.status])).toEqual([['OPTIONS', 405]])
  })
})
