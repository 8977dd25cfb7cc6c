import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { LEAKED_ENABLE_WARNING, LEAKED_PASSCODE_ADVICE, LEAKED_USER_PASSCODE_ADVICE } from '../../src/core/labels'
import { browserAvailability } from '../helpers/browser'
import { chooseAction, PEOPLE, useDashboardBrowser, type BrowserHost } from './browser-host'

/**
 * SPEC 5.42 in Chromium: a passcode whose value was reported as found in public shows a
 * mark on its row (words, not a colour alone) and the page a banner that says which,
 * where, and what to do, until an admin acts (enable, rotate, delete); axe finds nothing
 * wrong with the banner shown at 1280 px and 375 px. A user passcode found in public does
 * the same on Users (until an admin grants a new one), and its holder's own page says so.
 * Screenshots of both widths are saved under the system's temporary folder
 * (leak-banner-*.png, leak-users-*.png, leak-me-*.png).
 */

const availability = browserAvailability()
const admin = PEOPLE.admin.actor
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8')
const URL_FOUND = 'https://github.com/octo/repo/blob/main/.env'

interface Violation {
  readonly id: string
  readonly help: string
  readonly nodes: readonly { readonly target: readonly string[] }[]
}

async function violations(page: Page): Promise<string[]> {
  await page.evaluate(AXE)
  const found = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(context: Document, options: object): Promise<{ violations: Violation[] }> } }).axe
    return (await axe.run(document, { resultTypes: ['violations'] })).violations
  })
  return found.map((violation) => `${violation.id}: ${violation.help} at ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`)
}

const URL_AMY = 'https://gist.github.com/amy/0b1c2d3e4f/raw/notes.txt'

/**
 * Three passcodes, two of them reported as leaked (one with a URL, one without); user
 * passcodes for Amy (reported as leaked) and Mo (not).
 */
async function seed(host: BrowserHost): Promise<void> {
  const values: string[] = []
  for (const name of ['Acme export', 'Globex sync', 'Nightly backup']) {
    values.push((await host.auth.passcodes.create(admin, 'acc_1', { name, expiry: 90 })).value)
  }
  await host.auth.leaks.report([{ token: values[0]!, url: URL_FOUND }, values[1]!], { source: 'github' })
  for (const person of [PEOPLE.amy, PEOPLE.member]) {
    await host.auth.userPasscodes.grant(admin, 'acc_1', person.actor.userId, { validity: { type: 'finite', days: 90 } })
  }
  const amy = await host.auth.userPasscodes.reveal(PEOPLE.amy.actor, 'acc_1')
  await host.auth.leaks.report([{ token: amy.value, url: URL_AMY }], { source: 'gitleaks' })
}

