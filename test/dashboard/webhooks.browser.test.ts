import { readFileSync } from 'node:fs'
import { createServer, type IncomingMessage } from 'node:http'
import { createRequire } from 'node:module'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { afterAll, describe, expect, it } from 'vitest'
import { verifyWebhook } from '../../src/webhooks/index'
import { browserAvailability } from '../helpers/browser'
import { chooseAction, PEOPLE, useDashboardBrowser } from './browser-host'

/**
 * Settings > Webhooks (SPEC §5.53), in Chromium: the account's endpoints, the recent
 * deliveries with their status, last code and time, "Send test event" and Replay (the
 * same `webhook-id` reaches the receiver twice), an endpoint added with its signing secret
 * shown once, and nothing of it for a member. The receivers listen on 127.0.0.1, which
 * the test host allows (`webhooks.allowPrivateAddresses`). An endpoint edited (URL,
 * events, description, enabled), its secret rotated (the new one shown once) and deleted
 * after a confirmation; the deliveries by pages and for one endpoint. axe finds nothing
 * at 1280 and 375 px, with the forms and dialogs open too, and nothing is wider than a
 * 375 px screen. Screenshots go to the system's temporary folder (webhooks-1280.png,
 * webhooks-375.png, webhooks-edit-375.png) for a person to look at.
 */

const availability = browserAvailability()
const admin = PEOPLE.admin.actor
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8')

interface Violation {
  readonly id: string
  readonly help: string
  readonly nodes: readonly { readonly target: readonly string[] }[]
}

/** axe's violations on the page as it is now (axe runs through the DevTools protocol, which the page's CSP does not govern). */
async function axeViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE)
  const found = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(context: Document, options: object): Promise<{ violations: Violation[] }> } }).axe
    return (await axe.run(document, { resultTypes: ['violations'] })).violations
  })
  return found.map((v) => `${v.id}: ${v.help} at ${v.nodes.map((node) => node.target.join(' ')).join(', ')}`)
}

/** How far the page is wider than the window, in px (0 or less: no horizontal scrolling). */
const overflow = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)

interface Received {
  readonly headers: IncomingMessage['headers']
  readonly body: string
}

