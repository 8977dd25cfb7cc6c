import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { PASSCODE_PATTERN } from '../../src/index'
import { DAY_MS } from '../../src/core/time'
import { browserAvailability, launchBrowser } from '../helpers/browser'
import { chooseAction, PEOPLE, startBrowserHost, type BrowserHost } from './browser-host'

/**
 * The dashboard in a real browser (Debian's Chromium through playwright-core): every
 * flow of the Settings pages, found by the service's labels as accessible names, the
 * way people find them. The service's clock is injected, so "Expiring soon" is a
 * matter of moving it.
 */

const availability = browserAvailability()

// A real browser on a machine shared with the rest of the suite: generous time per test.
describe.skipIf(availability.skip)(availability.title('dashboard in Chromium'), { timeout: 90_000 }, () => {
  let browser: Browser
  let host: BrowserHost
  const contexts: BrowserContext[] = []
  const problems: string[] = []

  beforeAll(async () => {
    ;[browser, host] = await Promise.all([launchBrowser(), startBrowserHost()])
  })
  afterAll(async () => {
    await browser?.close()
    await host?.close()
  })
  afterEach(async () => {
    await Promise.all(contexts.splice(0).map((context) => context.close()))
    // Script errors and CSP violations (Chromium reports them on the console) fail the test that caused them.
    expect(problems.splice(0)).toEqual([])
  })

  /** A fresh browser profile signed in as one person, on one of the pages. */
  async function signIn(person: keyof typeof PEOPLE, page = '/settings/', viewport = { width: 1280, height: 900 }): Promise<Page> {
    const context = await browser.newContext({ viewport })
    contexts.push(context)
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: host.origin })
    const tab = await context.newPage()
    tab.on('pageerror', (error) => problems.push(`page error: ${error.message}`))
    tab.on('console', (message) => {
      if (message.type() === 'error' && !/status of 40[0-9]/.test(message.text())) problems.push(`console: ${message.text()}`)
    })
    await tab.goto(`${host.origin}/login?as=${person}&to=${encodeURIComponent(page)}`)
    await tab.getByRole('heading', { level: 1, name: 'Settings' }).waitFor()
    return tab
  }

  const connect = (passcode: string, partner = 'acme') =>
    fetch(`${host.origin}/v1/connect?partner=${partner}`, { headers: { 'X-Service-Account-Id': 'acc_1', 'X-Service-Passcode': passcode } })

  /** + Passcode → Passcode Name → Expiry → Create & View, by keyboard; resolves the value shown once. */
  async function createPasscode(page: Page, name: string, expiry: number | 'forever'): Promise<string> {
    await page.getByRole('button', { name: '+ Passcode' }).focus()
    await page.keyboard.press('Enter')
    const form = page.getByRole('form', { name: 'New passcode' })
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe('create-name')
    await page.keyboard.type(name)
    const expiryGroup = form.getByRole('group', { name: 'Expiry' })
    if (expiry === 'forever') await expiryGroup.getByRole('radio', { name: 'Forever' }).check()
    else await expiryGroup.getByRole('spinbutton', { name: 'Number of days' }).fill(String(expiry))
    await form.getByRole('button', { name: 'Create & View' }).click()
    const panel = page.getByRole('region', { name: `Passcode “${name}” created` })
    await panel.waitFor()
    return panel.getByRole('textbox', { name: 'Passcode value' }).inputValue()
  }

  const row = (page: Page, name: string) => page.getByRole('row').filter({ has: page.getByRole('cell', { name, exact: true }) })

  it('log in, + Passcode, Create & View, copy the value: /v1/connect succeeds with it, and it is shown only once', async () => {
    const page = await signIn('admin')
    await expect(page.title()).resolves.toBe('Passcodes · Settings')
    const shown = await createPasscode(page, 'Partner A', 90)
    expect(shown).toMatch(new RegExp(`^${PASSCODE_PATTERN.source}$`))
    const panel = page.getByRole('region', { name: 'Passcode “Partner A” created' })
    await expect(panel.textContent()).resolves.toContain('you will not see it again')

    await panel.getByRole('button', { name: 'Copy' }).click()
    await panel.getByText('Copied.').waitFor()
    const copied = await page.evaluate(() => navigator.clipboard.readText())
    expect(copied).toBe(shown)
    expect((await connect(copied)).status).toBe(200)

    await expect(row(page, 'Partner A').getByText('Active').count()).resolves.toBe(1)
    await panel.getByRole('button', { name: 'Done' }).click()
    await expect(page.content()).resolves.not.toContain(shown)
    await page.reload()
    await row(page, 'Partner A').waitFor()
    await expect(page.content()).resolves.not.toContain(shown)
  })

  it('turns the status badge to "Expiring soon" when the injected clock enters the 30-day window', async () => {
    const page = await signIn('admin')
    await createPasscode(page, 'Soon', 40)
    await page.getByRole('button', { name: 'Done' }).click()
    await expect(row(page, 'Soon').getByRole('cell', { name: 'Active' }).count()).resolves.toBe(1)
    host.clock.advance(11 * DAY_MS)
    await page.reload()
    await row(page, 'Soon').getByRole('cell', { name: 'Expiring soon' }).waitFor()
    host.clock.advance(30 * DAY_MS)
    await page.reload()
    await row(page, 'Soon').getByRole('cell', { name: 'Expired' }).waitFor()
  })

  it('edits a passcode, then deletes it: /v1/connect then answers 400', async () => {
    const page = await signIn('admin')
    const value = await createPasscode(page, 'Editable', 'forever')
    await page.getByRole('button', { name: 'Done' }).click()
    await expect(row(page, 'Editable').getByRole('cell', { name: 'Never' }).count()).resolves.toBeGreaterThan(0)

    await page.getByRole('button', { name: 'Edit Editable' }).click()
    const form = page.getByRole('form', { name: 'Edit “Editable”' })
    await form.getByRole('textbox', { name: 'Passcode Name' }).fill('Edited')
    await form.getByRole('checkbox', { name: 'Keep the current expiry' }).uncheck()
    await form.getByRole('group', { name: 'Expiry' }).getByRole('radio', { name: 'Days' }).check()
    await form.getByRole('spinbutton', { name: 'Number of days' }).fill('10')
    await form.getByRole('button', { name: 'Save' }).click()
    await row(page, 'Edited').getByRole('cell', { name: 'Expiring soon' }).waitFor()
    expect((await connect(value)).status).toBe(200)

    await chooseAction(page, 'Edited', 'Delete')
    await page.getByRole('dialog', { name: 'Delete the passcode “Edited”?' }).getByRole('button', { name: 'Delete “Edited”' }).click()
    await page.getByRole('status').filter({ hasText: 'Passcode deleted.' }).waitFor()
    await expect(row(page, 'Edited').count()).resolves.toBe(0)
    const refused = await connect(value)
    expect(refused.status).toBe(400)
    expect(await refused.json()).toEqual({ status: 'fail', error: 'Invalid Credentials', code: 400 })
  })

  it('rotates a passcode: the new value is shown once, the old one works for the overlap, then stops', async () => {
    const page = await signIn('admin')
    const old = await createPasscode(page, 'Rotating', 90)
    await page.getByRole('button', { name: 'Done' }).click()
    await chooseAction(page, 'Rotating', 'Rotate')
    const form = page.getByRole('form', { name: 'Rotate “Rotating”' })
    await form.getByRole('spinbutton', { name: 'Old value keeps working for (minutes)' }).fill('60')
    // Rotate asks first (SPEC §5.43).
    await form.getByRole('button', { name: 'Rotate & View' }).click()
    await page.getByRole('dialog', { name: 'Rotate “Rotating”?' }).getByRole('button', { name: 'Rotate now' }).click()
    const panel = page.getByRole('region', { name: 'New value for “Rotating”' })
    const fresh = await panel.getByRole('textbox', { name: 'Passcode value' }).inputValue()
    await expect(panel.textContent()).resolves.toContain('you will not see it again')
    expect(fresh).not.toBe(old)
    expect((await connect(fresh)).status).toBe(200)
    expect((await connect(old)).status).toBe(200)
    host.clock.advance(61 * 60_000)
    expect((await connect(old)).status).toBe(400)
    expect((await connect(fresh)).status).toBe(200)
  })

  it('binds a passcode to a partner: /v1/connect for another partner gets the 403', async () => {
    const page = await signIn('admin')
    await page.getByRole('button', { name: '+ Passcode' }).click()
    const form = page.getByRole('form', { name: 'New passcode' })
    await form.getByRole('textbox', { name: 'Passcode Name' }).fill('Globex only')
    await form
      .getByRole('group', { name: /^Partners/ })
      .getByRole('checkbox', { name: 'globex' })
      .check()
    await form.getByRole('button', { name: 'Create & View' }).click()
    const value = await page.getByRole('textbox', { name: 'Passcode value' }).inputValue()
    await row(page, 'Globex only').getByRole('cell', { name: 'globex', exact: true }).waitFor()
    expect((await connect(value, 'globex')).status).toBe(200)
    const refused = await connect(value, 'acme')
    expect(refused.status).toBe(403)
    expect(await refused.json()).toEqual({ status: 'fail', error: 'Partner not whitelisted acme', code: 403 })
  })

  it('shows a field error from the API next to the field, and keeps the form', async () => {
    const page = await signIn('admin')
    await page.getByRole('button', { name: '+ Passcode' }).click()
    const form = page.getByRole('form', { name: 'New passcode' })
    await form.getByRole('textbox', { name: 'Passcode Name' }).fill('Too long')
    await form.getByRole('spinbutton', { name: 'Number of days' }).fill('5000')
    await form.getByRole('button', { name: 'Create & View' }).click()
    // Named by the field's label, not the API's field name (issue 34).
    await page.getByRole('alert').filter({ hasText: 'Number of days: must be at most 3650 days' }).waitFor()
    await expect(form.getByRole('spinbutton', { name: 'Number of days' }).getAttribute('aria-invalid')).resolves.toBe('true')
  })

  it("refuses an empty User ID in the grant form under the field, sending nothing; the API's own refusal shows there too", async () => {
    // The API's message (Invalid userId: …) told with the field's label (issue 34).
    const message = 'User ID: must be 1 to 256 visible ASCII characters'
    const admin = await signIn('admin', '/settings/users')
    const grants: string[] = []
    admin.on('request', (request) => {
      if (request.method() === 'PUT') grants.push(new URL(request.url()).pathname)
    })
    const form = admin.getByRole('form', { name: 'Grant a user passcode' })
    const userId = form.getByRole('textbox', { name: 'User ID' })
    await expect(userId.getAttribute('required')).resolves.toBe('')
    const fieldMessage = async () => {
      const described = await userId.getAttribute('aria-describedby')
      return described === null ? null : admin.locator(`#${described}`).textContent()
    }
    for (const value of ['', '   ']) {
      await userId.fill(value)
      await form.getByRole('button', { name: 'Grant Passcode' }).click()
      await expect.poll(fieldMessage).toBe(message)
      await expect(userId.getAttribute('aria-invalid')).resolves.toBe('true')
      // Under the User ID field, not elsewhere: one message, inside the field's own box.
      await expect(form.locator('.field:has(#grant-user-id)').getByText(message).isVisible()).resolves.toBe(true)
      await expect(form.getByText(message).count()).resolves.toBe(1)
      await expect(admin.evaluate(() => document.activeElement?.id)).resolves.toBe('grant-user-id')
    }
    expect(grants).toEqual([])

    // If an empty ID reaches the API anyway (here the request is rewritten on its way), its 400 names userId and shows on the field.
    await admin.route('**/settings/api/users/u_amy/passcode', (route) =>
      route.continue({ url: route.request().url().replace('/users/u_amy/', '/users//') }),
    )
    const answers: number[] = []
    admin.on('response', (response) => {
      if (response.request().method() === 'PUT') answers.push(response.status())
    })
    await userId.fill('u_amy')
    await form.getByRole('button', { name: 'Grant Passcode' }).click()
    await expect.poll(fieldMessage).toBe(message)
    expect(answers).toEqual([400])
    await expect(admin.getByText('No such route').count()).resolves.toBe(0)
    await expect(host.auth.userPasscodes.get(PEOPLE.admin.actor, 'acc_1', 'u_amy')).resolves.toBeNull()

    // Fixing the field clears the message on the next submit.
    await admin.unroute('**/settings/api/users/u_amy/passcode')
    await userId.fill('u_amy')
    await form.getByRole('button', { name: 'Grant Passcode' }).click()
    await admin.getByRole('status').filter({ hasText: 'Passcode granted to u_amy.' }).waitFor()
    await expect(form.getByText(message).count()).resolves.toBe(0)
    await expect(userId.getAttribute('aria-invalid')).resolves.toBeNull()
    await host.auth.userPasscodes.revoke(PEOPLE.admin.actor, 'acc_1', 'u_amy')
  })

  it('grants, resets and revokes a user passcode; the user sees theirs on their own Settings page', async () => {
    const admin = await signIn('admin', '/settings/users')
    const accepts = admin.getByRole('combobox', { name: 'The API accepts' })
    await accepts.selectOption('both')
    await admin.getByRole('button', { name: 'Save', exact: true }).click()
    await admin.getByRole('status').filter({ hasText: 'Saved.' }).waitFor()

    await admin.getByRole('button', { name: 'Grant Passcode for Amy Example' }).click()
    const grant = admin.getByRole('form', { name: 'Grant a passcode to Amy Example' })
    await grant.getByRole('group', { name: 'Validity' }).getByRole('radio', { name: 'Finite', exact: true }).check()
    await grant.getByRole('spinbutton', { name: 'Number of days' }).fill('30')
    await grant.getByRole('button', { name: 'Grant Passcode' }).click()
    const amyRow = admin.getByRole('row').filter({ hasText: 'Amy Example' })
    await amyRow.getByText('30 days').waitFor()
    await expect(admin.content()).resolves.not.toMatch(PASSCODE_PATTERN)

    const amy = await signIn('amy', '/settings/me')
    await amy.getByRole('heading', { name: 'My passcode' }).waitFor()
    const reveal = async () => {
      await amy.reload()
      await amy.getByRole('button', { name: 'Show my passcode' }).click()
      return amy.getByRole('region', { name: 'Your passcode' }).getByRole('textbox', { name: 'Passcode value' }).inputValue()
    }
    const first = await reveal()
    expect((await connect(first)).status).toBe(200)

    await admin.getByRole('button', { name: 'Reset Passcode for Amy Example' }).click()
    await admin.getByRole('dialog').getByRole('button', { name: 'Reset Amy Example’s passcode' }).click()
    await admin.getByRole('status').filter({ hasText: 'Passcode reset.' }).waitFor()
    const second = await reveal()
    expect(second).not.toBe(first)
    expect((await connect(first)).status).toBe(400)
    expect((await connect(second)).status).toBe(200)

    await admin.getByRole('button', { name: 'Revoke Passcode for Amy Example' }).click()
    await admin.getByRole('dialog').getByRole('button', { name: 'Revoke Amy Example’s passcode' }).click()
    await amyRow.getByText('Revoked').waitFor()
    expect((await connect(second)).status).toBe(400)
    await amy.reload()
    await amy.getByText('Your passcode was revoked.').waitFor()
  })

  it('gives a member without write access a read-only list, and the API refuses their changes', async () => {
    const admin = await signIn('admin')
    await createPasscode(admin, 'Shared', 30)
    const member = await signIn('member')
    await row(member, 'Shared').waitFor()
    await member.getByText('Only admins and users with write access to User Settings change them.').waitFor()
    await expect(member.getByRole('button', { name: '+ Passcode' }).isVisible()).resolves.toBe(false)
    await expect(member.getByRole('button', { name: /^(Edit|Delete|Rotate|More actions for) / }).count()).resolves.toBe(0)
    const refused = await member.evaluate(async () => {
      const api = document.getElementById('main')!.dataset.api!
      const response = await fetch(`${api}/passcodes`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Sneaky', expiry: 5 }),
      })
      return { status: response.status, body: await response.json() }
    })
    expect(refused).toMatchObject({ status: 403, body: { error: { code: 'ERR_FORBIDDEN' } } })
    await member.goto(`${host.origin}/settings/users`)
    await member.getByText('Only admins grant, reset or revoke user passcodes.').waitFor()
    await expect(member.getByRole('button', { name: /Grant Passcode|Reset Passcode|Revoke Passcode/ }).count()).resolves.toBe(0)
  })

  it('renders a passcode named with HTML as text: no element, no script', async () => {
    const hostile = '<img src=x onerror="window.__xss=1"><script>window.__xss=2</script>'
    await host.auth.passcodes.create(PEOPLE.admin.actor, 'acc_1', { name: hostile.slice(0, 64), expiry: 30 })
    const page = await signIn('admin')
    const cell = page.getByRole('cell', { name: hostile.slice(0, 64), exact: true })
    await cell.waitFor()
    await expect(cell.textContent()).resolves.toBe(hostile.slice(0, 64).trim())
    await expect(page.locator('main img, main script').count()).resolves.toBe(0)
    await expect(page.evaluate(() => (window as { __xss?: number }).__xss)).resolves.toBeUndefined()
  })

  it('shows a disabled passcode as "Disabled", and its description as text under its name, newlines kept', async () => {
    const description = 'For <b>Acme</b> <img src=x onerror="window.__xss=3">\nsecond line'
    const { passcode } = await host.auth.passcodes.create(PEOPLE.admin.actor, 'acc_1', { name: 'Paused export', expiry: 90, description })
    await host.auth.passcodes.disable(PEOPLE.admin.actor, 'acc_1', passcode.id)
    const page = await signIn('admin')
    const line = page.getByRole('row').filter({ hasText: 'Paused export' })
    await line.getByRole('cell', { name: 'Disabled' }).waitFor()
    const shown = line.locator('.description')
    await expect(shown.textContent()).resolves.toBe(description)
    await expect(shown.evaluate((element) => element.getClientRects().length > 0 && getComputedStyle(element).whiteSpace)).resolves.toBe('pre-line')
    await expect(page.locator('main img, main b').count()).resolves.toBe(0)
    await expect(page.evaluate(() => (window as { __xss?: number }).__xss)).resolves.toBeUndefined()
    await host.auth.passcodes.delete(PEOPLE.admin.actor, 'acc_1', passcode.id)
  })

  it('refuses a cross-site request that rides on the signed-in cookie (CSRF) and cannot be framed', async () => {
    // Another port of 127.0.0.1 is another origin but the same site, so even a
    // SameSite cookie travels: exactly the case the Origin/Sec-Fetch-Site check is for.
    const evil: Server = createServer((request, response) => {
      const target = `${host.origin}/settings/api/passcodes`
      response.setHeader('content-type', 'text/html; charset=utf-8')
      if (request.url === '/frame') {
        response.end(`<!doctype html><iframe id="f" src="${host.origin}/settings/"></iframe>`)
        return
      }
      response.end(`<!doctype html><script>
        window.results = {}
        fetch(${JSON.stringify(target)}, { method: 'POST', mode: 'no-cors', credentials: 'include', headers: { 'content-type': 'text/plain' },
          body: JSON.stringify({ name: 'Forged by fetch', expiry: 5 }) }).then(() => (window.results.fetch = 'sent'), () => (window.results.fetch = 'blocked'))
        fetch(${JSON.stringify(target)}, { method: 'POST', credentials: 'include', headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ name: 'Forged with CORS', expiry: 5 }) }).then(() => (window.results.cors = 'sent'), () => (window.results.cors = 'blocked'))
      </script>
      <form id="f" method="POST" action="${target}" enctype="text/plain" target="sink"><input name='{"name":"Forged by form","expiry":5,"x":"' value='"}'></form>
      <iframe name="sink"></iframe>`)
    })
    await new Promise<void>((resolve) => evil.listen(0, '127.0.0.1', resolve))
    const evilOrigin = `http://127.0.0.1:${(evil.address() as AddressInfo).port}`
    try {
      const page = await signIn('admin')
      const refusals: number[] = []
      page.on('response', (response) => {
        if (response.url().endsWith('/settings/api/passcodes') && response.request().method() === 'POST') refusals.push(response.status())
      })
      await page.goto(evilOrigin)
      await expect
        .poll(() => page.evaluate(() => (window as unknown as { results: Record<string, string> }).results), { timeout: 10_000 })
        .toMatchObject({
          fetch: 'sent',
          cors: 'blocked',
        })
      await page.evaluate(() => (document.getElementById('f') as HTMLFormElement).submit())
      await expect.poll(() => refusals.length, { timeout: 10_000 }).toBeGreaterThanOrEqual(2)
      expect(new Set(refusals)).toEqual(new Set([403]))
      const names = (await host.auth.passcodes.list(PEOPLE.admin.actor, 'acc_1')).map((passcode) => passcode.name)
      expect(names.filter((name) => name.startsWith('Forged'))).toEqual([])

      await page.goto(`${evilOrigin}/frame`)
      const frame = page.frame({ url: `${host.origin}/settings/` })
      // frame-ancestors 'none': Chromium replaces the dashboard with an error page.
      const framedHeading =
        frame === null
          ? 0
          : await frame
              .getByRole('heading', { name: 'Settings' })
              .count()
              .catch(() => 0)
      expect(framedHeading).toBe(0)
    } finally {
      // The evil page's own console errors (blocked CORS, refused frame) are expected: close it first, then forget them.
      await Promise.all(contexts.splice(0).map((context) => context.close()))
      problems.splice(0)
      await new Promise((resolve) => evil.close(resolve))
    }
  })

  it('is usable at phone width: no horizontal scrolling, actions reachable', async () => {
    const page = await signIn('admin', '/settings/', { width: 375, height: 740 })
    await createPasscode(page, 'Phone', 60)
    await page.getByRole('button', { name: 'Done' }).click()
    await row(page, 'Phone').waitFor()
    const overflow = () => page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)
    expect(await overflow()).toBeLessThanOrEqual(0)
    await expect(page.getByRole('button', { name: 'Edit Phone' }).isVisible()).resolves.toBe(true)
    // The row forms fit too, in one column.
    await page.getByRole('button', { name: 'Edit Phone' }).click()
    await page.getByRole('form', { name: 'Edit “Phone”' }).waitFor()
    expect(await overflow()).toBeLessThanOrEqual(0)
    await page.keyboard.press('Escape')
    await chooseAction(page, 'Phone', 'Rotate')
    await page.getByRole('form', { name: 'Rotate “Phone”' }).waitFor()
    expect(await overflow()).toBeLessThanOrEqual(0)
  })

  it("keeps a user's ID and email whole at phone width: lines break between words only", async () => {
    const page = await signIn('admin', '/settings/users', { width: 375, height: 740 })
    await page.getByRole('row').filter({ hasText: 'Amy Example' }).waitFor()
    // Each text without a space must lie on one line (one box of the range), here "u_amy" and the email.
    const broken = await page.evaluate(() => {
      const found: string[] = []
      for (const cell of document.querySelectorAll('td.name')) {
        const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT)
        for (let node = walker.nextNode(); node !== null; node = walker.nextNode()) {
          const text = node.textContent ?? ''
          if (text.trim() === '' || /\s/.test(text.trim())) continue
          const range = document.createRange()
          range.selectNodeContents(node)
          if (range.getClientRects().length > 1) found.push(text)
        }
      }
      return found
    })
    expect(broken).toEqual([])
    expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0)
  })

  it('shows a sign-in page without a session, and the API answers 401', async () => {
    const context = await browser.newContext()
    contexts.push(context)
    const page = await context.newPage()
    const response = await page.goto(`${host.origin}/settings/`)
    expect(response?.status()).toBe(401)
    await page.getByRole('link', { name: 'Sign in' }).waitFor()
  })
})
