import { describe, expect, it } from 'vitest'
import { browserAvailability } from '../helpers/browser'
import { PEOPLE, useDashboardBrowser } from './browser-host'

/**
 * The minors of issue 34, in Chromium: the smaller ways the dashboard misled or got in
 * the way (a form that does not say a passcode starts as "Expiring soon", a name cut
 * silently, an edit that hides the current expiry, revoked rows that keep their hint, a
 * session end without a link, no skip link, Escape, phone width).
 */

const availability = browserAvailability()
const admin = PEOPLE.admin.actor

describe.skipIf(availability.skip)(availability.title('dashboard minors in Chromium'), { timeout: 90_000 }, () => {
  const dashboard = useDashboardBrowser()
  const { signIn } = dashboard

  it('says in the form when 30 days or fewer make a passcode "Expiring soon" from the start', async () => {
    const page = await signIn('admin')
    await page.getByRole('button', { name: '+ Passcode' }).click()
    const form = page.getByRole('form', { name: 'New passcode' })
    const days = form.getByRole('spinbutton', { name: 'Number of days' })
    await days.fill('30')
    const note = '30 days or fewer: it shows as “Expiring soon” from the start.'
    await form.getByText(note).waitFor()
    const described = await days.getAttribute('aria-describedby')
    await expect(page.locator(`#${described}`).textContent()).resolves.toBe(note)
    await days.fill('31')
    await expect(form.getByText(note).count()).resolves.toBe(0)
    await days.fill('7')
    await form.getByRole('radio', { name: 'Forever' }).check()
    await expect(form.getByText(note).count()).resolves.toBe(0)
  })

  it('keeps a pasted name whole and says it is too long, by its label', async () => {
    const page = await signIn('admin')
    await page.getByRole('button', { name: '+ Passcode' }).click()
    const form = page.getByRole('form', { name: 'New passcode' })
    const name = form.getByRole('textbox', { name: 'Passcode Name' })
    await name.fill('x'.repeat(70))
    await expect(name.inputValue()).resolves.toHaveLength(70)
    await form.getByRole('button', { name: 'Create & View' }).click()
    await form.locator('.field-error').waitFor()
    await expect(form.locator('.field-error').textContent()).resolves.toMatch(/^Passcode Name: /)
  })

  it('shows the current expiry in Edit, says new days count from today, ties the name label, and keeps headers whole', async () => {
    await dashboard.host.auth.passcodes.create(admin, 'acc_1', { name: 'Old one', expiry: 90 })
    const page = await signIn('admin')
    await page.getByRole('button', { name: 'Edit Old one' }).click()
    const form = page.getByRole('form', { name: 'Edit “Old one”' })
    await expect(form.textContent()).resolves.toContain('A new number of days counts from today.')
    await expect(form.locator('.current-expiry time').count()).resolves.toBe(1)
    await expect(form.locator('input[name="name"]').evaluate((input: HTMLInputElement) => input.labels?.length ?? 0)).resolves.toBe(1)
    const broken = await page.evaluate(
      () =>
        [...document.querySelectorAll('th')].filter((th) => {
          const range = document.createRange()
          range.selectNodeContents(th)
          return range.getClientRects().length > 1
        }).length,
    )
    expect(broken).toBe(0)
    await page.keyboard.press('Escape')
    await page.getByRole('button', { name: 'Edit Old one' }).waitFor()
  })

  it('closes the New passcode form with Escape, back on + Passcode', async () => {
    const page = await signIn('admin')
    await page.getByRole('button', { name: '+ Passcode' }).click()
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe('create-name')
    await page.keyboard.press('Escape')
    await expect(page.getByRole('form', { name: 'New passcode' }).isVisible()).resolves.toBe(false)
    await expect(page.evaluate(() => document.activeElement?.id)).resolves.toBe('new-passcode')
  })

  it('has a skip link as the first tab stop, to the page content', async () => {
    const page = await signIn('admin')
    await page.keyboard.press('Tab')
    await expect(page.evaluate(() => document.activeElement?.textContent)).resolves.toBe('Skip to content')
    await page.keyboard.press('Enter')
    await expect(page.evaluate(() => document.activeElement?.id)).resolves.toBe('main')
  })

  it('shows an infinite user passcode with its real end (10 years), a revoked one without its old hint, validity or empty lines at 375 px, and an expired one without "reset"', async () => {
    const granted = await dashboard.host.auth.userPasscodes.grant(admin, 'acc_1', 'u_member', { validity: { type: 'infinite' } })
    await dashboard.host.auth.userPasscodes.grant(admin, 'acc_1', 'u_amy', { validity: { type: 'finite', days: 1 } })
    const page = await signIn('admin', '/settings/users')
    const mo = page.getByRole('row').filter({ hasText: 'Mo Member' })
    // Infinite is 10 calendar years (SPEC §3): the row says when, not "Never".
    const ends = mo.locator('td[data-label="Expires"] time')
    await ends.waitFor()
    await expect(ends.getAttribute('datetime')).resolves.toBe(granted.expiresAt.toISOString())
    await expect(ends.textContent()).resolves.toContain('(in 10 years)')
    await expect(mo.getByText('Never', { exact: true }).count()).resolves.toBe(0)
    await dashboard.host.auth.userPasscodes.revoke(admin, 'acc_1', 'u_member')
    await page.reload()
    await mo.getByText('Revoked').waitFor()
    await expect(mo.locator('code').count()).resolves.toBe(0)
    await expect(mo.textContent()).resolves.not.toContain('Infinite')
    // At phone width the revoked card has no line with a label and nothing after it.
    const phone = await signIn('admin', '/settings/users', { viewport: { width: 375, height: 740 } })
    const card = phone.getByRole('row').filter({ hasText: 'Mo Member' })
    await card.getByText('Revoked').waitFor()
    const lines = await card
      .locator('td')
      .evaluateAll((cells) =>
        cells
          .filter((cell) => cell.getClientRects().length > 0)
          .map((cell) => [cell.getAttribute('data-label'), (cell.textContent ?? '').trim() !== ''] as const),
      )
    expect(lines).toEqual([
      ['User', true],
      ['Passcode', true],
      ['Actions', true],
    ])

    dashboard.host.clock.advance(2 * 86_400_000)
    const amy = await signIn('amy', '/settings/me')
    await amy.getByText('Expired', { exact: true }).waitFor()
    await expect(amy.locator('#content').textContent()).resolves.not.toContain('reset')
    await dashboard.host.auth.userPasscodes.revoke(admin, 'acc_1', 'u_amy')
  })

  it('links "Your session has ended" to sign in again', async () => {
    const page = await signIn('admin')
    await page.getByRole('button', { name: '+ Passcode' }).waitFor()
    await page.context().clearCookies()
    await page.getByRole('button', { name: '+ Passcode' }).click()
    const form = page.getByRole('form', { name: 'New passcode' })
    await form.getByRole('textbox', { name: 'Passcode Name' }).fill('After logout')
    await form.getByRole('button', { name: 'Create & View' }).click()
    await page.getByRole('alert').filter({ hasText: 'Your session has ended.' }).waitFor()
    await expect(page.getByRole('link', { name: 'Sign in again' }).count()).resolves.toBe(1)
  })

  it('keeps status badges compact and hints whole at 375 px', async () => {
    await dashboard.host.auth.passcodes.create(admin, 'acc_1', { name: 'Phone soon', expiry: 10 })
    const page = await signIn('admin', '/settings/', { viewport: { width: 375, height: 740 } })
    const badge = page.getByRole('row').filter({ hasText: 'Phone soon' }).locator('.badge')
    await badge.waitFor()
    const box = await badge.boundingBox()
    expect(box!.height).toBeLessThan(30)
    const wrapped = await page.evaluate(
      () =>
        [...document.querySelectorAll('td code')].filter((code) => code.getClientRects().length > 1 || code.getBoundingClientRect().height > 30)
          .length,
    )
    expect(wrapped).toBe(0)
    expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0)
  })
})