/** A receiver on 127.0.0.1 that answers every request with `status` and keeps what it got. */
async function receiver(status: number) {
  const received: Received[] = []
  const server = createServer((request, response) => {
    let body = ''
    request.on('data', (chunk: Buffer) => (body += chunk.toString()))
    request.on('end', () => {
      received.push({ headers: request.headers, body })
      response.writeHead(status).end()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return { url: `http://127.0.0.1:${port}/hooks`, received, close: () => new Promise<void>((resolve) => server.close(() => resolve())) }
}

describe.skipIf(availability.skip)(availability.title('the Webhooks page in Chromium'), { timeout: 120_000 }, () => {
  const receivers: Awaited<ReturnType<typeof receiver>>[] = []
  let secret = ''
  const dashboard = useDashboardBrowser(async ({ auth, clock }) => {
    const [ok, failing] = [await receiver(204), await receiver(500)]
    receivers.push(ok, failing)
    secret = (await auth.webhooks.create(admin, 'acc_1', { url: ok.url, events: 'all', description: 'CRM sync' })).secret
    // The list is oldest first: on the host's fixed clock, two endpoints of one instant would be in their random ids' order.
    clock.advance(1)
    await auth.webhooks.create(admin, 'acc_1', { url: failing.url, events: ['passcode.created'] })
    await auth.passcodes.create(admin, 'acc_1', { name: 'Billing', expiry: 90 })
    await auth.webhooks.dispatch()
  })
  afterAll(async () => {
    await Promise.all(receivers.map((one) => one.close()))
  })
  const { signIn } = dashboard
  const rows = (page: Awaited<ReturnType<typeof signIn>>, table: string) => page.locator(`table.${table} tbody tr`).allInnerTexts()

  it('lists the endpoints and the recent deliveries with status, code and time', async () => {
    const [ok, failing] = receivers
    const page = await signIn('admin', '/settings/webhooks')
    await page.getByRole('heading', { level: 2, name: 'Recent deliveries' }).waitFor()
    await expect
      .poll(() => rows(page, 'webhooks'))
      .toEqual([
        expect.stringMatching(new RegExp(`^${ok!.url}\\s+CRM sync\\s+All events\\s+Enabled\\s+Send test event\\s+Edit\\s.*More`, 's')),
        expect.stringMatching(new RegExp(`^${failing!.url}\\s+passcode\\.created\\s+Enabled, failing\\s+Send test event\\s+Edit\\s.*More`, 's')),
      ])
    const deliveries = await rows(page, 'deliveries')
    expect(deliveries).toHaveLength(2)
    expect(deliveries).toContainEqual(
      expect.stringMatching(new RegExp(`^passcode\\.created\\s+.+\\s+${ok!.url}\\s+Delivered\\s+204\\s+.+\\s+Replay$`, 's')),
    )
    expect(deliveries).toContainEqual(expect.stringMatching(new RegExp(`^passcode\\.created\\s+.+\\s+${failing!.url}\\s+Pending\\s+500\\s+.+$`, 's')))
    // The receiver verifies what it got with the secret shown at registration (signed at the host's clock).
    const [first] = ok!.received
    const verified = await verifyWebhook(secret, first!.headers, first!.body, { now: () => dashboard.host.clock.ms })
    expect(verified).toMatchObject({ type: 'passcode.created', data: { passcode: { name: 'Billing' } } })
    await page.screenshot({ path: join(tmpdir(), 'webhooks-1280.png'), fullPage: true })
  })

  it('sends a test event, and replays a delivery with the same webhook-id', async () => {
    const { auth, clock } = dashboard.host
    const ok = receivers[0]!
    // A minute on: the test event is the newest delivery.
    clock.advance(60_000)
    const page = await signIn('admin', '/settings/webhooks')
    await page.getByRole('button', { name: `Send test event to ${ok.url}` }).click()
    await page.getByText(`Test event queued for ${ok.url}.`).waitFor()
    await expect.poll(() => rows(page, 'deliveries').then((texts) => texts[0])).toMatch(/^webhook\.test\s+.+\s+Pending/s)
    await auth.webhooks.dispatch()
    const before = ok.received.length
    await page.reload()
    await expect.poll(() => rows(page, 'deliveries').then((texts) => texts[0])).toMatch(/^webhook\.test\s+.+\s+Delivered\s+204/s)
    const tested = ok.received.at(-1)!
    expect(JSON.parse(tested.body)).toMatchObject({ type: 'webhook.test' })
    await page.getByRole('button', { name: `Replay webhook.test to ${ok.url}` }).click()
    await page.getByText('webhook.test queued again, with the same webhook-id.').waitFor()
    await auth.webhooks.dispatch()
    expect(ok.received.length).toBe(before + 1)
    expect(ok.received.at(-1)!.headers['webhook-id']).toBe(tested.headers['webhook-id'])
  })

  it('adds an endpoint and shows its signing secret once; refuses a URL that is not http(s)', async () => {
    const page = await signIn('admin', '/settings/webhooks')
    await page.getByRole('button', { name: '+ Endpoint' }).click()
    await page.getByLabel('URL').fill('ftp://files.example.com/hooks')
    await page.getByRole('button', { name: 'Add & View secret' }).click()
    await page.getByText('must be an absolute http or https URL').waitFor()
    await page.getByLabel('URL').fill(`${receivers[0]!.url}/second`)
    await page.getByRole('button', { name: 'Add & View secret' }).click()
    const shown = page.getByRole('textbox', { name: 'Signing secret' })
    await shown.waitFor()
    expect(await shown.inputValue()).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/)
    await page.getByRole('button', { name: 'Done' }).click()
    expect(await page.getByRole('textbox', { name: 'Signing secret' }).count()).toBe(0)
    expect(await rows(page, 'webhooks')).toHaveLength(3)
    expect(await page.content()).not.toContain('whsec_')
  })

  it('is for admins only: a member has no link and the page says so', async () => {
    const page = await signIn('member', '/settings/webhooks')
    // The server answers the page itself (403): no script runs for a member.
    await page.getByText('Only admins of this account see this page.').waitFor()
    expect(await page.getByRole('navigation').getByRole('link', { name: 'Webhooks' }).count()).toBe(0)
  })

  it('edits an endpoint (URL, events, description, enabled), rotates its secret (shown once) and deletes it after asking', async () => {
    const { auth } = dashboard.host
    const page = await signIn('admin', '/settings/webhooks')
    const second = `${receivers[0]!.url}/second`
    const third = `${receivers[0]!.url}/third`
    await page.getByRole('button', { name: `Edit ${second}` }).click()
    const form = page.getByRole('form', { name: `Edit ${second}` })
    await form.getByLabel('URL').fill(third)
    await form.getByLabel('Description').fill('Pager')
    await form.getByRole('checkbox', { name: 'passcode.leaked', exact: true }).check()
    await form.getByRole('checkbox', { name: 'passcode.expiring_soon', exact: true }).check()
    await form.getByRole('checkbox', { name: 'Enabled', exact: true }).uncheck()
    await form.getByRole('button', { name: 'Save' }).click()
    await page.getByText('Endpoint saved.').waitFor()
    await expect
      .poll(() => rows(page, 'webhooks').then((texts) => texts[2]))
      .toMatch(new RegExp(`^${third}\\s+Pager\\s+passcode\\.expiring_soon, passcode\\.leaked\\s+Disabled\\s+Edit`))
    const [, , stored] = await auth.webhooks.list(admin, 'acc_1')
    expect(stored).toMatchObject({ url: third, description: 'Pager', enabled: false, events: ['passcode.expiring_soon', 'passcode.leaked'] })

    // Rotate secret: asked first, then the new secret once; the old one signs beside it for 24 h.
    await chooseAction(page, third, 'Rotate secret')
    const ask = page.getByRole('dialog', { name: `Rotate the signing secret of ${third}?` })
    await ask.getByRole('button', { name: 'Rotate secret' }).click()
    const shown = page.getByRole('textbox', { name: 'Signing secret' })
    await shown.waitFor()
    expect(await shown.inputValue()).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/)
    await page.getByRole('button', { name: 'Done' }).click()
    expect(await page.getByRole('textbox', { name: 'Signing secret' }).count()).toBe(0)
    expect(await page.content()).not.toContain('whsec_')
    const rotated = (await auth.webhooks.list(admin, 'acc_1'))[2]!
    expect(rotated.previousSecretEndsAt).toEqual(new Date(dashboard.host.clock.ms + 24 * 3_600_000))

    // Delete: Cancel keeps it; the confirmation deletes it.
    await chooseAction(page, third, 'Delete')
    const confirm = page.getByRole('dialog', { name: `Delete the endpoint ${third}?` })
    await confirm.getByRole('button', { name: 'Cancel' }).click()
    expect(await rows(page, 'webhooks')).toHaveLength(3)
    await chooseAction(page, third, 'Delete')
    await confirm.getByRole('button', { name: 'Delete endpoint' }).click()
    await page.getByText(`Endpoint ${third} deleted.`).waitFor()
    await expect.poll(() => rows(page, 'webhooks')).toHaveLength(2)
    expect(await auth.webhooks.list(admin, 'acc_1')).toHaveLength(2)
  })

  it('shows the deliveries by pages of 25, and those to one endpoint', async () => {
    const { auth, clock } = dashboard.host
    const [ok, failing] = receivers
    for (let n = 0; n < 14; n++) {
      clock.advance(1_000)
      await auth.passcodes.create(admin, 'acc_1', { name: `Paged ${n}`, expiry: 90 })
    }
    const all = await auth.webhooks.deliveries(admin, 'acc_1', { limit: 100 })
    expect(all.deliveries.length).toBeGreaterThan(25)
    const page = await signIn('admin', '/settings/webhooks')
    await expect.poll(() => rows(page, 'deliveries')).toHaveLength(25)
    const pages = page.getByRole('navigation', { name: 'Pages of deliveries' })
    await pages.getByText('Page 1').waitFor()
    await pages.getByRole('button', { name: 'Older' }).click()
    await pages.getByText('Page 2').waitFor()
    await expect.poll(() => rows(page, 'deliveries')).toHaveLength(Math.min(25, all.deliveries.length - 25))
    expect(await pages.getByRole('button', { name: 'Older' }).getAttribute('aria-disabled')).toBe(String(all.deliveries.length <= 50))
    await pages.getByRole('button', { name: 'Newer' }).click()
    await pages.getByText('Page 1').waitFor()

    // One endpoint: only its deliveries, from the first page.
    await page.getByRole('combobox', { name: 'Endpoint' }).selectOption({ label: failing!.url })
    const failingId = (await auth.webhooks.list(admin, 'acc_1')).find((endpoint) => endpoint.url === failing!.url)!.id
    const toFailing = all.deliveries.filter((delivery) => delivery.endpointId === failingId)
    await expect.poll(() => rows(page, 'deliveries')).toHaveLength(Math.min(25, toFailing.length))
    for (const text of await rows(page, 'deliveries')) {
      expect(text).toContain(failing!.url)
      expect(text).not.toContain(ok!.url)
    }
  })

  it('has no axe violations and is no wider than the screen at 1280 and 375 px, its forms and dialogs open too (screenshots in the temporary folder)', async () => {
    // The endpoint whose forms open: its URL is no other's prefix (names are matched by prefix).
    const ok = receivers[1]!
    for (const viewport of [
      { width: 1280, height: 900 },
      { width: 375, height: 740 },
    ]) {
      const page = await signIn('admin', '/settings/webhooks', { viewport })
      await expect.poll(() => rows(page, 'deliveries')).toHaveLength(25)
      const label = (state: string) => `Webhooks, ${state}, ${viewport.width} px`
      expect(await axeViolations(page), label('as loaded')).toEqual([])
      expect(await overflow(page), label('as loaded')).toBeLessThanOrEqual(0)
      // At 375 px the screen's first height (the endpoints, as cards): the 25 deliveries below make the whole page tall.
      await page.screenshot({ path: join(tmpdir(), `webhooks-${viewport.width}.png`), fullPage: viewport.width > 375 })

      await page.getByRole('button', { name: '+ Endpoint' }).click()
      await page.getByLabel('URL').fill('ftp://files.example.com/hooks')
      await page.getByRole('button', { name: 'Add & View secret' }).click()
      await page.getByText('must be an absolute http or https URL').waitFor()
      expect(await axeViolations(page), label('new endpoint form with an error')).toEqual([])
      expect(await overflow(page), label('new endpoint form with an error')).toBeLessThanOrEqual(0)
      await page.keyboard.press('Escape')

      await page.getByRole('button', { name: `Edit ${ok.url}`, exact: true }).click()
      await page.getByRole('form', { name: `Edit ${ok.url}`, exact: true }).waitFor()
      expect(await axeViolations(page), label('edit form open')).toEqual([])
      expect(await overflow(page), label('edit form open')).toBeLessThanOrEqual(0)
      if (viewport.width === 375)
        await page.getByRole('form', { name: `Edit ${ok.url}`, exact: true }).screenshot({ path: join(tmpdir(), 'webhooks-edit-375.png') })
      await page.keyboard.press('Escape')

      await chooseAction(page, ok.url, 'Delete')
      await page.getByRole('dialog', { name: `Delete the endpoint ${ok.url}?` }).waitFor()
      expect(await axeViolations(page), label('delete dialog open')).toEqual([])
      await page.keyboard.press('Escape')
    }
  })
})
