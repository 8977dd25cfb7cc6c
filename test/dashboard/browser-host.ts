import express from 'express'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { afterAll, afterEach, beforeAll, expect } from 'vitest'
import { createPasscodeAuth, type PasscodeAuth, type PasscodeStore } from '../../src/index'
import { connectHandler, dashboard } from '../../src/express/index'
import type { DashboardSession, DirectoryUser } from '../../src/dashboard/index'
import { memoryStore } from '../../src/memory'
import type { RunningApp } from '../conformance/http'
import { listen } from '../http/frameworks'
import { manualClock, TEST_KEY } from '../helpers/service'
import { launchBrowser } from '../helpers/browser'

/** The people of the test account, and who they are to the dashboard. */
export const PEOPLE = {
  admin: { accountId: 'acc_1', actor: { userId: 'u_admin', role: 'admin' } },
  member: { accountId: 'acc_1', actor: { userId: 'u_member', role: 'member' } },
  amy: { accountId: 'acc_1', actor: { userId: 'u_amy', role: 'member' } },
} as const satisfies Record<string, DashboardSession>

/** Amy's email is as long as a real one: a table squeezed by an open chart must not break it mid-word. */
export const AMY_EMAIL = 'amy.example@northwind.example'

const DIRECTORY: readonly DirectoryUser[] = [
  { id: 'u_amy', name: 'Amy Example', email: AMY_EMAIL },
  { id: 'u_member', name: 'Mo Member' },
]

/** A host as a real service would be: its own login (a cookie), the dashboard at /settings, and /v1/connect. */
export interface BrowserHost {
  readonly origin: string
  readonly auth: PasscodeAuth
  readonly clock: ReturnType<typeof manualClock>
  /** The host's store: another instance on it adds its recorded usage with its flush (SPEC §5.41). */
  readonly store: PasscodeStore
  /** The operator's partner whitelist (`acme`, `globex`): a test may remove a partner, and must put it back. */
  readonly partners: Set<string>
  close(): Promise<void>
}

/** What a test file may ask of its host beyond the defaults. */
export interface BrowserHostOptions {
  /** The scopes the host declares (SPEC §5.48). @default none */
  readonly scopes?: Readonly<Record<string, string>>
}

/**
 * Starts the host on 127.0.0.1. `GET /login?as=<person>` signs in (an opaque cookie,
 * HttpOnly, SameSite=Lax, like a typical host session); the dashboard's session
 * resolver looks the cookie up, and nothing else.
 */
export async function startBrowserHost({ scopes }: BrowserHostOptions = {}): Promise<BrowserHost> {
  const clock = manualClock(Date.UTC(2026, 0, 1))
  const store = memoryStore()
  const partners = new Set(['acme', 'globex'])
  const auth = createPasscodeAuth({
    store,
    partners: { isWhitelisted: (name) => partners.has(name), list: () => [...partners].sort() },
    clock,
    encryptionKeys: [{ id: 'k1', key: TEST_KEY }],
    cache: false,
    // The Webhooks page's receivers listen on 127.0.0.1 (webhooks.browser.test.ts).
    webhooks: { allowPrivateAddresses: true },
    ...(scopes ? { scopes } : {}),
  })
  const sessions = new Map<string, DashboardSession>()
  const app = express()
  app.get('/login', (req, res) => {
    const person = PEOPLE[req.query.as as keyof typeof PEOPLE]
    if (person === undefined) return void res.status(400).send('who?')
    const sid = crypto.randomUUID()
    sessions.set(sid, person)
    res.setHeader('set-cookie', `sid=${sid}; Path=/; HttpOnly; SameSite=Lax`)
    res.redirect(303, (req.query.to as string | undefined) ?? '/settings/')
  })
  const cookie = (header: string | undefined, name: string) =>
    header
      ?.split(';')
      .map((part) => part.trim().split('='))
      .find(([key]) => key === name)?.[1]
  app.use(
    '/settings',
    dashboard(auth, {
      session: (req) => sessions.get(cookie(req.headers.cookie, 'sid') ?? ''),
      users: () => DIRECTORY,
      loginUrl: '/login',
    }),
  )
  app.all('/v1/connect', connectHandler(auth))
  const running: RunningApp = await listen(app)
  return { origin: `http://127.0.0.1:${running.port}`, auth, clock, store, partners, close: running.close }
}