describe.skipIf(availability.skip)(availability.title('dashboard leak banner and row mark in Chromium'), { timeout: 120_000 }, () => {
  const dashboard = useDashboardBrowser(seed)
  const { signIn } = dashboard

  it('shows the banner with each leaked passcode, where it was found and what to do, and marks their rows in words', async () => {
    const page = await signIn('admin')
    const banner = page.getByRole('region', { name: '2 passcodes were found in public and disabled' })
    await banner.waitFor()
    const text = (await banner.textContent()) ?? ''
    expect(text).toContain('Acme export')
    expect(text).toContain('Globex sync')
    expect(text).not.toContain('Nightly backup')
    expect(text).toContain(URL_FOUND)
    expect(text).toContain('reported by github on')
    expect(text).toContain(`What to do: For each of them: ${LEAKED_PASSCODE_ADVICE}`)

    const marked = page.locator('tbody tr', { hasText: 'Found in public' })
    await expect(marked.count()).resolves.toBe(2)
    await expect(page.locator('tbody tr', { hasText: 'Acme export' }).getByText('Found in public').isVisible()).resolves.toBe(true)
    await expect(page.locator('tbody tr', { hasText: 'Nightly backup' }).getByText('Found in public').count()).resolves.toBe(0)
    // The row's status says it is disabled too: the mark adds where, not instead of the state.
    await expect(page.locator('tbody tr', { hasText: 'Acme export' }).getByText('Disabled', { exact: true }).isVisible()).resolves.toBe(true)
  })

  it('tells the leak in words on the Activity page: what was done, where it was found, who reported it', async () => {
    const page = await signIn('admin', '/settings/activity')
    await page.locator('tbody tr').first().waitFor()
    const sentences = await page.locator('tbody td.what').allInnerTexts()
    expect(sentences).toContain(`The leak report disabled passcode “Acme export”, found at ${URL_FOUND} (reported by github)`)
    expect(sentences).toContain('The leak report disabled passcode “Globex sync” (reported by github)')
  })

  it('shows a member the banner with whom to ask, and no action they cannot take', async () => {
    const page = await signIn('member')
    const banner = page.getByRole('region', { name: '2 passcodes were found in public and disabled' })
    await banner.waitFor()
    await expect(banner.textContent()).resolves.toContain('Ask an admin')
  })

  for (const viewport of [
    { width: 1280, height: 900 },
    { width: 375, height: 740 },
  ]) {
    it(`has no axe violations with the banner shown at ${viewport.width} px`, async () => {
      const page = await signIn('admin', '/settings/', { viewport })
      await page.locator('#leak-banner').waitFor()
      await page.screenshot({ path: `${process.env.TMPDIR ?? '/tmp'}/leak-banner-${viewport.width}.png`, fullPage: true })
      expect(await violations(page)).toEqual([])
    })
  }

  it('rotates a leaked passcode with no overlap (SPEC §5.45): the form offers none and says why, and the mark goes; the banner with the last one', async () => {
    const page = await signIn('admin')
    await page.locator('#leak-banner').waitFor()
    const acme = (await dashboard.host.auth.passcodes.list(admin, 'acc_1')).find((passcode) => passcode.name === 'Acme export')!
    const bodies: unknown[] = []
    page.on('request', (request) => {
      if (request.url().endsWith('/rotate')) bodies.push(request.postDataJSON())
    })
    await chooseAction(page, 'Acme export', 'Rotate')
    const form = page.getByRole('form', { name: 'Rotate “Acme export”' })
    await expect(form.textContent()).resolves.toContain(
      'Its value was found in public, so the rotation ends it at once: the public value gets no overlap.',
    )
    await expect(form.getByRole('spinbutton').count()).resolves.toBe(0)
    await form.getByRole('button', { name: 'Rotate & View' }).click()
    const asked = page.getByRole('dialog', { name: 'Rotate “Acme export”?' })
    await expect(asked.textContent()).resolves.toContain('replaces the public one, which stops working at once and never works again')
    await asked.getByRole('button', { name: 'Rotate now' }).click()
    await page.getByRole('region', { name: '1 passcode was found in public and disabled' }).waitFor()
    expect((await dashboard.host.auth.passcodes.list(admin, 'acc_1')).find((passcode) => passcode.id === acme.id)?.leak).toBeNull()
    expect(bodies).toEqual([{ overlapMinutes: 0 }])

    // Enabling it brings the public value back: the confirmation says so first (SPEC §5.45).
    await chooseAction(page, 'Globex sync', 'Enable')
    const enabling = page.getByRole('dialog', { name: 'Enable “Globex sync” with its public value?' })
    await expect(enabling.textContent()).resolves.toContain(LEAKED_ENABLE_WARNING)
    await enabling.getByRole('button', { name: 'Enable the public value' }).click()
    await page.getByRole('status').filter({ hasText: 'Passcode enabled. Its public value works again.' }).waitFor()
    await expect.poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe('More actions for Globex sync')
    await page.reload()
    await page.locator('tbody tr', { hasText: 'Globex sync' }).waitFor()
    await expect(page.locator('#leak-banner').count()).resolves.toBe(0)
    await expect(page.getByText('Found in public').count()).resolves.toBe(0)

    // Enabled, its value is still the public one: a rotation offers it no overlap either.
    await chooseAction(page, 'Globex sync', 'Rotate')
    const again = page.getByRole('form', { name: 'Rotate “Globex sync”' })
    await expect(again.textContent()).resolves.toContain(
      'Its value was found in public, so the rotation ends it at once: the public value gets no overlap.',
    )
    await expect(again.getByRole('spinbutton').count()).resolves.toBe(0)
    await again.getByRole('button', { name: 'Rotate & View' }).click()
    await page.getByRole('dialog', { name: 'Rotate “Globex sync”?' }).getByRole('button', { name: 'Rotate now' }).click()
    await expect.poll(() => bodies.length).toBe(2)
    expect(bodies).toEqual([{ overlapMinutes: 0 }, { overlapMinutes: 0 }])
  })

  it("marks a leaked user passcode's row on Users in words, with where, when and what to do, under a banner of its own", async () => {
    const page = await signIn('admin', '/settings/users')
    const banner = page.getByRole('region', { name: '1 user passcode was found in public and revoked' })
    await banner.waitFor()
    const text = (await banner.textContent()) ?? ''
    expect(text).toContain('Amy Example')
    expect(text).toContain(URL_AMY)
    expect(text).toContain('reported by gitleaks on')
    expect(text).not.toContain('Mo Member')
    expect(text).toContain(`What to do: ${LEAKED_USER_PASSCODE_ADVICE}`)

    const amy = page.locator('tbody tr', { hasText: 'Amy Example' })
    const mark = amy.locator('.leak-mark')
    await expect(mark.getByText('Found in public', { exact: true }).isVisible()).resolves.toBe(true)
    const where = (await mark.textContent()) ?? ''
    expect(where).toContain(`found at ${URL_AMY}, reported by gitleaks on `)
    expect(where).toContain('Grant a new passcode to replace it.')
    // The mark says where; the state is still said: revoked, and the row offers the grant.
    await expect(amy.getByText('Revoked', { exact: true }).isVisible()).resolves.toBe(true)
    await expect(amy.getByRole('button', { name: 'Grant Passcode for Amy Example' }).isVisible()).resolves.toBe(true)
    await expect(page.locator('tbody tr', { hasText: 'Mo Member' }).getByText('Found in public').count()).resolves.toBe(0)
    // The Passcodes banner is the account passcodes' (all acted on by the test above): Amy's open mark does not bring it back.
    const passcodes = await signIn('admin')
    await passcodes.locator('tbody tr', { hasText: 'Nightly backup' }).waitFor()
    await expect(passcodes.locator('#leak-banner').count()).resolves.toBe(0)
  })

  it('tells a member on Users whom to ask, and Amy on her own page that her passcode was found in public and revoked', async () => {
    const users = await signIn('member', '/settings/users')
    const banner = users.getByRole('region', { name: '1 user passcode was found in public and revoked' })
    await banner.waitFor()
    await expect(banner.textContent()).resolves.toContain('Ask an admin of this account to grant each user a new passcode.')
    await expect(users.locator('tbody tr', { hasText: 'Amy Example' }).textContent()).resolves.toContain('An admin can grant a new one.')

    const me = await signIn('amy', '/settings/me')
    const notice = me.getByRole('region', { name: 'Your passcode was found in public and revoked' })
    await notice.waitFor()
    const text = (await notice.textContent()) ?? ''
    expect(text).toContain(`found at ${URL_AMY}, reported by gitleaks on `)
    expect(text).toContain('What to do: ask an admin of this account to grant you a new passcode.')
    await expect(me.getByRole('button', { name: 'Show my passcode' }).count()).resolves.toBe(0)
  })

  for (const viewport of [
    { width: 1280, height: 900 },
    { width: 375, height: 740 },
  ]) {
    it(`has no axe violations with a user passcode's mark shown, on Users and on the holder's page, at ${viewport.width} px`, async () => {
      const tmp = process.env.TMPDIR ?? '/tmp'
      const users = await signIn('admin', '/settings/users', { viewport })
      await users.locator('tbody .leak-mark').waitFor()
      await users.screenshot({ path: `${tmp}/leak-users-${viewport.width}.png`, fullPage: true })
      expect(await violations(users)).toEqual([])
      const me = await signIn('amy', '/settings/me', { viewport })
      await me.locator('#leak-banner').waitFor()
      await me.screenshot({ path: `${tmp}/leak-me-${viewport.width}.png`, fullPage: true })
      expect(await violations(me)).toEqual([])
    })
  }

  it("drops the user passcode's mark and banner when an admin grants a new one, and Amy sees hers again", async () => {
    const page = await signIn('admin', '/settings/users')
    await page.locator('#leak-banner').waitFor()
    await page.getByRole('button', { name: 'Grant Passcode for Amy Example' }).click()
    await page.getByRole('form', { name: 'Grant a passcode to Amy Example' }).getByRole('button', { name: 'Grant Passcode' }).click()
    await page.getByRole('status').filter({ hasText: 'Passcode granted.' }).waitFor()
    await expect(page.locator('#leak-banner').count()).resolves.toBe(0)
    await expect(page.getByText('Found in public').count()).resolves.toBe(0)
    expect(await dashboard.host.auth.userPasscodes.get(admin, 'acc_1', PEOPLE.amy.actor.userId)).toMatchObject({ status: 'active', leak: null })

    const me = await signIn('amy', '/settings/me')
    await me.getByRole('button', { name: 'Show my passcode' }).waitFor()
    await expect(me.locator('#leak-banner').count()).resolves.toBe(0)
  })
})
