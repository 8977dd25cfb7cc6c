import { createServer, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { verifyWebhook } from '../../src/webhooks/index'
import { browserAvailability } from '../helpers/browser'
import { PEOPLE, useDashboardBrowser } from './browser-host'

/**
 * Settings > Webhooks (SPEC §5.53), in Chromium: the account's endpoints, the recent
 * deliveries with their status, last code and time, "Send test event" and Replay (the
 * same `webhook-id` reaches the receiver twice), an endpoint added with its signing secret
 * shown once, and nothing of it for a member. The receivers listen on 127.0.0.1, which
 * the test host allows (`webhooks.allowPrivateAddresses`). A screenshot at 1280 px goes to
 * the system's temporary folder (webhooks-1280.png) for a person to look at.
 */

const availability = browserAvailability()
const admin = PEOPLE.admin.actor

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
        expect.stringMatching(new RegExp(`^${ok!.url}\\s+CRM sync\\s+All events\\s+Enabled\\s+Send test event$`)),
        expect.stringMatching(new RegExp(`^${failing!.url}\\s+passcode\\.created\\s+Enabled, failing\\s+Send test event$`)),
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
})