/** What {@link useDashboardBrowser} gives a test file: set once its `beforeAll` ran. */
export interface DashboardBrowser {
  host: BrowserHost
  browser: Browser
  /**
   * Opens `page` as `person` (through the host's test login), with the host's clock, and
   * collects the page's errors and console errors, which fail the test in `afterEach`.
   * Within a test, one signed-in tab per person, window size and time zone: signing in
   * again as the same person navigates that tab (a new document), as
   * docs/architecture.md says, instead of paying for a new profile, renderer and sign-in.
   */
  signIn(person: keyof typeof PEOPLE, page?: string, options?: { viewport?: { width: number; height: number }; timezoneId?: string }): Promise<Page>
  /**
   * Lets the current test's pages log failed loads with `status` (the browser's console
   * error for an answer of 500, say) when the test is about that answer; 4xx always pass.
   */
  allowStatus(status: number): void
}

/**
 * The browser, host and sign-in that the dashboard's Chromium files share: launched in
 * `beforeAll` (with `seed` run on the host), closed in `afterAll`; after each test the
 * contexts are closed, no page error or console error may have been seen, and the
 * account accepts both kinds of passcodes again. `options` go to the host. Call it inside
 * the file's `describe`.
 */
export function useDashboardBrowser(seed?: (host: BrowserHost) => Promise<void>, options?: BrowserHostOptions): DashboardBrowser {
  const contexts: BrowserContext[] = []
  const tabs = new Map<string, Page>()
  const problems: string[] = []
  const allowed = new Set<string>()
  const session = {} as DashboardBrowser
  beforeAll(async () => {
    ;[session.browser, session.host] = await Promise.all([launchBrowser(), startBrowserHost(options)])
    await seed?.(session.host)
  })
  afterAll(async () => {
    await session.browser?.close()
    await session.host?.close()
  })
  afterEach(async () => {
    tabs.clear()
    allowed.clear()
    await Promise.all(contexts.splice(0).map((context) => context.close()))
    expect(problems.splice(0)).toEqual([])
    await session.host.auth.accounts.setAcceptedPasscodes(PEOPLE.admin.actor, 'acc_1', 'both')
  })
  session.allowStatus = (status) => void allowed.add(String(status))
  session.signIn = async (person, page = '/settings/', { viewport = { width: 1280, height: 900 }, timezoneId = 'UTC' } = {}) => {
    const key = `${person} ${viewport.width}x${viewport.height} ${timezoneId}`
    const open = tabs.get(key)
    if (open !== undefined) {
      await open.clock.setFixedTime(session.host.clock.ms)
      await open.goto(`${session.host.origin}${page}`)
      await open.getByRole('heading', { level: 1, name: 'Settings' }).waitFor()
      return open
    }
    const context = await session.browser.newContext({ viewport, timezoneId, locale: 'en-US' })
    contexts.push(context)
    const tab = await context.newPage()
    await tab.clock.setFixedTime(session.host.clock.ms)
    tab.on('pageerror', (error) => problems.push(`page error: ${error.message}`))
    tab.on('console', (message) => {
      const status = /status of (\d{3})/.exec(message.text())?.[1]
      if (message.type() === 'error' && !(status?.startsWith('40') || allowed.has(status ?? ''))) problems.push(`console: ${message.text()}`)
    })
    await tab.goto(`${session.host.origin}/login?as=${person}&to=${encodeURIComponent(page)}`)
    await tab.getByRole('heading', { level: 1, name: 'Settings' }).waitFor()
    tabs.set(key, tab)
    return tab
  }
  return session
}

/**
 * Chooses `item` ("Rotate", "Disable", "Enable", "Delete") in the menu of the passcode
 * row named `name`: its "More actions for <name>" button, then the menu item.
 */
export async function chooseAction(page: Page, name: string, item: string): Promise<void> {
  await page.getByRole('button', { name: `More actions for ${name}` }).click()
  await page
    .getByRole('menu', { name: `More actions for ${name}` })
    .getByRole('menuitem', { name: item, exact: true })
    .click()
}
