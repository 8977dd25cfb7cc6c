import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { createPasscodeAuth } from '../../src/index'
import { DAY_MS } from '../../src/core/time'
import { browserAvailability } from '../helpers/browser'
import { TEST_KEY } from '../helpers/service'
import { AMY_EMAIL, PEOPLE, useDashboardBrowser } from './browser-host'

/**
 * Finding one of 100 passcodes (issue 34 item 4), in Chromium: search by name, hint and
 * partner, filter by status (including "not accepted by this account"), sort by name,
 * created, expiry and last use, the choice kept in the URL; by keyboard and at 375 px.
 */

const availability = browserAvailability()
const admin = PEOPLE.admin.actor

describe.skipIf(availability.skip)(availability.title('finding a passcode in Chromium'), { timeout: 90_000 }, () => {
  const dashboard = useDashboardBrowser(async (host) => {
    // 100 passcodes: created a day apart, expiring 1 to 100 days after creation (some expired by now), a few bound.
    for (let i = 1; i <= 100; i++) {
      const partners = i % 10 === 0 ? ['globex'] : undefined
      await host.auth.passcodes.create(admin, 'acc_1', {
        name: `Service ${String(i).padStart(3, '0')}`,
        expiry: i,
        ...(partners ? { partners } : {}),
      })
      host.clock.advance(86_400_000)
    }
  })
  const { signIn } = dashboard

  const names = (page: Page) => page.locator('tbody td.name').allTextContents()
  /** The words of the rows that a line break cuts in two ("Disable d"): each word must lie on one line. */
  const brokenWords = (page: Page) =>
    page.evaluate(() => {
      const broken: string[] = []
      const walker = document.createTreeWalker(document.querySelector('tbody')!, NodeFilter.SHOW_TEXT)
      for (let node = walker.nextNode(); node !== null; node = walker.nextNode()) {
        const text = node.textContent ?? ''
        for (const match of text.matchAll(/\S+/g)) {
          const range = document.createRange()
          range.setStart(node, match.index)
          range.setEnd(node, match.index + match[0].length)
          const lines = new Set([...range.getClientRects()].filter((rect) => rect.width > 0).map((rect) => Math.round(rect.top)))
          if (lines.size > 1) broken.push(match[0])
        }
      }
      return broken
    })

  it('searches by name, hint and partner; says how many of the 100 it shows', async () => {
    const page = await signIn('admin')
    await page.getByText('100 of 100', { exact: true }).waitFor()
    const search = page.getByRole('searchbox', { name: 'Search' })
    await search.fill('service 04')
    await expect.poll(() => names(page)).toEqual(Array.from({ length: 10 }, (_, i) => `Service 04${i}`))
    await page.getByRole('status').filter({ hasText: 'Showing 10 of 100' }).waitFor()
    const hint = (await dashboard.host.auth.passcodes.list(admin, 'acc_1')).find((passcode) => passcode.name === 'Service 077')!.hint
    await search.fill(hint.slice(-4))
    await expect.poll(() => names(page)).toContain('Service 077')
    await search.fill('globex')
    await expect.poll(async () => (await names(page)).length).toBe(10)
    await search.fill('no such thing')
    await page.getByText('No passcode matches.').waitFor()
  })

  it('filters by status, including "not accepted by this account", and sorts by expiry, created and name; a link keeps the view', async () => {
    const page = await signIn('admin')
    await page.getByText('100 of 100', { exact: true }).waitFor()
    // All on one page, to compare whole lists.
    await page.getByRole('combobox', { name: 'Rows per page' }).selectOption('100')
    const list = await dashboard.host.auth.passcodes.list(admin, 'acc_1')
    const expired = list
      .filter((passcode) => passcode.status === 'expired')
      .map((passcode) => passcode.name)
      .sort()
    await page.getByRole('combobox', { name: 'Status' }).selectOption({ label: 'Expired' })
    await expect.poll(() => names(page)).toEqual(expired)
    expect(new URL(page.url()).searchParams.get('status')).toBe('expired')

    await page.getByRole('combobox', { name: 'Status' }).selectOption({ label: 'All' })
    await page.getByRole('combobox', { name: 'Sort by' }).selectOption({ label: 'Expiry (soonest first)' })
    const byExpiry = [...list].sort((a, b) => a.expiresAt!.getTime() - b.expiresAt!.getTime()).map((passcode) => passcode.name)
    await expect.poll(() => names(page)).toEqual(byExpiry)
    await page.getByRole('combobox', { name: 'Sort by' }).selectOption({ label: 'Created (newest first)' })
    await expect.poll(async () => (await names(page))[0]).toBe('Service 100')

    await page.getByRole('searchbox', { name: 'Search' }).fill('Service 09')
    // The page's own address: the input handler changed it before fill() returned, while
    // page.url() follows it only when Chromium's notice of the change has arrived.
    const link = await page.evaluate(() => location.href)
    expect(new URL(link).searchParams.get('q')).toBe('Service 09')
    expect(new URL(link).searchParams.get('sort')).toBe('created')
    expect(new URL(link).searchParams.get('per')).toBe('100')
    const again = await signIn('admin', new URL(link).pathname + new URL(link).search)
    await expect
      .poll(() => names(again))
      .toEqual([
        'Service 099',
        'Service 098',
        'Service 097',
        'Service 096',
        'Service 095',
        'Service 094',
        'Service 093',
        'Service 092',
        'Service 091',
        'Service 090',
      ])
    await expect(again.getByRole('searchbox', { name: 'Search' }).inputValue()).resolves.toBe('Service 09')

    await dashboard.host.auth.accounts.setAcceptedPasscodes(admin, 'acc_1', 'user')
    await again.goto(`${dashboard.host.origin}/settings/?status=not_accepted&per=100`)
    const working = list.filter((passcode) => passcode.status === 'active' || passcode.status === 'expiring_soon').length
    await expect.poll(async () => (await names(again)).length).toBe(working)
    await expect(again.getByRole('combobox', { name: 'Status' }).inputValue()).resolves.toBe('not_accepted')
  })

  it('sorts by last use with recorded use, says "Unused for N days" or "Never used", and charts a passcode\'s last 30 days', async () => {
    const { host } = dashboard
    await host.auth.accounts.setAcceptedPasscodes(admin, 'acc_1', 'both')
    const list = await host.auth.passcodes.list(admin, 'acc_1')
    const idOf = (name: string) => list.find((passcode) => passcode.name === name)!.id
    // Values to call with: a rotation shows a new one (the seeded values were not kept).
    const valueOf = async (name: string) => (await host.auth.passcodes.rotate(admin, 'acc_1', idOf(name), { overlapMinutes: 0 })).value
    const [v090, v095, v099] = [await valueOf('Service 090'), await valueOf('Service 095'), await valueOf('Service 099')]
    await host.auth.userPasscodes.grant(admin, 'acc_1', 'u_amy', { validity: { type: 'finite', days: 90 } })
    const amy = await host.auth.userPasscodes.reveal(PEOPLE.amy.actor, 'acc_1')

    // Another instance on the host's store sends the requests; its flush (on close) records them, as in a fleet.
    const sender = createPasscodeAuth({
      store: host.store,
      partners: ['acme', 'globex'],
      clock: host.clock,
      encryptionKeys: [{ id: 'k1', key: TEST_KEY }],
    })
    const connect = (value: string, partner: string) =>
      sender.connect({ headers: { 'x-service-account-id': 'acc_1', 'x-service-passcode': value }, partner })
    const firstDay = new Date(host.clock.ms).toISOString().slice(0, 10)
    for (let i = 0; i < 5; i++) expect((await connect(v090, 'globex')).statusCode).toBe(200)
    expect((await connect(v090, 'acme')).statusCode).toBe(403)
    for (let i = 0; i < 2; i++) expect((await sender.authenticate({ accountId: 'acc_1', passcode: v095 })).ok).toBe(true)
    for (let i = 0; i < 2; i++) expect((await sender.authenticate({ accountId: 'acc_1', passcode: amy.value })).ok).toBe(true)
    host.clock.advance(3 * DAY_MS)
    expect((await sender.authenticate({ accountId: 'acc_1', passcode: v099 })).ok).toBe(true)
    host.clock.advance(3_600_000)
    for (let i = 0; i < 4; i++) expect((await connect(v090, 'globex')).statusCode).toBe(200)
    const lastDay = new Date(host.clock.ms).toISOString().slice(0, 10)
    await sender.close()
    const usage = await host.auth.passcodes.usage(admin, 'acc_1', idOf('Service 090'))
    expect(usage.days.map((day) => [day.date, day.succeeded, day.wrongPartner])).toEqual([
      [firstDay, 5, 1],
      [lastDay, 4, 0],
    ])

    const page = await signIn('admin', '/settings/?sort=used')
    await page.getByText('100 of 100', { exact: true }).waitFor()
    await expect.poll(async () => (await names(page)).slice(0, 4)).toEqual(['Service 090', 'Service 099', 'Service 095', 'Service 001'])
    const lastUsed = (name: string) =>
      page
        .getByRole('row')
        .filter({ has: page.getByRole('cell', { name, exact: true }) })
        .locator('td[data-label="Last used"]')
    await expect(lastUsed('Service 090').textContent()).resolves.not.toContain('Unused')
    await expect(lastUsed('Service 095').locator('.unused').textContent()).resolves.toBe('Unused for 3 days')
    await expect(lastUsed('Service 001').locator('.unused').textContent()).resolves.toBe('Never used')

    // The chart opens on demand, in a row of its own under the passcode's, with its text alternative.
    const toggle = page.getByRole('button', { name: 'Usage of Service 090' })
    await toggle.click()
    await expect(toggle.getAttribute('aria-expanded')).resolves.toBe('true')
    const chartOf = page.getByRole('region', { name: 'Usage of Service 090' })
    await expect(chartOf.evaluate((panel) => panel.closest('tr')?.previousElementSibling?.querySelector('td.name')?.textContent)).resolves.toBe(
      'Service 090',
    )
    const summary = chartOf.locator('.usage-summary')
    await summary.waitFor()
    const label = (date: string) => new Intl.DateTimeFormat('en-US', { day: 'numeric', month: 'short', timeZone: 'UTC' }).format(new Date(date))
    await expect(summary.textContent()).resolves.toBe(`Used 9 times in the last 30 days, most on ${label(firstDay)} (5). 1 refused: 1 wrong partner.`)
    await expect(chartOf.locator('svg.usage-bars g').count()).resolves.toBe(30)
    await expect(chartOf.locator('svg.usage-bars').getAttribute('aria-hidden')).resolves.toBe('true')
    await expect(chartOf.locator('table.visually-hidden tbody tr').allTextContents()).resolves.toEqual([
      `${label(firstDay)}51`,
      `${label(lastDay)}40`,
    ])
    // As wide as the table, not squeezed into the Last used column.
    const width = await chartOf.locator('.usage-chart').evaluate((chart) => chart.getBoundingClientRect().width)
    expect(width).toBeGreaterThan(400)
    await toggle.click()
    await expect(chartOf.count()).resolves.toBe(0)
    await page.getByRole('button', { name: 'Usage of Service 001' }).click()
    await page.getByRole('region', { name: 'Usage of Service 001' }).getByText('Not used in the last 30 days.').waitFor()

    // A user passcode's too, on Users.
    const users = await signIn('admin', '/settings/users')
    const amyRow = users.getByRole('row').filter({ hasText: 'Amy Example' })
    await amyRow.getByRole('button', { name: 'Usage of Amy Example' }).click()
    await users
      .getByRole('region', { name: 'Usage of Amy Example' })
      .getByText(`Used 2 times in the last 30 days, most on ${label(firstDay)} (2).`)
      .waitFor()
    await expect(amyRow.locator('.unused').textContent()).resolves.toBe('Unused for 3 days')
    // With the chart open the columns keep their width; an email address stays whole, on one line.
    const email = amyRow.getByText(AMY_EMAIL, { exact: true })
    await expect(email.evaluate((element) => element.getClientRects().length)).resolves.toBe(1)
    // And on the member's own page.
    const own = await signIn('amy', '/settings/me')
    await own.getByRole('button', { name: 'Usage of your passcode' }).click()
    await own.getByText(`Used 2 times in the last 30 days, most on ${label(firstDay)} (2).`).waitFor()
    await host.auth.userPasscodes.revoke(admin, 'acc_1', 'u_amy')
  })

  it('shows 25 rows a page with the count, 50 or 100 on request, kept in the URL; Next keeps the focus on itself', async () => {
    const page = await signIn('admin')
    await page.getByText('100 of 100', { exact: true }).waitFor()
    await expect.poll(() => names(page).then((shown) => shown.length)).toBe(25)
    const shown = page.locator('#find-shown')
    await expect(shown.textContent()).resolves.toBe('Showing 1–25 of 100')
    const pages = page.getByRole('navigation', { name: 'Pages of passcodes' })
    await expect(pages.textContent()).resolves.toContain('Page 1 of 4')
    await expect(pages.getByRole('button', { name: 'Previous' }).getAttribute('aria-disabled')).resolves.toBe('true')
    await pages.getByRole('button', { name: 'Next' }).click()
    await expect.poll(() => names(page).then((list) => list[0])).toBe('Service 026')
    await expect(shown.textContent()).resolves.toBe('Showing 26–50 of 100')
    await expect(page.evaluate(() => document.activeElement?.textContent)).resolves.toBe('Next')
    expect(new URL(await page.evaluate(() => location.href)).searchParams.get('page')).toBe('2')
    await page.reload()
    await expect.poll(() => names(page).then((list) => list[0])).toBe('Service 026')

    await page.getByRole('combobox', { name: 'Rows per page' }).selectOption('50')
    await expect.poll(() => names(page).then((list) => list.length)).toBe(50)
    await expect(shown.textContent()).resolves.toBe('Showing 1–50 of 100')
    expect(Object.fromEntries(new URL(await page.evaluate(() => location.href)).searchParams)).toEqual({ per: '50' })
    // A search narrows the count (once the API answered it); the pages follow it.
    await page.getByRole('searchbox', { name: 'Search' }).fill('Service 0')
    await expect.poll(() => shown.textContent()).toBe('Showing 1–50 of 99 matching (100 in all)')
    await page.getByRole('combobox', { name: 'Rows per page' }).selectOption('100')
    await expect.poll(() => shown.textContent()).toBe('Showing 99 of 100')
    await expect(pages.isHidden()).resolves.toBe(true)
  })

  it('keeps a row one line tall at 1280 px, with the secondary actions in a menu, and no word broken at 1280 or 375 px', async () => {
    const page = await signIn('admin')
    await page.getByText('100 of 100', { exact: true }).waitFor()
    await expect.poll(() => names(page).then((shown) => shown.length)).toBe(25)
    // One line of text, a time's two (the date, how far away): no stack of buttons.
    const heights = await page.locator('tbody tr').evaluateAll((rows) => rows.map((row) => row.getBoundingClientRect().height))
    expect(Math.max(...heights)).toBeLessThan(75)
    expect(await page.evaluate(() => document.documentElement.scrollHeight)).toBeLessThan(2600)
    const actions = page.getByRole('row').filter({ hasText: 'Service 001' }).locator('td.actions-cell')
    await expect(actions.getByRole('button').allTextContents()).resolves.toEqual(['Edit Service 001', 'More actions for Service 001'])
    expect(await brokenWords(page)).toEqual([])
    const phone = await signIn('admin', '/settings/', { viewport: { width: 375, height: 740 } })
    await phone.getByText('100 of 100', { exact: true }).waitFor()
    expect(await brokenWords(phone)).toEqual([])
  })

  it('is usable by keyboard alone and at 375 px', async () => {
    const page = await signIn('admin', '/settings/', { viewport: { width: 375, height: 740 } })
    await page.getByText('100 of 100', { exact: true }).waitFor()
    // From the skip link, the search box is a few tab stops away, not 300.
    await page.keyboard.press('Tab')
    await page.keyboard.press('Enter')
    let stops = 0
    while ((await page.evaluate(() => document.activeElement?.id)) !== 'find-q' && stops < 10) {
      await page.keyboard.press('Tab')
      stops++
    }
    expect(stops).toBeLessThan(10)
    await page.keyboard.type('Service 100')
    await expect.poll(() => names(page)).toEqual(['Service 100'])
    await page.keyboard.press('Tab')
    await page.keyboard.press('ArrowDown')
    expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0)
  })
})
