import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { createPasscodeAuth, PASSCODE_PATTERN } from '../../src/index'
import { browserAvailability } from '../helpers/browser'
import { manualClock } from '../helpers/service'
import { PEOPLE, useDashboardBrowser } from './browser-host'

/**
 * Settings > Activity (SPEC §5.40, issue 35), in Chromium: a few actions, then the page
 * tells them in words, newest first, with times relative and local (UTC on hover); each
 * filter (action, passcode, person, dates) narrows it and is kept in the URL; "Older"
 * pages by cursor; a member neither sees the link nor the page; no passcode value, hash
 * or hint is on it; axe finds nothing at 1280 and 375 px. Screenshots of both widths go
 * to the system's temporary folder (activity-1280.png, activity-375.png) for a person
 * to look at.
 */

const availability = browserAvailability()
const admin = PEOPLE.admin.actor
const member = PEOPLE.member.actor
const HOUR = 3_600_000
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8')

interface Violation {
  readonly id: string
  readonly help: string
  readonly nodes: readonly { readonly target: readonly string[] }[]
}

describe.skipIf(availability.skip)(availability.title('the Activity page in Chromium'), { timeout: 120_000 }, () => {
  const values: string[] = []
  const dashboard = useDashboardBrowser(async ({ auth, clock }) => {
    // 26 older records for paging, on Jan 1st.
    const batch: string[] = []
    for (let i = 1; i <= 26; i++) {
      const created = await auth.passcodes.create(admin, 'acc_1', { name: `Batch ${String(i).padStart(2, '0')}`, expiry: 30 })
      values.push(created.value)
      batch.push(created.passcode.id)
    }
    // Every other kind of action a person takes, still on Jan 1st.
    clock.advance(HOUR / 2)
    await auth.passcodes.update(admin, 'acc_1', batch[0]!, { partners: ['Globex'] })
    await auth.passcodes.update(admin, 'acc_1', batch[1]!, { expiry: 'forever', description: 'Nightly export' })
    await auth.passcodes.delete(admin, 'acc_1', batch[2]!)
    await auth.passcodes.disable(admin, 'acc_1', batch[3]!)
    await auth.passcodes.enable(admin, 'acc_1', batch[3]!)
    await auth.userPasscodes.grant(admin, 'acc_1', 'u_amy', { validity: { type: 'finite', days: 30 } })
    await auth.userPasscodes.reset(admin, 'acc_1', 'u_amy')
    await auth.userPasscodes.revoke(admin, 'acc_1', 'u_amy')
    clock.advance(HOUR / 2)
    const billing = await auth.passcodes.create(admin, 'acc_1', { name: 'Billing', expiry: 90 })
    const reports = await auth.passcodes.create(admin, 'acc_1', { name: 'Reports', expiry: 'forever', partners: ['acme'] })
    values.push(billing.value, reports.value)
    // The newest ones on Jan 3rd, for the date filter.
    clock.advance(2 * 24 * HOUR)
    values.push((await auth.passcodes.rotate(admin, 'acc_1', billing.passcode.id, { overlapMinutes: 60 })).value)
    await auth.passcodes.update(admin, 'acc_1', reports.passcode.id, { name: 'Reports v2' })
    await auth.passcodes.disable(admin, 'acc_1', reports.passcode.id)
    await auth.userPasscodes.grant(admin, 'acc_1', member.userId, { validity: { type: 'infinite' } })
    values.push((await auth.userPasscodes.reveal(member, 'acc_1')).value)
    clock.advance(HOUR)
  })
  const { signIn } = dashboard

  const sentences = (page: Page) => page.locator('tbody td.what').allInnerTexts()
  const open = async (query = '', viewport?: { width: number; height: number }) => {
    const page = await signIn('admin', `/settings/activity${query}`, viewport ? { viewport } : {})
    await page.locator('tbody tr').first().waitFor()
    return page
  }

  it('tells each action in words, newest first, with the time relative, local and in UTC on hover', async () => {
    const page = await open()
    await expect
      .poll(() => sentences(page).then((texts) => texts.slice(0, 6)))
      .toEqual([
        'Mo Member (member) viewed their own user passcode',
        'You (admin) granted a user passcode to Mo Member, with no expiry',
        'You (admin) disabled passcode “Reports v2”: requests with it are refused',
        'You (admin) edited passcode “Reports v2”: name “Reports” → “Reports v2”',
        'You (admin) rotated passcode “Billing” — the old value works until Jan 3, 2026, 2:00 AM (just now)',
        'You (admin) created passcode “Reports”, which never expires',
      ])
    expect((await sentences(page))[6]).toBe('You (admin) created passcode “Billing”, expiring Apr 1, 2026, 1:00 AM (in 3 months)')
    const when = page.locator('tbody td.when time').first()
    expect(await when.getAttribute('datetime')).toBe('2026-01-03T01:00:00.000Z')
    expect(await when.getAttribute('title')).toBe('2026-01-03 01:00 UTC')
    expect(await when.innerText()).toMatch(/^Jan 3, 2026, 1:00 AM\s+\(1 hour ago\)$/)
    const until = page.locator('tbody td.what time').first()
    expect(await until.getAttribute('title')).toBe('2026-01-03 02:00 UTC')
    // Nav: the admin has the link, marked current.
    await page
      .getByRole('navigation', { name: 'Settings' })
      .getByRole('link', { name: 'Activity' })
      .and(page.locator('[aria-current="page"]'))
      .waitFor()
  })

  it('tells every other action a person takes in words too', async () => {
    const told = async (action: string) => sentences(await open(`?action=${action}`))
    expect(await told('passcode.partners_changed')).toEqual([
      'You (admin) changed the partners of passcode “Batch 01”: any whitelisted partner → globex',
    ])
    expect(await told('passcode.updated')).toEqual([
      'You (admin) edited passcode “Reports v2”: name “Reports” → “Reports v2”',
      'You (admin) edited passcode “Batch 02”: expiry 30 days → never expires; a new description',
    ])
    expect(await told('passcode.deleted')).toEqual(['You (admin) deleted passcode “Batch 03”'])
    expect(await told('passcode.enabled')).toEqual(['You (admin) enabled passcode “Batch 04” again'])
    expect(await told('user_passcode.reset')).toEqual(['You (admin) reset the user passcode of Amy Example: the old value stopped at once'])
    expect(await told('user_passcode.revoked')).toEqual(['You (admin) revoked the user passcode of Amy Example'])
    expect((await told('user_passcode.granted')).at(-1)).toBe('You (admin) granted a user passcode to Amy Example, valid 30 days')
    // A deleted passcode is still found by the link in its row.
    const page = await open('?action=passcode.deleted')
    await page.getByRole('link', { name: '“Batch 03”' }).click()
    await page.getByRole('button', { name: 'Clear filters' }).waitFor()
    await page.getByRole('combobox', { name: 'Action' }).selectOption({ label: 'All actions' })
    await expect
      .poll(() => sentences(page))
      .toEqual(['You (admin) deleted passcode “Batch 03”', 'You (admin) created passcode “Batch 03”, expiring Jan 31, 2026, 12:00 AM (in 28 days)'])
    expect(await page.getByRole('combobox', { name: 'Passcode' }).locator('option:checked').innerText()).toMatch(/^ID [0-9a-f-]{36}$/)
  })

  it('filters by action, passcode, person and dates, each kept in the URL and read back from it', async () => {
    const page = await open()
    await page.getByRole('combobox', { name: 'Action' }).selectOption({ label: 'Passcode rotated' })
    await expect.poll(() => sentences(page)).toEqual([expect.stringMatching(/^You \(admin\) rotated passcode “Billing”/)])
    expect(new URL(page.url()).searchParams.get('action')).toBe('passcode.rotated')
    await page.getByRole('button', { name: 'Clear filters' }).click()

    await page.getByRole('combobox', { name: 'Passcode' }).selectOption({ label: '“Reports v2”' })
    await expect
      .poll(() => sentences(page))
      .toEqual([
        'You (admin) disabled passcode “Reports v2”: requests with it are refused',
        'You (admin) edited passcode “Reports v2”: name “Reports” → “Reports v2”',
        'You (admin) created passcode “Reports”, which never expires',
      ])
    const target = new URL(page.url()).searchParams.get('target')
    expect(target).toMatch(/^[0-9a-f-]{36}$/)

    await page.getByRole('combobox', { name: 'Passcode' }).selectOption({ label: 'All passcodes' })
    await page.getByRole('combobox', { name: 'Person' }).selectOption({ label: 'Mo Member (u_member)' })
    await expect.poll(() => sentences(page)).toEqual(['Mo Member (member) viewed their own user passcode'])
    await page.getByRole('combobox', { name: 'Person' }).selectOption({ label: 'Amy Example (u_amy)' })
    await page.getByText('No activity matches these filters.').waitFor()
    await page.getByRole('combobox', { name: 'Person' }).selectOption({ label: 'Everyone' })

    await page.getByLabel('To').fill('2026-01-01')
    await expect
      .poll(() => sentences(page).then((texts) => texts.slice(0, 2)))
      .toEqual([
        'You (admin) created passcode “Reports”, which never expires',
        'You (admin) created passcode “Billing”, expiring Apr 1, 2026, 1:00 AM (in 3 months)',
      ])
    await page.getByLabel('From').fill('2026-01-02')
    await page.getByLabel('To').fill('2026-01-03')
    // Jan 3rd's records only (with whatever setting changes the other cases made that day).
    await expect
      .poll(() => sentences(page).then((texts) => texts.filter((text) => !text.includes('passcodes the API accepts'))))
      .toEqual([
        'Mo Member (member) viewed their own user passcode',
        'You (admin) granted a user passcode to Mo Member, with no expiry',
        'You (admin) disabled passcode “Reports v2”: requests with it are refused',
        'You (admin) edited passcode “Reports v2”: name “Reports” → “Reports v2”',
        'You (admin) rotated passcode “Billing” — the old value works until Jan 3, 2026, 2:00 AM (just now)',
      ])
    expect(Object.fromEntries(new URL(page.url()).searchParams)).toEqual({ from: '2026-01-02', to: '2026-01-03' })

    // A link with filters opens on them, and a name in a row filters by it.
    const linked = await open(`?action=passcode.created&target=${target}`)
    expect(await linked.getByRole('combobox', { name: 'Action' }).inputValue()).toBe('passcode.created')
    await expect.poll(() => sentences(linked)).toEqual(['You (admin) created passcode “Reports”, which never expires'])
    await linked.getByRole('button', { name: 'Clear filters' }).click()
    await linked.getByRole('link', { name: 'Mo Member' }).first().click()
    expect(await linked.getByRole('combobox', { name: 'Person' }).inputValue()).toBe('u_member')
    await expect.poll(() => sentences(linked)).toEqual(['Mo Member (member) viewed their own user passcode'])
  })

  it('pages by cursor with Older, and says how many it shows', async () => {
    const page = await open()
    const all = (await dashboard.host.auth.audit.list(admin, 'acc_1', { limit: 200 })).records.length
    await expect.poll(() => page.locator('tbody tr').count()).toBe(25)
    await page.getByRole('status').filter({ hasText: 'Showing 25 events, newest first' }).waitFor()
    await page.getByRole('button', { name: 'Older' }).click()
    await expect.poll(() => page.locator('tbody tr').count()).toBe(all)
    // The focus moves to the first older record, as a reader continues there.
    expect(await page.evaluate(() => document.activeElement === document.querySelectorAll('tbody tr')[25])).toBe(true)
    await expect.poll(() => page.getByRole('button', { name: 'Older' }).isHidden()).toBe(true)
    expect((await sentences(page)).at(-1)).toBe('You (admin) created passcode “Batch 01”, expiring Jan 31, 2026, 12:00 AM (in 28 days)')
    expect(new Set(await sentences(page)).size).toBeGreaterThan(all - 5)
    // Older is kept in the URL: a reload shows the same records, and a filter starts from the newest again.
    expect(new URL(await page.evaluate(() => location.href)).searchParams.get('older')).toBe('1')
    const before = await sentences(page)
    await page.reload()
    await expect.poll(() => sentences(page)).toEqual(before)
    await page.getByRole('combobox', { name: 'Action' }).selectOption({ label: 'Passcode created' })
    await expect.poll(() => page.evaluate(() => new URL(location.href).searchParams.get('older'))).toBeNull()
  })

  it('shows no passcode value, hash or hint', async () => {
    const page = await open('', { width: 1280, height: 900 })
    await page.getByRole('button', { name: 'Older' }).click()
    await expect.poll(() => page.getByRole('button', { name: 'Older' }).isHidden()).toBe(true)
    const html = await page.content()
    for (const value of values) expect(html).not.toContain(value)
    expect(html).not.toMatch(PASSCODE_PATTERN)
    const passcodes = await dashboard.host.auth.passcodes.list(admin, 'acc_1')
    for (const passcode of passcodes) expect(html).not.toContain(passcode.hint)
    expect(html).not.toMatch(/[0-9a-f]{64}/)
  })

  it('is neither linked nor shown to a member', async () => {
    const page = await signIn('member', '/settings/')
    const nav = page.getByRole('navigation', { name: 'Settings' })
    await nav.getByRole('link', { name: 'Passcodes' }).waitFor()
    expect(await nav.getByRole('link', { name: 'Activity' }).count()).toBe(0)
    const response = await page.goto(`${dashboard.host.origin}/settings/activity`)
    expect(response?.status()).toBe(403)
    await page.getByText('Only admins of this account see this page.').waitFor()
    expect(await page.locator('table').count()).toBe(0)
    expect(await page.content()).not.toContain('Batch 01')
  })

  it('has no axe violations at 1280 and 375 px (screenshots in the temporary folder)', async () => {
    const { tmpdir } = await import('node:os')
    const { join } = await import('node:path')
    for (const viewport of [
      { width: 1280, height: 900 },
      { width: 375, height: 740 },
    ]) {
      const page = await open('', viewport)
      await expect.poll(() => page.locator('tbody tr').count()).toBe(25)
      if (viewport.width === 375) {
        // At phone width the filters fold behind one button, so that the records come first; it opens them.
        const fold = page.getByRole('button', { name: 'Filters' })
        await expect(page.getByRole('combobox', { name: 'Action' }).isVisible()).resolves.toBe(false)
        const firstRecord = await page.locator('tbody tr').first().boundingBox()
        expect(firstRecord!.y).toBeLessThan(600)
        await fold.click()
        await expect(fold.getAttribute('aria-expanded')).resolves.toBe('true')
        await page.getByRole('combobox', { name: 'Action' }).selectOption({ label: 'Passcode created' })
        await page.getByRole('button', { name: 'Filters (1 on)' }).waitFor()
        await page.getByRole('button', { name: 'Clear filters' }).click()
        await expect.poll(() => page.locator('tbody tr').count()).toBe(25)
      } else {
        await expect(page.getByRole('button', { name: 'Filters' }).isVisible()).resolves.toBe(false)
      }
      await page.evaluate(AXE)
      const found = await page.evaluate(async () => {
        const axe = (window as unknown as { axe: { run(context: Document, options: object): Promise<{ violations: Violation[] }> } }).axe
        return (await axe.run(document, { resultTypes: ['violations'] })).violations
      })
      expect(found.map((v) => `${v.id}: ${v.help} at ${v.nodes.map((node) => node.target.join(' ')).join(', ')}`)).toEqual([])
      await page.screenshot({ path: join(tmpdir(), `activity-${viewport.width}.png`), fullPage: true })
    }
  })

  // Last: it leaves the trail unverifiable for this host.
  it('says plainly that a trail it cannot vouch for cannot be shown, and shows none of its records (SPEC §5.44)', async () => {
    // Another instance on the store, given an audit key this host was not, appends a keyed record.
    const other = createPasscodeAuth({
      store: dashboard.host.store,
      partners: { isWhitelisted: () => true, list: () => [] },
      clock: manualClock(Date.UTC(2026, 0, 4)),
      auditKeys: [{ id: 'elsewhere', key: new Uint8Array(32).fill(9) }],
      cache: false,
    })
    await other.passcodes.create(admin, 'acc_1', { name: 'Keyed elsewhere', expiry: 30 })
    const verified = await dashboard.host.auth.audit.verify('acc_1')
    expect(verified).toMatchObject({ ok: false, reason: 'unknown_key' })
    const at = verified.ok ? 0 : verified.at

    // The API answers 500 ERR_AUDIT_BROKEN (the browser logs the failed load); any page error still fails the test.
    dashboard.allowStatus(500)
    const page = await signIn('admin', '/settings/activity', { viewport: { width: 1280, height: 900 } })
    const alert = page.locator('#activity-unvouched')
    await alert.waitFor()
    expect(await alert.getAttribute('role')).toBe('alert')
    expect(await alert.innerText()).toBe(
      `This activity cannot be shown: the stored trail does not verify. The audit trail of this account does not verify at record ${at} (unknown key); the operator can check it with passcode-auth audit verify`,
    )
    // In place of the records: not one of them, no "No activity yet", no Older, no count.
    expect(await page.locator('tbody tr').count()).toBe(1)
    expect(await page.locator('tbody td.what').count()).toBe(0)
    expect(await page.locator('table.activity').innerText()).not.toContain('Keyed elsewhere')
    expect(await page.getByRole('button', { name: 'Older' }).isHidden()).toBe(true)
    expect(await page.locator('#activity-shown').innerText()).toBe('')
    // A filter asks again and gets the same answer; the page keeps working.
    await page.getByRole('combobox', { name: 'Action' }).selectOption({ label: 'Passcode created' })
    await expect.poll(() => page.evaluate(() => new URL(location.href).searchParams.get('action'))).toBe('passcode.created')
    await alert.waitFor()
  })
})
