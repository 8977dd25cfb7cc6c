import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { browserAvailability } from '../helpers/browser'
import { PEOPLE, useDashboardBrowser, type BrowserHost } from './browser-host'

/**
 * Focus that stays where the work is (issue 43), in Chromium: after confirming Delete,
 * Save, Disable, Enable, Rotate, Reset, Revoke or Grant the focus is on the changed row
 * (or the one that took its place, or the status line), never on <body>, which would
 * send a keyboard user back to the top of 100 rows; a row's menu follows the menu
 * button pattern by keyboard.
 */

const availability = browserAvailability()
const admin = PEOPLE.admin.actor

async function seed(host: BrowserHost): Promise<void> {
  for (const name of ['Alpha', 'Bravo', 'Charlie', 'Delta']) await host.auth.passcodes.create(admin, 'acc_1', { name, expiry: 90 })
  await host.auth.userPasscodes.grant(admin, 'acc_1', 'u_amy', { validity: { type: 'finite', days: 90 } })
}

/** Where the focus is: the row it is in (by its first cell's text) and the focused element's text, or "body". */
const focused = (page: Page) =>
  page.evaluate(() => {
    const active = document.activeElement
    if (active === null || active === document.body) return 'body'
    const row = active.closest('tr[data-key]')
    const where = row === null ? `#${active.id}` : (document.createTreeWalker(row, NodeFilter.SHOW_TEXT).nextNode()?.textContent ?? '?')
    return `${where}: ${active.textContent ?? ''}`
  })

