import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { browserAvailability } from '../helpers/browser'
import { chooseAction, PEOPLE, useDashboardBrowser } from '../dashboard/browser-host'

/**
 * Disable without delete (SPEC §5.38) and descriptions (§5.39) in the dashboard, in
 * Chromium, against the real service and management API: Disable/Enable ask first, a
 * disabled passcode is refused by /v1/connect and works again once enabled; a description
 * is set at create and edit, shown in the row and found by search; "Disabled" filters.
 */

const availability = browserAvailability()
const admin = PEOPLE.admin.actor

describe.skipIf(availability.skip)(availability.title('disable, enable and descriptions in the dashboard'), { timeout: 90_000 }, () => {
  const dashboard = useDashboardBrowser()
  const { signIn } = dashboard

  const connect = (passcode: string, partner = 'acme') =>
    fetch(`${dashboard.host.origin}/v1/connect?partner=${partner}`, { headers: { 'X-Service-Account-Id': 'acc_1', 'X-Service-Passcode': passcode } })
  const row = (page: Page, name: string) => page.getByRole('row').filter({ has: page.getByRole('cell', { name, exact: true }) })

  it('disables a passcode after asking: /v1/connect refuses it, the row says Disabled; Enable makes it work again at once', async () => {
    const created = await dashboard.host.auth.passcodes.create(admin, 'acc_1', { name: 'Investigate me', expiry: 90 })
    expect((await connect(created.value)).status).toBe(200)
    const page = await signIn('admin')
    await chooseAction(page, 'Investigate me', 'Disable')
    // It asks first, in the page's own dialog; nothing changes until confirmed.
    const asking = page.getByRole('dialog', { name: 'Disable the passcode “Investigate me”?' })
    await asking.waitFor()
    expect((await connect(created.value)).status).toBe(200)
    await asking.getByRole('button', { name: 'Disable “Investigate me”' }).click()
    await page.getByRole('status').filter({ hasText: 'Passcode disabled.' }).waitFor()
    const disabled = row(page, 'Investigate me').getByText('Disabled', { exact: true })
    await disabled.waitFor()
    // Styled like the other status badges (a coloured pill), not bare text.
    const look = (badge: Element) => {
      const style = getComputedStyle(badge)
      return { filled: style.backgroundColor !== 'rgba(0, 0, 0, 0)', radius: style.borderRadius, padding: style.padding }
    }
    const active = await page.evaluate(() => {
      const badge = document.createElement('span')
      badge.className = 'badge active'
      document.body.append(badge)
      const style = getComputedStyle(badge)
      const seen = { filled: style.backgroundColor !== 'rgba(0, 0, 0, 0)', radius: style.borderRadius, padding: style.padding }
      badge.remove()
      return seen
    })
    await expect(disabled.evaluate(look)).resolves.toEqual(active)
    expect(active.filled).toBe(true)
    const refused = await connect(created.value)
    expect(refused.status).toBe(400)
    expect(await refused.json()).toEqual({ status: 'fail', error: 'Invalid Credentials', code: 400 })

    await page.getByRole('combobox', { name: 'Status' }).selectOption({ label: 'Disabled' })
    await expect.poll(() => page.locator('tbody td.name').allTextContents()).toEqual(['Investigate me'])

    await chooseAction(page, 'Investigate me', 'Enable')
    await page.getByRole('dialog').getByRole('button', { name: 'Enable “Investigate me”' }).click()
    await page.getByRole('status').filter({ hasText: 'Passcode enabled.' }).waitFor()
    expect((await connect(created.value)).status).toBe(200)
  })

  it('sets a description at create and edit, shows it in the row, finds the passcode by it, and names the field when it is refused', async () => {
    const page = await signIn('admin')
    await page.getByRole('button', { name: '+ Passcode' }).click()
    const form = page.getByRole('form', { name: 'New passcode' })
    await form.getByRole('textbox', { name: 'Passcode Name' }).fill('Described')
    await form.getByRole('textbox', { name: 'Description (optional)' }).fill('Nightly billing export\nOwner: finance')
    await form.getByRole('button', { name: 'Create & View' }).click()
    await page.getByRole('button', { name: 'Done' }).click()
    const described = page.getByRole('row').filter({ hasText: 'Nightly billing export' })
    await described.waitFor()

    await page.getByRole('searchbox', { name: 'Search' }).fill('billing')
    await expect.poll(() => page.locator('tbody tr').count()).toBe(1)
    await page.getByRole('searchbox', { name: 'Search' }).fill('')

    await page.getByRole('button', { name: 'Edit Described' }).click()
    const edit = page.getByRole('form', { name: 'Edit “Described”' })
    const description = edit.getByRole('textbox', { name: 'Description (optional)' })
    await expect(description.inputValue()).resolves.toBe('Nightly billing export\nOwner: finance')
    await description.fill('bad\u0007bell')
    await edit.getByRole('button', { name: 'Save' }).click()
    await edit.locator('.field-error').waitFor()
    await expect(edit.locator('.field-error').textContent()).resolves.toMatch(/^Description \(optional\): /)
    await description.fill('Weekly billing export')
    await edit.getByRole('button', { name: 'Save' }).click()
    await page.getByRole('row').filter({ hasText: 'Weekly billing export' }).waitFor()
    const stored = (await dashboard.host.auth.passcodes.list(admin, 'acc_1')).find((passcode) => passcode.name === 'Described') as
      { description?: string } | undefined
    expect(stored?.description).toBe('Weekly billing export')
  })
})
