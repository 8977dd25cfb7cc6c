import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { browserAvailability } from '../helpers/browser'
import { PEOPLE, useDashboardBrowser } from './browser-host'

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
    const link = page.url()
    expect(new URL(link).searchParams.get('q')).toBe('Service 09')
    expect(new URL(link).searchParams.get('sort')).toBe('created')
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
    await again.goto(`${dashboard.host.origin}/settings/?status=not_accepted`)
    const working = list.filter((passcode) => passcode.status === 'active' || passcode.status === 'expiring_soon').length
    await expect.poll(async () => (await names(again)).length).toBe(working)
    await expect(again.getByRole('combobox', { name: 'Status' }).inputValue()).resolves.toBe('not_accepted')
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
