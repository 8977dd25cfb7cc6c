import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { browserAvailability } from '../helpers/browser'
import { chooseAction, PEOPLE, useDashboardBrowser } from './browser-host'

/**
 * The dashboard tells the truth (SPEC §5.43, issue 34 M1–M8 and its minors), in Chromium:
 * what a row shows is what a request with the passcode would meet. The browser's clock
 * is set to the service's injected clock, so relative times are relative to the same now.
 */

const availability = browserAvailability()
const admin = PEOPLE.admin.actor

describe.skipIf(availability.skip)(availability.title('SPEC 5.43 dashboard truth in Chromium'), { timeout: 90_000 }, () => {
  const dashboard = useDashboardBrowser()
  const { signIn } = dashboard

  const connect = (passcode: string, partner = 'acme') =>
    fetch(`${dashboard.host.origin}/v1/connect?partner=${partner}`, { headers: { 'X-Service-Account-Id': 'acc_1', 'X-Service-Passcode': passcode } })
  const row = (page: Page, name: string) => page.getByRole('row').filter({ has: page.getByRole('cell', { name, exact: true }) })
  const userRow = (page: Page, text: string) => page.getByRole('row').filter({ hasText: text })

  it("M1: a user passcode the account does not accept says so in its row and on the member's page, with a link to the setting", async () => {
    await dashboard.host.auth.accounts.setAcceptedPasscodes(admin, 'acc_1', 'account')
    await dashboard.host.auth.userPasscodes.grant(admin, 'acc_1', 'u_amy', { validity: { type: 'finite', days: 90 } })
    const adminPage = await signIn('admin', '/settings/users')
    const amyRow = userRow(adminPage, 'Amy Example')
    await amyRow.getByText('Not accepted').waitFor()
    await expect(amyRow.getByText('Active').count()).resolves.toBe(0)
    await expect(amyRow.textContent()).resolves.toContain('This account accepts only account passcodes')
    await expect(amyRow.getByRole('link', { name: 'Change which passcodes the API accepts' }).getAttribute('href')).resolves.toBe(
      '/settings/users#accepted-passcodes',
    )

    // A member cannot change the setting: the hint says who can, with no link to a setting they cannot change.
    const amy = await signIn('amy', '/settings/me')
    await amy.getByText('Not accepted').waitFor()
    await expect(amy.locator('#content').textContent()).resolves.toContain('This account accepts only account passcodes')
    await expect(amy.locator('#content').textContent()).resolves.toContain('An admin of this account can change which passcodes the API accepts.')
    await expect(amy.getByRole('link', { name: 'Change which passcodes the API accepts' }).count()).resolves.toBe(0)
    const member = await signIn('member', '/settings/users')
    await userRow(member, 'Amy Example').getByText('Not accepted').waitFor()
    await expect(member.getByRole('link', { name: 'Change which passcodes the API accepts' }).count()).resolves.toBe(0)
    // "Show my passcode" goes while the value is shown, and comes back, focused, after Done.
    await amy.getByRole('button', { name: 'Show my passcode' }).click()
    const value = await amy.getByRole('textbox', { name: 'Passcode value' }).inputValue()
    await expect(amy.getByRole('button', { name: 'Show my passcode' }).count()).resolves.toBe(0)
    expect((await connect(value)).status).toBe(400)
    await amy.getByRole('button', { name: 'Done' }).click()
    await expect(amy.evaluate(() => document.activeElement?.textContent)).resolves.toBe('Show my passcode')

    // Accepted again: the row says Active, and My passcode says the account accepts user passcodes.
    await dashboard.host.auth.accounts.setAcceptedPasscodes(admin, 'acc_1', 'both')
    await amy.reload()
    await amy.getByText('Active', { exact: true }).waitFor()
    await expect(amy.locator('#content').textContent()).resolves.toContain('This account accepts account and user passcodes.')
    await dashboard.host.auth.userPasscodes.revoke(admin, 'acc_1', 'u_amy')
  })

  it('M2: saving "User passcodes only" says first how many account passcodes stop working; Passcodes then says "Not accepted"', async () => {
    await dashboard.host.auth.passcodes.create(admin, 'acc_1', { name: 'M2 sync', expiry: 90 })
    const live = (await dashboard.host.auth.passcodes.list(admin, 'acc_1')).filter(
      (passcode) => passcode.status === 'active' || passcode.status === 'expiring_soon',
    ).length
    const page = await signIn('admin', '/settings/users')
    await page.getByRole('combobox', { name: 'The API accepts' }).selectOption('user')
    await page.getByRole('button', { name: 'Save', exact: true }).click()
    const dialog = page.getByRole('dialog', { name: 'Accept user passcodes only?' })
    const asked = [await dialog.textContent()]
    await dialog.getByRole('button', { name: 'Change to user passcodes only' }).click()
    await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor()
    await expect(page.getByRole('dialog').count()).resolves.toBe(0)
    expect(asked).toHaveLength(1)
    expect(asked[0]).toContain(`${live} account passcode${live === 1 ? '' : 's'} stop${live === 1 ? 's' : ''} working`)
    await expect(page.getByRole('status').textContent()).resolves.toContain(
      live === 1 ? '1 account passcode no longer works' : `${live} account passcodes no longer work`,
    )

    await page.getByRole('link', { name: 'Passcodes', exact: true }).click()
    const m2 = row(page, 'M2 sync')
    await m2.getByText('Not accepted').waitFor()
    await expect(m2.getByText('Active', { exact: true }).count()).resolves.toBe(0)
    await expect(m2.textContent()).resolves.toContain('This account accepts only user passcodes')
    await expect(m2.getByRole('link', { name: 'Change which passcodes the API accepts' }).count()).resolves.toBe(1)
  })

  it('M3: after a Forever passcode, the next + Passcode form is back at its defaults, and 7 days means 7 days', async () => {
    const page = await signIn('admin')
    await page.getByRole('button', { name: '+ Passcode' }).click()
    const form = page.getByRole('form', { name: 'New passcode' })
    await form.getByRole('textbox', { name: 'Passcode Name' }).fill('M3 forever')
    await form.getByRole('radio', { name: 'Forever' }).check()
    await form.getByRole('button', { name: 'Create & View' }).click()
    await page.getByRole('button', { name: 'Done' }).click()
    await page.getByRole('button', { name: '+ Passcode' }).click()
    await expect(form.getByRole('radio', { name: 'Days' }).isChecked()).resolves.toBe(true)
    const days = form.getByRole('spinbutton', { name: 'Number of days' })
    await expect(days.isEnabled()).resolves.toBe(true)
    await form.getByRole('textbox', { name: 'Passcode Name' }).fill('M3 week')
    await days.fill('7')
    await form.getByRole('button', { name: 'Create & View' }).click()
    await page.getByRole('region', { name: 'Passcode “M3 week” created' }).waitFor()
    const created = (await dashboard.host.auth.passcodes.list(admin, 'acc_1')).find((passcode) => passcode.name === 'M3 week')
    expect(created?.expiry).toBe(7)
  })

  it('M4: after an Infinite grant, the next grant form is back at Finite with its days enabled', async () => {
    const page = await signIn('admin', '/settings/users')
    const form = page.getByRole('form', { name: 'Grant a user passcode' })
    await form.getByRole('textbox', { name: 'User ID' }).fill('u_member')
    await form.getByRole('radio', { name: 'Infinite' }).check()
    await form.getByRole('button', { name: 'Grant Passcode' }).click()
    await page.getByRole('status').filter({ hasText: 'Passcode granted to u_member.' }).waitFor()
    await expect(form.getByRole('radio', { name: 'Finite', exact: true }).isChecked()).resolves.toBe(true)
    await expect(form.getByRole('spinbutton', { name: 'Number of days' }).isEnabled()).resolves.toBe(true)
    await dashboard.host.auth.userPasscodes.revoke(admin, 'acc_1', 'u_member')
  })

  it('M5–M7: the overlap end is on the row; rotate asks first, refuses an empty overlap and warns that rotating again ends the previous value', async () => {
    const created = await dashboard.host.auth.passcodes.create(admin, 'acc_1', { name: 'M5 rotating', expiry: 90 })
    const rotated = await dashboard.host.auth.passcodes.rotate(admin, 'acc_1', created.passcode.id, { overlapMinutes: 60 })
    const page = await signIn('admin')
    const m5 = row(page, 'M5 rotating')
    const overlap = m5.locator(`time[datetime="${rotated.passcode.previousValueEndsAt!.toISOString()}"]`)
    await overlap.waitFor()
    // The local time first, then how far away: "works until Jan 1, 2026, 1:00 AM (in 1 hour)", never "until in 1 hour".
    await expect(m5.locator('.overlap').textContent()).resolves.toMatch(
      /^Previous value works until [A-Z][a-z]{2} \d{1,2}, \d{4}, \d{1,2}:\d{2} [AP]M \(in 1 hour\)$/,
    )
    await expect(overlap.getAttribute('title')).resolves.toMatch(/UTC$/)

    const posts: string[] = []
    page.on('request', (request) => {
      if (request.method() === 'POST' && request.url().endsWith('/rotate')) posts.push(request.url())
    })
    await chooseAction(page, 'M5 rotating', 'Rotate')
    const form = page.getByRole('form', { name: 'Rotate “M5 rotating”' })
    await expect(form.textContent()).resolves.toContain('Rotating again stops the previous value at once')
    const minutes = form.getByRole('spinbutton', { name: 'Old value keeps working for (minutes)' })
    await minutes.fill('')
    await form.getByRole('button', { name: 'Rotate & View' }).click()
    await expect.poll(async () => minutes.getAttribute('aria-invalid')).toBe('true')
    await expect(form.getByRole('alert').textContent()).resolves.toContain('Old value keeps working for (minutes)')
    expect(posts).toEqual([])

    await minutes.fill('0')
    await form.getByRole('button', { name: 'Rotate & View' }).click()
    const dialog = page.getByRole('dialog', { name: 'Rotate “M5 rotating”?' })
    const asked = [await dialog.textContent()]
    await dialog.getByRole('button', { name: 'Cancel' }).click()
    expect(asked).toHaveLength(1)
    expect(asked[0]).toContain('Rotate “M5 rotating”?')
    expect(asked[0]).toContain('stops working at once')
    expect(posts).toEqual([])

    await form.getByRole('button', { name: 'Rotate & View' }).click()
    await page.getByRole('dialog', { name: 'Rotate “M5 rotating”?' }).getByRole('button', { name: 'Rotate now' }).click()
    await page.getByRole('region', { name: 'New value for “M5 rotating”' }).waitFor()
    expect(posts).toHaveLength(1)
    expect((await connect(rotated.value)).status).toBe(400)
  })

  it('asks in an in-page dialog: labelled by its question, focus on Cancel, Escape cancels and gives the focus back; the button says what it does', async () => {
    await dashboard.host.auth.passcodes.create(admin, 'acc_1', { name: 'Asked? Yes', expiry: 90 })
    const page = await signIn('admin')
    const deletes: string[] = []
    page.on('request', (request) => {
      if (request.method() === 'DELETE') deletes.push(request.url())
    })
    const trigger = page.getByRole('button', { name: 'More actions for Asked? Yes' })
    const ask = () => chooseAction(page, 'Asked? Yes', 'Delete')
    const focused = () => page.evaluate(() => document.activeElement?.textContent)
    await ask()
    const dialog = page.getByRole('dialog', { name: 'Delete the passcode “Asked? Yes”?' })
    await dialog.waitFor()
    await expect(dialog.getAttribute('aria-describedby').then((id) => page.locator(`#${id}`).textContent())).resolves.toBe(
      'Calls with it stop working at once.',
    )
    await expect(page.evaluate(() => document.activeElement?.textContent)).resolves.toBe('Cancel')
    await expect(dialog.getByRole('button', { name: 'Delete “Asked? Yes”' }).count()).resolves.toBe(1)
    // Modal: the page behind it is inert.
    await expect(page.evaluate(() => document.querySelector('dialog')?.matches(':modal'))).resolves.toBe(true)
    await page.keyboard.press('Escape')
    await expect(page.getByRole('dialog').count()).resolves.toBe(0)
    // Back on the menu's button, the menu closed.
    await expect.poll(focused).toBe('More actions for Asked? Yes')
    await expect(trigger.getAttribute('aria-expanded')).resolves.toBe('false')
    expect(deletes).toEqual([])

    await ask()
    await dialog.getByRole('button', { name: 'Cancel' }).click()
    await expect.poll(focused).toBe('More actions for Asked? Yes')
    expect(deletes).toEqual([])
    await ask()
    await dialog.getByRole('button', { name: 'Delete “Asked? Yes”' }).click()
    await page.getByRole('status').filter({ hasText: 'Passcode deleted.' }).waitFor()
    expect(deletes).toHaveLength(1)
  })

  it('shows times relative and local, with the UTC time on hover and in <time datetime>', async () => {
    const created = await dashboard.host.auth.passcodes.create(admin, 'acc_1', { name: 'Times', expiry: 90 })
    const page = await signIn('admin', '/settings/', { timezoneId: 'America/Los_Angeles' })
    const time = row(page, 'Times').getByRole('cell').nth(3).locator('time')
    await time.waitFor()
    const iso = created.passcode.expiresAt!.toISOString()
    await expect(time.getAttribute('datetime')).resolves.toBe(iso)
    await expect(time.getAttribute('title')).resolves.toBe(`${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`)
    const local = new Intl.DateTimeFormat('en-US', { dateStyle: 'medium', timeStyle: 'short', timeZone: 'America/Los_Angeles' }).format(
      created.passcode.expiresAt!,
    )
    expect(await time.textContent()).toBe(`${local} (in 3 months)`)
  })

  it('shows an error once, next to its field, named by its label; a form error in the form; a new message replaces the old one', async () => {
    await dashboard.host.auth.passcodes.create(admin, 'acc_1', { name: 'Taken', expiry: 90 })
    const page = await signIn('admin')
    await page.getByRole('button', { name: '+ Passcode' }).click()
    const form = page.getByRole('form', { name: 'New passcode' })
    await form.getByRole('textbox', { name: 'Passcode Name' }).fill('Too long')
    await form.getByRole('spinbutton', { name: 'Number of days' }).fill('5000')
    await form.getByRole('button', { name: 'Create & View' }).click()
    const fieldMessage = form.locator('.field-error')
    await fieldMessage.waitFor()
    await expect(fieldMessage.textContent()).resolves.toMatch(/^Number of days: must be at most 3650 days/)
    await expect(page.getByText(/must be at most 3650 days/).count()).resolves.toBe(1)
    await expect(page.locator('#notice').textContent()).resolves.toBe('')

    await form.getByRole('spinbutton', { name: 'Number of days' }).fill('30')
    await form.getByRole('textbox', { name: 'Passcode Name' }).fill('Taken')
    await form.getByRole('button', { name: 'Create & View' }).click()
    // The duplicate name is the name field's error, in the open form, not at the top of the page.
    await form.getByText(/already/).waitFor()
    await expect(page.getByText(/already/).count()).resolves.toBe(1)
    await expect(form.locator('.field-error').count()).resolves.toBe(1)

    // A success replaces an earlier error; an error replaces an earlier success.
    const users = await signIn('admin', '/settings/users')
    const grant = users.getByRole('form', { name: 'Grant a user passcode' })
    await grant.getByRole('textbox', { name: 'User ID' }).fill('u_amy')
    await grant.getByRole('button', { name: 'Grant Passcode' }).click()
    await users.getByRole('status').filter({ hasText: 'Passcode granted to u_amy.' }).waitFor()
    await grant.getByRole('textbox', { name: 'User ID' }).fill('u_amy')
    await grant.getByRole('button', { name: 'Grant Passcode' }).click()
    await grant.getByText(/already/).waitFor()
    await expect(users.getByText('Passcode granted to u_amy.').count()).resolves.toBe(0)
    await dashboard.host.auth.userPasscodes.revoke(admin, 'acc_1', 'u_amy')
  })

  it('says a passcode whose partners were all removed from the whitelist works for no partner on /v1/connect, and a filter finds it', async () => {
    const { host } = dashboard
    const created = await host.auth.passcodes.create(admin, 'acc_1', { name: 'Globex bound', expiry: 90, partners: ['globex'] })
    await host.auth.passcodes.create(admin, 'acc_1', { name: 'Unbound', expiry: 90 })
    host.partners.delete('globex')
    try {
      expect((await connect(created.value, 'globex')).status).toBe(403)
      expect((await connect(created.value, 'acme')).status).toBe(403)
      const page = await signIn('admin')
      const bound = row(page, 'Globex bound')
      await bound.getByText('No partner', { exact: true }).waitFor()
      await expect(bound.locator('td[data-label="Partners"]').textContent()).resolves.toContain(
        'Bound to globex, no longer whitelisted: /v1/connect refuses it for every partner.',
      )
      await page.getByRole('combobox', { name: 'Status' }).selectOption({ label: 'Works for no partner on /v1/connect' })
      await expect.poll(() => page.locator('tbody td.name').allTextContents()).toEqual(['Globex bound'])
      expect(new URL(await page.evaluate(() => location.href)).searchParams.get('status')).toBe('no_partner')
      // Editing something else keeps the binding: the stale partner stays checked in the form.
      await page.getByRole('button', { name: 'Edit Globex bound' }).click()
      const form = page.getByRole('form', { name: 'Edit “Globex bound”' })
      await expect(form.getByRole('checkbox', { name: 'globex (no longer whitelisted)' }).isChecked()).resolves.toBe(true)
    } finally {
      host.partners.add('globex')
    }
    expect((await connect(created.value, 'globex')).status).toBe(200)
  })

  it('M8: the count shows as "N of 100"; at the cap + Passcode is off and says why', async () => {
    const page = await signIn('admin')
    const count = (await dashboard.host.auth.passcodes.list(admin, 'acc_1')).length
    await page.getByText(`${count} of 100`, { exact: true }).waitFor()
    for (let i = count; i < 100; i++)
      await dashboard.host.auth.passcodes.create(admin, 'acc_1', { name: `Bulk ${String(i).padStart(3, '0')}`, expiry: 90 })
    await page.reload()
    await page.getByText('100 of 100', { exact: true }).waitFor()
    const button = page.getByRole('button', { name: '+ Passcode' })
    await expect(button.getAttribute('aria-disabled')).resolves.toBe('true')
    const described = await button.getAttribute('aria-describedby')
    await expect(page.locator(`#${described}`).textContent()).resolves.toContain('100 passcodes, the most it may have')
    await button.click({ force: true })
    await expect(page.getByRole('form', { name: 'New passcode' }).isVisible()).resolves.toBe(false)
  })
})
