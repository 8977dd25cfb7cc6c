import { mkdirSync, readdirSync, rmSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { fileURLToPath } from 'node:url'
import express from 'express'
import type { Browser, Locator, Page } from 'playwright-core'
import { createPasscodeAuth, type PasscodeAuth, type PasscodeStore } from '../src/index'
import { dashboard } from '../src/express/index'
import { memoryStore } from '../src/memory'
import { launchBrowser } from '../test/helpers/browser'

/**
 * Makes the dashboard screenshots in docs/images/ (`npm run screenshots`; not part of
 * `npm test`, which must not change tracked files): each page at 1280 and 375 px, and
 * the open states of Passcodes (a row's menu, the usage chart, the rotate form of a
 * passcode found in public, a confirmation, a value shown once) and of Activity (the
 * folded filters opened). A demo account on the memory store, a fixed clock, Debian's
 * Chromium. Every passcode value on screen is replaced by a mask before the picture is
 * taken; hints (prefix and last 4) stay, as in the product.
 */

const DAY = 86_400_000
const NOW = Date.UTC(2026, 5, 1, 9, 0)
const OUT = fileURLToPath(new URL('../docs/images/', import.meta.url))
const MASK = `psc_${'•'.repeat(32)}`
const WIDTHS = [
  { name: '1280', viewport: { width: 1280, height: 1000 } },
  { name: '375', viewport: { width: 375, height: 812 } },
] as const
/** The two pictures README.md shows keep the names it links (and test/package/published-links.test.ts checks). */
const README_NAMES: Readonly<Record<string, string>> = { 'created-1280': 'dashboard-passcodes.png', 'passcodes-375': 'dashboard-phone.png' }
const ADMIN = { userId: 'u_dana', role: 'admin' } as const
const AMY = { userId: 'u_amy', role: 'member' } as const
const ACCOUNT = 'acc_northwind'
const PEOPLE = [
  { id: 'u_dana', name: 'Dana Whitfield', email: 'dana@northwind.example' },
  { id: 'u_amy', name: 'Amy Chen', email: 'amy@northwind.example' },
  { id: 'u_raj', name: 'Raj Patel', email: 'raj@northwind.example' },
  { id: 'u_lena', name: 'Lena Okafor', email: 'lena@northwind.example' },
  { id: 'u_tom', name: 'Tom Berger', email: 'tom@northwind.example' },
]

/** The demo account: 30 passcodes in every state (one found in public, one bound to a partner no longer whitelisted), usage, user passcodes. */
async function seed(auth: PasscodeAuth, store: PasscodeStore, at: (ms: number) => void, partners: Set<string>): Promise<string> {
  const create = (name: string, expiry: number | 'forever', extra: { partners?: string[]; description?: string } = {}) =>
    auth.passcodes.create(ADMIN, ACCOUNT, { name, expiry, ...extra })
  at(NOW - 200 * DAY)
  await create('Legacy importer', 190)
  at(NOW - 60 * DAY)
  const crm = await create('Acme CRM sync', 80, { partners: ['acme'], description: 'Nightly contact sync into Acme CRM.\nOwner: sales ops' })
  await create('Initech reports', 365, { partners: ['initech'] })
  at(NOW - 20 * DAY)
  const leaked = await create('Globex analytics', 365, { partners: ['globex'] })
  await create('Nightly export', 'forever')
  const paused = await create('Warehouse scanner', 120)
  for (let i = 1; i <= 24; i++) await create(`Store ${String(i).padStart(2, '0')} checkout`, 30 + i * 7)
  await auth.passcodes.disable(ADMIN, ACCOUNT, paused.passcode.id)
  // 30 days of use of "Acme CRM sync", recorded by another instance on the same store and written by its flush.
  let now = NOW - 29 * DAY
  const sender = createPasscodeAuth({ store, partners: [...partners], clock: () => new Date(now) })
  for (let day = 0; day < 30; day++, now += DAY)
    for (let i = 0; i < 3 + ((day * 7) % 11); i++)
      await sender.connect({
        headers: { 'x-service-account-id': ACCOUNT, 'x-service-passcode': crm.value },
        partner: day % 9 === 4 && i === 0 ? 'globex' : 'acme',
      })
  await sender.close()
  at(NOW - 3 * DAY)
  await auth.leaks.report([{ token: leaked.value, url: 'https://github.com/northwind/etl/blob/main/.env' }], { source: 'github' })
  at(NOW - 30 * DAY)
  await auth.userPasscodes.grant(ADMIN, ACCOUNT, 'u_amy', { validity: { type: 'finite', days: 90 } })
  await auth.userPasscodes.grant(ADMIN, ACCOUNT, 'u_raj', { validity: { type: 'infinite' } })
  await auth.userPasscodes.grant(ADMIN, ACCOUNT, 'u_tom', { validity: { type: 'finite', days: 180 } })
  await auth.userPasscodes.revoke(ADMIN, ACCOUNT, 'u_tom')
  at(NOW)
  await auth.accounts.setAcceptedPasscodes(ADMIN, ACCOUNT, 'both')
  // The operator stopped working with Initech: its passcode now works for no partner on /v1/connect.
  partners.delete('initech')
  return crm.passcode.name
}

async function main(): Promise<void> {
  let now = NOW
  const partners = new Set(['acme', 'globex', 'initech'])
  const store = memoryStore()
  const auth = createPasscodeAuth({
    store,
    partners: { isWhitelisted: (name) => partners.has(name), list: () => [...partners].sort() },
    clock: () => new Date(now),
    encryptionKeys: [{ id: 'screenshots', key: crypto.getRandomValues(new Uint8Array(32)) }],
    leaks: {},
  })
  const charted = await seed(auth, store, (ms) => (now = ms), partners)

  const app = express()
  app.use(
    '/settings',
    dashboard(auth, {
      session: (req) => ({ accountId: ACCOUNT, actor: req.get('x-demo-user') === 'u_amy' ? AMY : ADMIN }),
      users: () => PEOPLE,
    }),
  )
  const server = createServer(app)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const browser = await launchBrowser()
  mkdirSync(OUT, { recursive: true })
  for (const old of readdirSync(OUT)) if (old.startsWith('dashboard-')) rmSync(`${OUT}${old}`)
  const written: string[] = []
  try {
    for (const { name: width, viewport } of WIDTHS) await shoot(browser, origin, width, viewport, charted, written)
  } finally {
    await browser.close()
    server.close()
  }
  console.log(`wrote ${written.length} screenshots in ${OUT}: ${written.join(', ')}`)
}

async function shoot(
  browser: Browser,
  origin: string,
  width: string,
  viewport: { width: number; height: number },
  charted: string,
  written: string[],
) {
  const tab = async (user: string) => {
    const context = await browser.newContext({
      viewport,
      deviceScaleFactor: 1,
      locale: 'en-US',
      timezoneId: 'Europe/Berlin',
      extraHTTPHeaders: { 'x-demo-user': user },
    })
    const page = await context.newPage()
    // The browser's clock is the demo's, so "in 3 months" is counted from the same now.
    await page.clock.setFixedTime(NOW)
    return page
  }
  /**
   * The page as it is, every value masked: `whole`, or at desktop width the band of the
   * page around `around` (docs/ ships in the package: a state is shown where it is, not
   * with the whole page again), else the first screen.
   */
  const picture = async (page: Page, name: string, { whole = false, around = [] as Locator[] } = {}) => {
    await page.evaluate((masked) => {
      for (const input of document.querySelectorAll<HTMLInputElement>('input.value')) input.value = masked
    }, MASK)
    let clip: { x: number; y: number; width: number; height: number } | undefined
    if (width === '1280' && around.length > 0) {
      const boxes = (await Promise.all(around.map((locator) => locator.boundingBox()))).filter((box) => box !== null)
      const top = Math.max(0, Math.min(...boxes.map((box) => box.y)) - 24)
      const bottom = Math.min(viewport.height, Math.max(...boxes.map((box) => box.y + box.height)) + 24)
      clip = { x: 0, y: top, width: viewport.width, height: bottom - top }
    }
    const file = README_NAMES[`${name}-${width}`] ?? `dashboard-${name}-${width}.png`
    await page.screenshot({ path: `${OUT}${file}`, fullPage: whole, ...(clip ? { clip } : {}) })
    written.push(file)
  }
  const admin = await tab('u_dana')
  const row = (name: string) => admin.getByRole('row').filter({ hasText: name }).first()
  await admin.goto(`${origin}/settings/`)
  await row(charted).waitFor()
  await picture(admin, 'passcodes')

  await admin.getByRole('button', { name: `More actions for ${charted}` }).click()
  await picture(admin, 'menu', { around: [admin.locator('thead'), admin.getByRole('menu')] })
  await admin.keyboard.press('Escape')

  await admin.getByRole('button', { name: `Usage of ${charted}` }).click()
  await admin
    .getByRole('region', { name: `Usage of ${charted}` })
    .locator('.usage-summary')
    .waitFor()
  const usage = admin.getByRole('region', { name: `Usage of ${charted}` })
  await usage.scrollIntoViewIfNeeded()
  await picture(admin, 'usage', { around: [row(charted), usage] })

  await admin.goto(`${origin}/settings/`)
  await admin.getByRole('button', { name: 'More actions for Globex analytics' }).click()
  await admin.getByRole('menuitem', { name: 'Rotate' }).click()
  const rotate = admin.getByRole('form', { name: 'Rotate “Globex analytics”' })
  await rotate.evaluate((form) => form.closest('tr')?.previousElementSibling?.scrollIntoView())
  await picture(admin, 'rotate', { around: [admin.locator('thead'), rotate] })
  await rotate.getByRole('button', { name: 'Rotate & View' }).click()
  await admin.getByRole('dialog').waitFor()
  await picture(admin, 'confirm', { around: [admin.getByRole('dialog')] })
  await admin.keyboard.press('Escape')

  await admin.getByRole('button', { name: '+ Passcode' }).click()
  await admin.getByRole('textbox', { name: 'Passcode Name' }).fill('Partner portal')
  await admin.getByRole('spinbutton', { name: 'Number of days' }).first().fill('180')
  await admin.getByRole('button', { name: 'Create & View' }).click()
  await admin.getByRole('region', { name: 'Passcode “Partner portal” created' }).waitFor()
  await admin.evaluate(() => window.scrollTo(0, 0))
  await picture(admin, 'created', { around: [admin.locator('.toolbar'), row(charted)] })
  await admin.getByRole('button', { name: 'Done' }).click()
  await admin.getByRole('row').filter({ hasText: 'Partner portal' }).waitFor()
  // The next width starts from the same list.
  await admin.getByRole('button', { name: 'More actions for Partner portal' }).click()
  await admin.getByRole('menuitem', { name: 'Delete' }).click()
  await admin.getByRole('dialog').getByRole('button', { name: 'Delete “Partner portal”' }).click()
  await admin.getByText('Passcode deleted.').waitFor()

  await admin.goto(`${origin}/settings/users`)
  await admin.getByRole('row').filter({ hasText: 'Raj Patel' }).waitFor()
  await picture(admin, 'users', { whole: true })

  await admin.goto(`${origin}/settings/activity`)
  await admin.locator('tbody tr').first().waitFor()
  await picture(admin, 'activity')
  if (width === '375') {
    await admin.getByRole('button', { name: 'Filters' }).click()
    await picture(admin, 'activity-filters')
  }

  const amy = await tab('u_amy')
  await amy.goto(`${origin}/settings/me`)
  await amy.getByRole('button', { name: 'Show my passcode' }).click()
  await amy.getByRole('region', { name: 'Your passcode' }).waitFor()
  await picture(amy, 'me', { whole: true })
  await admin.context().close()
  await amy.context().close()
}

await main()
