import { mkdirSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { fileURLToPath } from 'node:url'
import express from 'express'
import type { Page } from 'playwright-core'
import { createPasscodeAuth } from '../src/index'
import { dashboard } from '../src/express/index'
import { memoryStore } from '../src/memory'
import { launchBrowser } from '../test/helpers/browser'

/**
 * Makes the dashboard screenshots in docs/images/ (`npm run screenshots`; not part of
 * `npm test`, which must not change tracked files). A demo account on the memory
 * store, a fixed clock, Debian's Chromium. Every passcode value on screen is replaced
 * by a mask before the picture is taken; hints (prefix and last 4) stay, as in the product.
 */

const DAY = 86_400_000
const NOW = Date.UTC(2026, 5, 1, 9, 0)
const OUT = fileURLToPath(new URL('../docs/images/', import.meta.url))
const MASK = `psc_${'•'.repeat(32)}`

async function main(): Promise<void> {
  let now = NOW
  const auth = createPasscodeAuth({
    store: memoryStore(),
    partners: ['acme', 'globex'],
    clock: () => new Date(now),
    encryptionKeys: [{ id: 'screenshots', key: crypto.getRandomValues(new Uint8Array(32)) }],
  })
  const admin = { userId: 'u_dana', role: 'admin' } as const
  const account = 'acc_northwind'
  // Created in the past so the list shows every status.
  now = NOW - 200 * DAY
  await auth.passcodes.create(admin, account, { name: 'Legacy importer', expiry: 190 })
  now = NOW - 60 * DAY
  await auth.passcodes.create(admin, account, { name: 'Acme CRM sync', expiry: 80, partners: ['acme'] })
  now = NOW - 5 * DAY
  await auth.passcodes.create(admin, account, { name: 'Globex analytics', expiry: 365, partners: ['globex'] })
  await auth.passcodes.create(admin, account, { name: 'Nightly export', expiry: 'forever' })
  for (const [userId, validity] of [
    ['u_amy', { type: 'finite', days: 90 }],
    ['u_raj', { type: 'infinite' }],
  ] as const) {
    await auth.userPasscodes.grant(admin, account, userId, { validity })
  }
  now = NOW

  const app = express()
  app.use(
    '/settings',
    dashboard(auth, {
      session: () => ({ accountId: account, actor: admin }),
      users: () => [
        { id: 'u_amy', name: 'Amy Chen', email: 'amy@northwind.example' },
        { id: 'u_raj', name: 'Raj Patel', email: 'raj@northwind.example' },
        { id: 'u_lena', name: 'Lena Okafor', email: 'lena@northwind.example' },
      ],
    }),
  )
  const server = createServer(app)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const browser = await launchBrowser()
  mkdirSync(OUT, { recursive: true })

  const mask = (page: Page) =>
    page.evaluate((masked) => {
      for (const input of document.querySelectorAll<HTMLInputElement>('input.value')) input.value = masked
    }, MASK)

  try {
    const desktop = await browser.newPage({ viewport: { width: 1180, height: 760 }, deviceScaleFactor: 1 })
    // The browser's clock is the demo's, so "in 3 months" is counted from the same now.
    await desktop.clock.setFixedTime(NOW)
    await desktop.goto(`${origin}/settings/`)
    await desktop.getByRole('button', { name: '+ Passcode' }).click()
    await desktop.getByRole('textbox', { name: 'Passcode Name' }).fill('Partner portal')
    await desktop.getByRole('spinbutton', { name: 'Number of days' }).fill('180')
    await desktop.getByRole('button', { name: 'Create & View' }).click()
    await desktop.getByRole('region', { name: 'Passcode “Partner portal” created' }).waitFor()
    await mask(desktop)
    await desktop.locator('body').click({ position: { x: 5, y: 5 } })
    await desktop.screenshot({ path: `${OUT}dashboard-passcodes.png`, fullPage: true })

    await desktop.goto(`${origin}/settings/users`)
    await desktop.getByRole('row').filter({ hasText: 'Raj Patel' }).waitFor()
    await desktop.screenshot({ path: `${OUT}dashboard-users.png`, fullPage: true })

    const phone = await browser.newPage({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 1 })
    await phone.clock.setFixedTime(NOW)
    await phone.goto(`${origin}/settings/`)
    await phone.getByRole('row').filter({ hasText: 'Acme CRM sync' }).waitFor()
    await phone.screenshot({ path: `${OUT}dashboard-phone.png` })
    console.log(`wrote ${OUT}dashboard-passcodes.png, dashboard-users.png, dashboard-phone.png`)
  } finally {
    await browser.close()
    server.close()
  }
}

await main()
