import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { createPasscodeAuth } from '../../src/index'
import { browserAvailability } from '../helpers/browser'
import { TEST_KEY } from '../helpers/service'
import { PEOPLE, useDashboardBrowser } from './browser-host'

/**
 * The Passcodes list of restricted passcodes (issues 44 and 45), in Chromium: each row's
 * scopes, address ranges, tags, rate limit and credits (at 1280 and 375 px); the tag
 * filter and the search asked of the API and kept in the URL through a reload, Back and
 * Forward; "Credits left" in the API's order; the day's 429s in the usage chart; axe.
 */

const availability = browserAvailability()
const admin = PEOPLE.admin.actor
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8')
const SCOPES = { 'events:read': 'Read events', 'events:write': 'Write events', 'reports:read': 'Read reports' }

describe.skipIf(availability.skip)(availability.title('restricted passcodes in the list, in Chromium'), { timeout: 90_000 }, () => {
  const dashboard = useDashboardBrowser(
    async ({ auth, clock }) => {
      const create = async (name: string, input: Omit<Parameters<typeof auth.passcodes.create>[2], 'name' | 'expiry'>) => {
        await auth.passcodes.create(admin, 'acc_1', { name, expiry: 90, ...input })
        clock.advance(60_000)
      }
      await create('Billing export', {
        scopes: ['events:read'],
        allowedAddresses: ['10.0.0.0/8', '192.168.1.0/24', '2001:db8::/32'],
        tags: ['billing', 'eu'],
        rateLimit: { max: 100, windowSeconds: 60 },
        credits: { remaining: 940, refill: { amount: 1000, interval: 'month' } },
      })
      await create('Partner sync', { scopes: ['events:read', 'events:write'], tags: ['billing'], credits: { remaining: 5 } })
      await create('Nightly batch', { tags: ['batch'], rateLimit: { max: 10, windowSeconds: 3600 }, credits: { remaining: 0 } })
      await create('Plain', {})
      await create('Reporting', { description: 'Quarterly reports for the EU office', tags: ['eu'], credits: { remaining: 50 } })
      await auth.userPasscodes.grant(admin, 'acc_1', 'u_amy', {
        validity: { type: 'finite', days: 90 },
        scopes: ['reports:read'],
        rateLimit: { max: 5, windowSeconds: 1 },
      })
      await auth.userPasscodes.grant(admin, 'acc_1', 'u_member', { validity: { type: 'finite', days: 30 } })
    },
    { scopes: SCOPES },
  )
  const { signIn } = dashboard

  /** The names of the rows shown, in order (the name is the cell's first text; tags and description follow it). */
  const names = (page: Page) =>
    page
      .locator('tbody td.name')
      .evaluateAll((cells) => cells.map((cell) => (cell.querySelector(':scope > div') ?? cell).firstChild?.textContent ?? ''))
  const rowOf = (page: Page, name: string) => page.locator('tbody tr[data-key]').filter({ has: page.locator('td.name', { hasText: name }) })
  const query = (page: Page) => page.evaluate(() => location.search)
  /** The `GET /passcodes` queries the page sent, from when this was called. */
  const listRequests = (page: Page) => {
    const seen: string[] = []
    page.on('request', (request) => {
      const url = new URL(request.url())
      if (url.pathname.endsWith('/api/passcodes')) seen.push(url.search)
    })
    return seen
  }

  it('shows each row’s scopes, address ranges, tags, rate limit and credits; a user passcode’s on Users', async () => {
    const page = await signIn('admin')
    await page.getByText('5 of 100', { exact: true }).waitFor()
    await expect.poll(() => names(page)).toEqual(['Billing export', 'Nightly batch', 'Partner sync', 'Plain', 'Reporting'])
    const billing = rowOf(page, 'Billing export')
    const access = billing.locator('td[data-label="Restrictions"] .access')
    await expect(access.locator('.scopes').textContent()).resolves.toBe('events:read')
    // The ranges: their count, the list on expand and on hover.
    const ranges = access.locator('details.ranges')
    await expect(ranges.locator('summary').textContent()).resolves.toBe('3 address ranges')
    await expect(ranges.getAttribute('title')).resolves.toBe('10.0.0.0/8, 192.168.1.0/24, 2001:db8::/32')
    await expect(ranges.getByText('2001:db8::/32').isVisible()).resolves.toBe(false)
    await ranges.locator('summary').click()
    await expect(ranges.locator('li').allTextContents()).resolves.toEqual(['10.0.0.0/8', '192.168.1.0/24', '2001:db8::/32'])
    const limits = billing.locator('td[data-label="Restrictions"] .limits')
    await expect(limits.locator('.rate [aria-hidden="true"]').textContent()).resolves.toBe('100 / 60 s')
    await expect(limits.locator('.rate .visually-hidden').textContent()).resolves.toBe('100 requests per 60 seconds')
    // 2026-01-01 plus a few minutes: the next monthly refill is February's.
    await expect(limits.locator('.credits').textContent()).resolves.toBe('940 credits left' + 'Refilled to 1,000 each month (next in 31 days)')
    await expect(limits.locator('.refill time').getAttribute('title')).resolves.toBe('2026-02-01 00:00 UTC')
    // Eight columns within 1280 px: nothing to scroll sideways.
    expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0)
    await expect(billing.getByRole('list', { name: 'Tags' }).getByRole('button').allTextContents()).resolves.toEqual([
      'Filter by tag billing',
      'Filter by tag eu',
    ])

    await expect(rowOf(page, 'Partner sync').locator('.access').textContent()).resolves.toBe('events:read, events:writeAny address')
    await expect(rowOf(page, 'Nightly batch').locator('.limits .rate [aria-hidden="true"]').textContent()).resolves.toBe('10 / 1 h')
    await expect(rowOf(page, 'Nightly batch').locator('.credits.out').textContent()).resolves.toBe('No credits left')
    const plain = rowOf(page, 'Plain')
    await expect(plain.locator('td[data-label="Restrictions"]').textContent()).resolves.toBe('All scopes, any address')
    await expect(rowOf(page, 'Reporting').locator('td[data-label="Restrictions"]').textContent()).resolves.toBe(
      'All scopes, any address' + '50 credits left',
    )
    await expect(plain.locator('.tags').count()).resolves.toBe(0)

    // At 375 px each row is a card: the restrictions it has, no line for those it has not, nothing wider than the screen.
    const phone = await signIn('admin', '/settings/', { viewport: { width: 375, height: 740 } })
    await phone.getByText('5 of 100', { exact: true }).waitFor()
    await expect(rowOf(phone, 'Plain').locator('td[data-label="Restrictions"]').isVisible()).resolves.toBe(false)
    await expect(rowOf(phone, 'Billing export').locator('td[data-label="Restrictions"]').isVisible()).resolves.toBe(true)
    expect(await phone.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0)
    const card = await rowOf(phone, 'Billing export').evaluate((row) => row.getBoundingClientRect().height)
    expect(card).toBeLessThan(520)

    const users = await signIn('admin', '/settings/users')
    const amy = users.getByRole('row').filter({ hasText: 'Amy Example' })
    await expect(amy.locator('td[data-label="Passcode"] .access').textContent()).resolves.toBe('reports:readAny address')
    await expect(amy.locator('td[data-label="Passcode"] .rate [aria-hidden="true"]').textContent()).resolves.toBe('5 / 1 s')
    await expect(users.getByRole('row').filter({ hasText: 'Mo Member' }).locator('.restricted').count()).resolves.toBe(0)
    expect(await users.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0)
    // And on Amy's own page, which Mo's (no restriction) leaves out.
    const own = await signIn('amy', '/settings/me')
    await expect(own.locator('dd .restricted .access').textContent()).resolves.toBe('reports:readAny address')
    await expect(own.locator('dd .restricted .rate .visually-hidden').textContent()).resolves.toBe('5 requests per second')
    const mo = await signIn('member', '/settings/me')
    await mo.locator('#content dl').waitFor()
    await expect(mo.locator('#content dt').allTextContents()).resolves.toEqual(['Status', 'Passcode', 'Validity', 'Expires', 'Last used'])
  })

  it('filters by tags (a row’s chip or the picker) and searches through the API; a reload, Back and Forward keep the view', async () => {
    const page = await signIn('admin')
    const asked = listRequests(page)
    await page.getByText('5 of 100', { exact: true }).waitFor()
    const start = await page.evaluate(() => history.length)
    await rowOf(page, 'Billing export').getByRole('button', { name: 'Filter by tag billing' }).click()
    await expect.poll(() => names(page)).toEqual(['Billing export', 'Partner sync'])
    expect(await query(page)).toBe('?tags=billing')
    await expect(rowOf(page, 'Partner sync').getByRole('button', { name: 'Filter by tag billing' }).getAttribute('aria-pressed')).resolves.toBe(
      'true',
    )
    await page.getByRole('status').filter({ hasText: 'Showing 2 of 5' }).waitFor()

    // The picker offers the account's tags not chosen yet.
    const picker = page.getByRole('combobox', { name: 'Tag' })
    await expect(picker.locator('option').allTextContents()).resolves.toEqual(['Add a tag…', 'batch', 'eu'])
    await picker.selectOption('eu')
    await expect.poll(() => names(page)).toEqual(['Billing export'])
    expect(await query(page)).toBe('?tags=billing&tags=eu')
    await expect(page.getByRole('group', { name: 'Tags chosen' }).getByRole('button').allTextContents()).resolves.toEqual([
      'Remove the tag billing ×',
      'Remove the tag eu ×',
    ])

    // Removing "billing", then a search: name, description and tags are the API's; typing is one step in the history.
    await page.getByRole('button', { name: 'Remove the tag billing' }).click()
    await expect.poll(() => names(page)).toEqual(['Billing export', 'Reporting'])
    await page.getByRole('searchbox', { name: 'Search' }).pressSequentially('quarterly')
    await expect.poll(() => names(page)).toEqual(['Reporting'])
    expect(await query(page)).toBe('?q=quarterly&tags=eu')
    expect(await page.evaluate(() => history.length)).toBe(start + 4)
    await expect.poll(() => asked).toContain('?tags=eu&search=quarterly')
    expect(asked).toContain('?tags=billing&tags=eu')
    // The search still finds by partner and hint, which only the page searches.
    await page.getByRole('button', { name: 'Remove the tag eu' }).click()
    await expect.poll(() => names(page)).toEqual(['Reporting'])
    const hint = (await dashboard.host.auth.passcodes.list(admin, 'acc_1')).find((passcode) => passcode.name === 'Plain')!.hint
    await page.getByRole('searchbox', { name: 'Search' }).fill(hint.slice(-4))
    await expect.poll(() => names(page)).toContain('Plain')

    // Back, step by step: "quarterly" alone, then with "eu", then "eu" alone (no search), then "billing" and "eu"; Forward again.
    await page.goBack()
    await expect.poll(() => query(page)).toBe('?q=quarterly')
    await expect.poll(() => names(page)).toEqual(['Reporting'])
    await page.goBack()
    await expect.poll(() => query(page)).toBe('?q=quarterly&tags=eu')
    await page.goBack()
    await expect.poll(() => query(page)).toBe('?tags=eu')
    await expect.poll(() => names(page)).toEqual(['Billing export', 'Reporting'])
    await expect(page.getByRole('searchbox', { name: 'Search' }).inputValue()).resolves.toBe('')
    await page.goBack()
    await expect.poll(() => query(page)).toBe('?tags=billing&tags=eu')
    await expect.poll(() => names(page)).toEqual(['Billing export'])
    await page.goForward()
    await expect.poll(() => names(page)).toEqual(['Billing export', 'Reporting'])
    await page.goForward()
    await expect.poll(() => names(page)).toEqual(['Reporting'])
    await expect(page.getByRole('searchbox', { name: 'Search' }).inputValue()).resolves.toBe('quarterly')
    expect(await query(page)).toBe('?q=quarterly&tags=eu')

    // A reload (a link) shows the same view.
    await page.reload()
    await expect.poll(() => names(page)).toEqual(['Reporting'])
    await expect(page.getByRole('searchbox', { name: 'Search' }).inputValue()).resolves.toBe('quarterly')
    await expect(page.getByRole('group', { name: 'Tags chosen' }).getByRole('button').allTextContents()).resolves.toEqual(['Remove the tag eu ×'])
  })

  it('sorts by credits left as the API orders them, fewest first and those without credits last, kept in the URL', async () => {
    const page = await signIn('admin')
    const asked = listRequests(page)
    await page.getByText('5 of 100', { exact: true }).waitFor()
    await page.getByRole('combobox', { name: 'Sort by' }).selectOption({ label: 'Credits left (fewest first)' })
    const order = ['Nightly batch', 'Partner sync', 'Reporting', 'Billing export', 'Plain']
    await expect.poll(() => names(page)).toEqual(order)
    expect(await query(page)).toBe('?sort=credits')
    expect(asked).toContain('?sortBy=creditsRemaining')
    await page.reload()
    await expect.poll(() => names(page)).toEqual(order)
    // With a tag chosen too: the API's order, narrowed.
    await rowOf(page, 'Reporting').getByRole('button', { name: 'Filter by tag eu' }).click()
    await expect.poll(() => names(page)).toEqual(['Reporting', 'Billing export'])
  })

  it('charts the day’s 429s as a series of their own, in its legend, summary and table', async () => {
    const { host } = dashboard
    const { value } = await host.auth.passcodes.create(admin, 'acc_1', {
      name: 'Metered',
      expiry: 30,
      rateLimit: { max: 2, windowSeconds: 3600 },
      credits: { remaining: 3 },
    })
    // Another instance sends the requests; its flush (on close) records them, as in a fleet.
    const sender = createPasscodeAuth({ store: host.store, clock: host.clock, encryptionKeys: [{ id: 'k1', key: TEST_KEY }], scopes: SCOPES })
    const call = async () => (await sender.authenticate({ accountId: 'acc_1', passcode: value })).ok
    const outcomes = [await call(), await call(), await call()]
    host.clock.advance(3_600_000)
    outcomes.push(await call(), await call())
    await sender.close()
    // Two in the first hour, the third over the rate; one more in the next hour, then no credit left.
    expect(outcomes).toEqual([true, true, false, true, false])

    const page = await signIn('admin')
    await page.getByText('6 of 100', { exact: true }).waitFor()
    await page.getByRole('button', { name: 'Usage of Metered' }).click()
    const chart = page.getByRole('region', { name: 'Usage of Metered' })
    const summary = chart.locator('.usage-summary')
    await summary.waitFor()
    const today = new Intl.DateTimeFormat('en-US', { day: 'numeric', month: 'short', timeZone: 'UTC' }).format(new Date(host.clock.ms))
    await expect(summary.textContent()).resolves.toBe(
      `Used 3 times in the last 30 days, most on ${today} (3). 2 limited (429): 1 over the rate limit, 1 out of credits.`,
    )
    await expect(chart.locator('.usage-legend').textContent()).resolves.toBe('Used Limited (429)')
    await expect(chart.locator('svg.usage-bars rect.limited').count()).resolves.toBe(1)
    await expect(chart.locator('svg.usage-bars title').last().textContent()).resolves.toBe(`${today}: 3 used, 0 refused, 2 limited (429)`)
    await expect(chart.locator('table.visually-hidden th').allTextContents()).resolves.toEqual(['Day (UTC)', 'Used', 'Refused', 'Limited (429)'])
    await expect(chart.locator('table.visually-hidden tbody tr').allTextContents()).resolves.toEqual([`${today}302`])
    await expect(rowOf(page, 'Metered').locator('.credits').textContent()).resolves.toBe('No credits left')
  })

  it('has no axe violations with the new parts shown: chips, chosen tags, ranges open, the 429 chart; at 1280 and 375 px', async () => {
    const violations = async (page: Page) => {
      await page.evaluate(AXE)
      return page.evaluate(async () => {
        const axe = (
          window as unknown as { axe: { run(context: Document): Promise<{ violations: { id: string; nodes: { target: string[] }[] }[] }> } }
        ).axe
        return (await axe.run(document)).violations.map(
          (violation) => `${violation.id} at ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`,
        )
      })
    }
    for (const viewport of [
      { width: 1280, height: 900 },
      { width: 375, height: 740 },
    ]) {
      const page = await signIn('admin', '/settings/?tags=billing&sort=credits', { viewport })
      await expect.poll(() => names(page)).toEqual(['Partner sync', 'Billing export'])
      await rowOf(page, 'Billing export').locator('details.ranges summary').click()
      expect(await violations(page), `filtered, ${viewport.width} px`).toEqual([])
      await signIn('admin', '/settings/', { viewport })
      expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0)
      await page.getByRole('button', { name: 'Usage of Metered' }).click()
      await page.getByRole('region', { name: 'Usage of Metered' }).locator('.usage-legend').waitFor()
      expect(await violations(page), `chart, ${viewport.width} px`).toEqual([])
    }
  })
})
