import { describe, expect, it } from 'vitest'
import { browserAvailability } from '../helpers/browser'
import { PEOPLE, useDashboardBrowser } from './browser-host'

/**
 * The account policy in the dashboard (SPEC §5.52), in Chromium: Settings > Users shows
 * the policy to everyone and lets admins set it or go back to the host's default; a
 * passcode made before a policy that breaks it is marked "Breaks policy" in the list.
 */

const availability = browserAvailability()
const admin = PEOPLE.admin.actor

describe.skipIf(availability.skip)(availability.title('the passcode policy in Chromium'), { timeout: 120_000 }, () => {
  const dashboard = useDashboardBrowser(async ({ auth }) => {
    await auth.passcodes.create(admin, 'acc_1', { name: 'Forever key', expiry: 'forever' })
  })
  const { signIn } = dashboard

  it('lets an admin set the policy; the passcode made before it is marked and keeps its row; the default comes back', async () => {
    const page = await signIn('admin', '/settings/users')
    await page.getByText("The host's default policy: no rule.").waitFor()
    await page.getByLabel('Longest lifetime, in days (empty: no maximum)').fill('90')
    await page.getByLabel('Every passcode needs an expiry').check()
    await page.getByRole('button', { name: 'Save policy' }).click()
    await page.getByText("This account's policy: passcodes live at most 90 days; every account passcode needs an expiry.").waitFor()

    const list = await signIn('admin', '/settings/')
    const row = list.locator('table tbody tr', { hasText: 'Forever key' })
    await expect.poll(() => row.innerText()).toContain('Breaks policy')
    expect(await row.innerText()).toContain('It never expires, lives longer than the maximum; it keeps working.')

    const again = await signIn('admin', '/settings/users')
    await again.getByLabel('Longest lifetime, in days (empty: no maximum)').fill('0')
    await again.getByRole('button', { name: 'Save policy' }).click()
    await again.getByText('must be at least 1 day').waitFor()
    await again.getByRole('button', { name: "Use the host's default" }).click()
    await again.getByText("The host's default policy: no rule.").waitFor()
    expect(await dashboard.host.auth.accounts.getPolicy('acc_1')).toMatchObject({ source: 'default' })
  })

  it('shows a member the policy without a form', async () => {
    await dashboard.host.auth.accounts.setPolicy(admin, 'acc_1', { requireDescription: true })
    const page = await signIn('member', '/settings/users')
    await page.getByText("This account's policy: every account passcode needs a description.").waitFor()
    expect(await page.getByRole('button', { name: 'Save policy' }).count()).toBe(0)
    await dashboard.host.auth.accounts.setPolicy(admin, 'acc_1', null)
  })
})
