import type { Locator, Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { browserAvailability } from '../helpers/browser'
import { axeViolations } from './axe-check'
import { PEOPLE, startBrowserHost, useDashboardBrowser } from './browser-host'

/**
 * The restriction and limit fields of the passcode forms (SPEC §5.48 to §5.51), in
 * Chromium: scopes, address ranges, metadata, tags, a rate limit and credits, at create,
 * edit and grant; an error shown at its field (from the API, or JSON the page cannot
 * read) with nothing written; an edit that clears a field removes it; axe on the forms.
 */

const availability = browserAvailability()
const admin = PEOPLE.admin.actor
const SCOPES = { 'events:read': 'Read events', 'events:write': 'Send events' }
const PART = 'Scopes, addresses, limits, metadata and tags'

/** The New passcode form, opened, with its restrictions unfolded. */
async function openCreate(page: Page): Promise<Locator> {
  await page.getByRole('button', { name: '+ Passcode' }).click()
  const form = page.getByRole('form', { name: 'New passcode' })
  await form.getByText(PART).click()
  return form
}

/** The error under the field labelled `label`, checked to be tied to it as the other fields' are. */
async function fieldError(form: Locator, label: string): Promise<string> {
  const field = form.getByLabel(label, { exact: true })
  await expect.poll(() => field.getAttribute('aria-invalid')).toBe('true')
  const described = (await field.getAttribute('aria-describedby'))!.split(' ')[0]!
  return (await form.locator(`#${described}.field-error`).textContent()) ?? ''
}

describe.skipIf(availability.skip)(
  availability.title('passcode restrictions and limits in the dashboard forms, in Chromium'),
  { timeout: 120_000 },
  () => {
    const dashboard = useDashboardBrowser(undefined, { scopes: SCOPES })
    const { signIn } = dashboard
    const passcode = async (name: string) => (await dashboard.host.auth.passcodes.list(admin, 'acc_1')).find((one) => one.name === name)

    it('creates a passcode with scopes, address ranges, metadata, tags, a rate limit and credits', async () => {
      const page = await signIn('admin')
      const form = await openCreate(page)
      expect(await form.getByRole('group', { name: 'Scopes', exact: true }).count()).toBe(1)
      await form.getByLabel('Passcode Name').fill('Restricted')
      await form.getByRole('radio', { name: 'Only the scopes checked' }).check()
      await form.getByRole('checkbox', { name: 'events:read Read events' }).check()
      await form.getByLabel('Allowed addresses (CIDR ranges, one per line)').fill('203.0.113.0/24\n\n2001:db8::/32\n')
      await form.getByLabel('Metadata (JSON object, optional)').fill('{"plan": "pro", "customer": 42}')
      await form.getByLabel('Tags (optional)').fill('billing, EU  partner')
      await form.getByLabel('Requests', { exact: true }).fill('100')
      await form.getByLabel('Window (seconds)').fill('60')
      await form.getByLabel('Remaining').fill('1000')
      await form.getByLabel('Refill', { exact: true }).selectOption('month')
      await form.getByLabel('Refill to').fill('1000')
      await form.getByRole('button', { name: 'Create & View' }).click()
      await page.getByRole('region', { name: 'Passcode “Restricted” created' }).waitFor()
      expect(await passcode('Restricted')).toMatchObject({
        scopes: ['events:read'],
        allowedAddresses: ['203.0.113.0/24', '2001:db8::/32'],
        metadata: { plan: 'pro', customer: 42 },
        tags: ['billing', 'eu', 'partner'],
        rateLimit: { max: 100, windowSeconds: 60 },
        credits: { remaining: 1000, refill: { amount: 1000, interval: 'month' } },
      })
      // Left as they are, the fields send nothing: every scope, any address, no limit.
      const plain = await openCreate(page)
      await plain.getByLabel('Passcode Name').fill('Plain')
      await plain.getByRole('button', { name: 'Create & View' }).click()
      await page.getByRole('region', { name: 'Passcode “Plain” created' }).waitFor()
      expect(await passcode('Plain')).toMatchObject({ scopes: null, allowedAddresses: [], metadata: null, tags: [], rateLimit: null, credits: null })
    })

    it('shows a bad range, bad metadata and a refill without an amount at their fields, writing nothing', async () => {
      const page = await signIn('admin')
      const form = await openCreate(page)
      await form.getByLabel('Passcode Name').fill('Refused')
      const ranges = form.getByLabel('Allowed addresses (CIDR ranges, one per line)')
      await ranges.fill('203.0.113.0/24\n10.1.2.3/8')
      await form.getByRole('button', { name: 'Create & View' }).click()
      expect(await fieldError(form, 'Allowed addresses (CIDR ranges, one per line)')).toBe(
        'Allowed addresses (CIDR ranges, one per line): "10.1.2.3/8" has host bits set (the range is 10.0.0.0/8)',
      )
      // The hint still describes the field, after the error.
      expect((await ranges.getAttribute('aria-describedby'))?.split(' ')).toHaveLength(2)
      await ranges.fill('')
      const metadata = form.getByLabel('Metadata (JSON object, optional)')
      await metadata.fill('{"plan": ')
      await form.getByRole('button', { name: 'Create & View' }).click()
      expect(await fieldError(form, 'Metadata (JSON object, optional)')).toBe(
        'Metadata (JSON object, optional): must be JSON, such as {"plan": "pro"}',
      )
      expect(await ranges.getAttribute('aria-invalid')).toBeNull()
      await metadata.fill('["an", "array"]')
      await form.getByRole('button', { name: 'Create & View' }).click()
      expect(await fieldError(form, 'Metadata (JSON object, optional)')).toMatch(/^Metadata \(JSON object, optional\): must be a JSON object/)
      await metadata.fill(JSON.stringify({ note: 'x'.repeat(1100) }))
      await form.getByRole('button', { name: 'Create & View' }).click()
      expect(await fieldError(form, 'Metadata (JSON object, optional)')).toMatch(/1024 bytes/)
      await metadata.fill('')
      await form.getByLabel('Remaining').fill('10')
      await form.getByLabel('Refill', { exact: true }).selectOption('day')
      await form.getByRole('button', { name: 'Create & View' }).click()
      expect(await fieldError(form, 'Refill to')).toMatch(/^Refill to: must be a whole number of credits/)
      expect(await passcode('Refused')).toBeUndefined()
    })

    it('prefills Edit; clearing a field removes it, an unchanged one is not sent, an error writes nothing', async () => {
      await dashboard.host.auth.passcodes.create(admin, 'acc_1', {
        name: 'Limited',
        expiry: 90,
        scopes: ['events:write'],
        allowedAddresses: ['198.51.100.0/24'],
        metadata: { plan: 'free' },
        tags: ['trial'],
        rateLimit: { max: 10, windowSeconds: 1 },
        credits: { remaining: 500, refill: { amount: 500, interval: 'day' } },
      })
      const page = await signIn('admin')
      await page.getByRole('button', { name: 'Edit Limited' }).click()
      const form = page.getByRole('form', { name: 'Edit “Limited”' })
      // Open at once: the passcode has restrictions.
      expect(await form.locator('details.restrictions').getAttribute('open')).toBe('')
      expect(await form.getByRole('checkbox', { name: 'events:write Send events' }).isChecked()).toBe(true)
      expect(await form.getByRole('checkbox', { name: 'events:read Read events' }).isChecked()).toBe(false)
      const ranges = form.getByLabel('Allowed addresses (CIDR ranges, one per line)')
      expect(await ranges.inputValue()).toBe('198.51.100.0/24')
      expect(JSON.parse(await form.getByLabel('Metadata (JSON object, optional)').inputValue())).toEqual({ plan: 'free' })
      expect(await form.getByLabel('Tags (optional)').inputValue()).toBe('trial')
      expect(await form.getByLabel('Requests', { exact: true }).inputValue()).toBe('10')
      expect(await form.getByLabel('Remaining').inputValue()).toBe('500')
      expect(await form.getByLabel('Refill', { exact: true }).inputValue()).toBe('day')

      await ranges.fill('198.51.100.7/24')
      await form.getByRole('button', { name: 'Save' }).click()
      expect(await fieldError(form, 'Allowed addresses (CIDR ranges, one per line)')).toContain('"198.51.100.7/24" has host bits set')
      expect((await passcode('Limited'))?.allowedAddresses).toEqual(['198.51.100.0/24'])

      await form.getByRole('radio', { name: 'All scopes, also those declared later' }).check()
      await ranges.fill('')
      await form.getByLabel('Metadata (JSON object, optional)').fill('')
      await form.getByLabel('Tags (optional)').fill('')
      await form.getByLabel('Requests', { exact: true }).fill('')
      await form.getByLabel('Window (seconds)').fill('')
      await form.getByLabel('Remaining').fill('')
      await form.getByLabel('Refill', { exact: true }).selectOption('')
      await form.getByLabel('Refill to').fill('')
      const sent = page.waitForRequest((request) => request.method() === 'PATCH')
      await form.getByRole('button', { name: 'Save' }).click()
      // Each cleared field as the API removes it; the name, expiry and the rest, unchanged, not sent.
      expect((await sent).postDataJSON()).toEqual({ scopes: null, allowedAddresses: [], metadata: null, tags: [], rateLimit: null, credits: null })
      await expect
        .poll(() => passcode('Limited'))
        .toMatchObject({ scopes: null, allowedAddresses: [], metadata: null, tags: [], rateLimit: null, credits: null })
    })

    it('grants a user passcode with scopes, address ranges, a rate limit and credits; no metadata or tags offered', async () => {
      const page = await signIn('admin', '/settings/users')
      const form = page.getByRole('form', { name: 'Grant a user passcode' })
      await form.getByRole('textbox', { name: 'User ID' }).fill('u_member')
      await form.getByText('Scopes, addresses and limits').click()
      expect(await form.getByLabel('Metadata (JSON object, optional)').count()).toBe(0)
      await form.getByRole('radio', { name: 'Only the scopes checked' }).check()
      await form.getByRole('checkbox', { name: 'events:read Read events' }).check()
      await form.getByLabel('Allowed addresses (CIDR ranges, one per line)').fill('192.0.2.0/24')
      await form.getByLabel('Requests', { exact: true }).fill('5')
      await form.getByLabel('Window (seconds)').fill('1')
      await form.getByLabel('Remaining').fill('50')
      await form.getByRole('button', { name: 'Grant Passcode' }).click()
      await expect
        .poll(() => dashboard.host.auth.userPasscodes.get(admin, 'acc_1', 'u_member'))
        .toMatchObject({
          scopes: ['events:read'],
          allowedAddresses: ['192.0.2.0/24'],
          rateLimit: { max: 5, windowSeconds: 1 },
          credits: { remaining: 50, refill: null },
        })
    })

    it('has no axe violations with the fields open, an error shown, at 1280 and 375 px', async () => {
      for (const viewport of [
        { width: 1280, height: 900 },
        { width: 375, height: 740 },
      ]) {
        const page = await signIn('admin', '/settings/', { viewport })
        const form = await openCreate(page)
        await form.getByRole('radio', { name: 'Only the scopes checked' }).check()
        await form.getByLabel('Allowed addresses (CIDR ranges, one per line)').fill('10.1.2.3/8')
        await form.getByRole('button', { name: 'Create & View' }).click()
        await form.locator('.field-error').waitFor()
        expect(await axeViolations(page), `New passcode, ${viewport.width} px`).toEqual([])
        await page.getByRole('button', { name: 'Edit Restricted' }).click()
        await page.getByRole('form', { name: 'Edit “Restricted”' }).locator('details.restrictions[open]').waitFor()
        expect(await axeViolations(page), `Edit, ${viewport.width} px`).toEqual([])
      }
    })

    it('offers no scopes when the host declares none, and the other fields still', async () => {
      const bare = await startBrowserHost()
      const context = await dashboard.browser.newContext({ viewport: { width: 1280, height: 900 } })
      try {
        const page = await context.newPage()
        await page.goto(`${bare.origin}/login?as=admin&to=${encodeURIComponent('/settings/')}`)
        const form = await openCreate(page)
        await form.getByLabel('Allowed addresses (CIDR ranges, one per line)').waitFor()
        expect(await form.getByRole('group', { name: 'Scopes', exact: true }).count()).toBe(0)
        expect(await form.locator('input[name="scope"]').count()).toBe(0)
      } finally {
        await context.close()
        await bare.close()
      }
    })
  },
)