describe.skipIf(availability.skip)(availability.title('focus after a change in Chromium'), { timeout: 120_000 }, () => {
  const dashboard = useDashboardBrowser(seed)
  const { signIn } = dashboard

  /** Opens the row's menu by keyboard and chooses `item` with the arrows and Enter. */
  async function byKeyboard(page: Page, name: string, item: string): Promise<void> {
    await page.getByRole('button', { name: `More actions for ${name}` }).focus()
    await page.keyboard.press('Enter')
    const menu = page.getByRole('menu', { name: `More actions for ${name}` })
    await menu.waitFor()
    for (let i = 0; i < 3 && (await focused(page)) !== `${name}: ${item}`; i++) await page.keyboard.press('ArrowDown')
    expect(await focused(page)).toBe(`${name}: ${item}`)
    await page.keyboard.press('Enter')
  }

  it('follows the menu button pattern: Enter, Space and the arrows open it, Home, End and a letter move, Escape and Tab close it', async () => {
    const page = await signIn('admin')
    const button = page.getByRole('button', { name: 'More actions for Bravo' })
    await button.focus()
    await expect(button.getAttribute('aria-haspopup')).resolves.toBe('menu')
    await page.keyboard.press('ArrowDown')
    await expect(button.getAttribute('aria-expanded')).resolves.toBe('true')
    expect(await focused(page)).toBe('Bravo: Rotate')
    await page.keyboard.press('ArrowDown')
    expect(await focused(page)).toBe('Bravo: Disable')
    await page.keyboard.press('End')
    expect(await focused(page)).toBe('Bravo: Delete')
    await page.keyboard.press('ArrowDown')
    expect(await focused(page)).toBe('Bravo: Rotate')
    await page.keyboard.press('d')
    expect(await focused(page)).toBe('Bravo: Disable')
    await page.keyboard.press('Home')
    expect(await focused(page)).toBe('Bravo: Rotate')
    await page.keyboard.press('Escape')
    await expect(button.getAttribute('aria-expanded')).resolves.toBe('false')
    expect(await focused(page)).toBe('Bravo: More actions for Bravo')
    await page.keyboard.press('ArrowUp')
    expect(await focused(page)).toBe('Bravo: Delete')
    await page.keyboard.press('Tab')
    await expect(page.getByRole('menu').count()).resolves.toBe(0)
    await page.keyboard.press('Shift+Tab')
    await page.keyboard.press(' ')
    expect(await focused(page)).toBe('Bravo: Rotate')
    // A click elsewhere closes it.
    await page.locator('h1').click()
    await expect(button.getAttribute('aria-expanded')).resolves.toBe('false')
  })

  it('puts the focus back on the row after Disable, Enable and Save, and on the Edit button after Escape', async () => {
    const page = await signIn('admin')
    await byKeyboard(page, 'Bravo', 'Disable')
    await page.getByRole('dialog').getByRole('button', { name: 'Disable “Bravo”' }).click()
    await page.getByRole('status').filter({ hasText: 'Passcode disabled.' }).waitFor()
    await expect.poll(() => focused(page)).toBe('Bravo: More actions for Bravo')

    await byKeyboard(page, 'Bravo', 'Enable')
    await page.getByRole('dialog').getByRole('button', { name: 'Enable “Bravo”' }).press('Enter')
    await page.getByRole('status').filter({ hasText: 'Passcode enabled.' }).waitFor()
    await expect.poll(() => focused(page)).toBe('Bravo: More actions for Bravo')

    await page.getByRole('button', { name: 'Edit Charlie' }).press('Enter')
    const form = page.getByRole('form', { name: 'Edit “Charlie”' })
    // The form keeps the passcode's name in sight, above its fields.
    await expect(form.getByRole('heading', { name: 'Edit “Charlie”' }).isVisible()).resolves.toBe(true)
    await page.keyboard.press('Escape')
    await expect.poll(() => focused(page)).toBe('Charlie: Edit Charlie')
    await page.keyboard.press('Enter')
    await form.getByRole('textbox', { name: 'Passcode Name' }).fill('Charlie 2')
    await form.getByRole('textbox', { name: 'Passcode Name' }).press('Enter')
    await page.getByRole('status').filter({ hasText: 'Passcode saved.' }).waitFor()
    await expect.poll(() => focused(page)).toBe('Charlie 2: Edit Charlie 2')
  })

  it('after Rotate gives the focus to the new value, and Done gives it to the rotated row', async () => {
    const page = await signIn('admin')
    await byKeyboard(page, 'Delta', 'Rotate')
    const form = page.getByRole('form', { name: 'Rotate “Delta”' })
    await form.getByRole('heading', { name: 'Rotate “Delta”' }).waitFor()
    await form.getByRole('spinbutton').fill('0')
    await form.getByRole('button', { name: 'Rotate & View' }).click()
    await page.getByRole('dialog').getByRole('button', { name: 'Rotate now' }).click()
    await page.getByRole('region', { name: 'New value for “Delta”' }).waitFor()
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe('Passcode value')
    await page.getByRole('button', { name: 'Done' }).click()
    await expect.poll(() => focused(page)).toBe('Delta: More actions for Delta')
  })

  it('after Delete puts the focus on the row that took its place, the one before at the end, and the status line with none left', async () => {
    const page = await signIn('admin')
    const remove = async (name: string) => {
      await byKeyboard(page, name, 'Delete')
      await page
        .getByRole('dialog')
        .getByRole('button', { name: `Delete “${name}”` })
        .click()
      await expect.poll(() => page.getByRole('row').filter({ hasText: name }).count()).toBe(0)
    }
    await remove('Alpha')
    await expect.poll(() => focused(page)).toBe('Bravo: Edit Bravo')
    await remove('Delta')
    await expect.poll(() => focused(page)).toBe('Charlie 2: Edit Charlie 2')
    await remove('Bravo')
    await remove('Charlie 2')
    await page.getByText('No passcodes yet.').waitFor()
    await expect.poll(() => focused(page)).toBe('#announcer: Passcode deleted.')
  })

  it('on Users puts the focus back on the row after Reset, Revoke and Grant, and on Save after the accepted passcodes change', async () => {
    const page = await signIn('admin', '/settings/users')
    await page.getByRole('button', { name: 'Reset Passcode for Amy Example' }).press('Enter')
    await page.getByRole('dialog').getByRole('button', { name: 'Reset Amy Example’s passcode' }).click()
    await page.getByRole('status').filter({ hasText: 'Passcode reset.' }).waitFor()
    await expect.poll(() => focused(page)).toBe('Amy Example: Reset Passcode for Amy Example')
    await page.getByRole('button', { name: 'Revoke Passcode for Amy Example' }).press('Enter')
    await page.getByRole('dialog').getByRole('button', { name: 'Revoke Amy Example’s passcode' }).click()
    await page.getByRole('status').filter({ hasText: 'Passcode revoked.' }).waitFor()
    await expect.poll(() => focused(page)).toBe('Amy Example: Grant Passcode for Amy Example')
    await page.keyboard.press('Enter')
    const grant = page.getByRole('form', { name: 'Grant a passcode to Amy Example' })
    await grant.getByRole('button', { name: 'Grant Passcode' }).press('Enter')
    await page.getByRole('status').filter({ hasText: 'Passcode granted.' }).waitFor()
    await expect.poll(() => focused(page)).toBe('Amy Example: Reset Passcode for Amy Example')

    await page.getByRole('combobox', { name: 'The API accepts' }).selectOption('account')
    await page.getByRole('button', { name: 'Save', exact: true }).press('Enter')
    await page.getByRole('dialog').getByRole('button', { name: 'Change to account passcodes only' }).click()
    await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor()
    await expect.poll(() => focused(page)).toBe('#: Save')
  })
})
