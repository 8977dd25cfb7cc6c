import type { Browser, BrowserContext, Page } from 'playwright-core'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { createPasscodeAuth } from '../../src/index'
import { browserAvailability, launchBrowser } from '../helpers/browser'
import { TEST_KEY } from '../helpers/service'
import { axeViolations } from './axe-check'
import { chooseAction, PEOPLE, startBrowserHost, type BrowserHost } from './browser-host'

/**
 * axe-core on every page and state of the dashboard (issue 34): empty, 1 passcode, 100,
 * with errors shown, with a form or the value panel open; at 1280 px and 375 px. axe is
 * evaluated through the DevTools protocol, which the page's CSP does not govern, so the
 * pages keep their strict CSP while tested.
 */

const availability = browserAvailability()
const admin = PEOPLE.admin.actor
const WIDTHS = [
  { width: 1280, height: 900 },
  { width: 375, height: 740 },
] as const

describe.skipIf(availability.skip)(availability.title('dashboard accessibility (axe-core) in Chromium'), { timeout: 120_000 }, () => {
  let browser: Browser
  let host: BrowserHost
  const contexts: BrowserContext[] = []
  /** Per test, one signed-in tab per person and width: a later page of theirs is a navigation in it, not a new profile and sign-in. */
  const tabs = new Map<string, Page>()

  beforeAll(async () => {
    ;[browser, host] = await Promise.all([launchBrowser(), startBrowserHost()])
  })
  afterAll(async () => {
    await browser?.close()
    await host?.close()
  })
  afterEach(async () => {
    tabs.clear()
    await Promise.all(contexts.splice(0).map((context) => context.close()))
  })

  /**
   * `path` freshly loaded for `person` at `viewport`. The first time in a test, in a new
   * profile signed in through the host's login; after that, in the same tab (a new
   * document, axe injected again), which costs Chromium about a fifth of the file's CPU
   * less than a new profile, renderer process and sign-in for each page.
   */
  async function signIn(person: keyof typeof PEOPLE, path: string, viewport: { width: number; height: number }): Promise<Page> {
    const key = `${person} ${viewport.width}x${viewport.height}`
    let tab = tabs.get(key)
    if (tab === undefined) {
      const context = await browser.newContext({ viewport })
      contexts.push(context)
      tab = await context.newPage()
      await tab.clock.setFixedTime(host.clock.ms)
      await tab.goto(`${host.origin}/login?as=${person}&to=${encodeURIComponent(path)}`)
      tabs.set(key, tab)
    } else {
      await tab.goto(`${host.origin}${path}`)
    }
    await tab.getByRole('heading', { level: 1, name: 'Settings' }).waitFor()
    return tab
  }

  const states: readonly { readonly name: string; prepare(page: Page): Promise<void> }[] = [
    { name: 'as loaded', prepare: async () => {} },
    {
      name: 'with the New passcode form open and a field error shown',
      prepare: async (page) => {
        const button = page.getByRole('button', { name: '+ Passcode' })
        if ((await button.getAttribute('aria-disabled')) === 'true') return
        await button.click()
        const form = page.getByRole('form', { name: 'New passcode' })
        await form.getByRole('spinbutton', { name: 'Number of days' }).fill('5000')
        await form.getByRole('button', { name: 'Create & View' }).click()
        await form.locator('.field-error').waitFor()
      },
    },
  ]

  async function check(label: string, page: Page): Promise<void> {
    expect(await axeViolations(page), label).toEqual([])
  }

  async function everyPage(stage: string): Promise<void> {
    for (const viewport of WIDTHS) {
      for (const state of states) {
        const page = await signIn('admin', '/settings/', viewport)
        await page.locator('#passcode-count').filter({ hasText: 'of 100' }).waitFor()
        await state.prepare(page)
        await check(`Passcodes, ${stage}, ${state.name}, ${viewport.width} px`, page)
      }
      const users = await signIn('admin', '/settings/users', viewport)
      await users.getByRole('row').filter({ hasText: 'Amy Example' }).waitFor()
      await check(`Users, ${stage}, ${viewport.width} px`, users)
      const me = await signIn('amy', '/settings/me', viewport)
      await me.locator('#content p, #content dl').first().waitFor()
      await check(`My passcode, ${stage}, ${viewport.width} px`, me)
    }
  }

  it('has no violations with no passcode at all', async () => {
    await everyPage('empty')
  })

  it('has no violations with one passcode, with its edit and rotate forms open, and with the value shown once', async () => {
    await host.auth.passcodes.create(admin, 'acc_1', { name: 'Only one', expiry: 20, partners: ['acme'] })
    await host.auth.userPasscodes.grant(admin, 'acc_1', 'u_amy', { validity: { type: 'finite', days: 30 } })
    await everyPage('one passcode')
    // Recorded use (another instance's flush), so that the chart has bars and refusals to show.
    const sender = createPasscodeAuth({
      store: host.store,
      partners: ['acme', 'globex'],
      clock: host.clock,
      encryptionKeys: [{ id: 'k1', key: TEST_KEY }],
    })
    const value = (await host.auth.passcodes.rotate(admin, 'acc_1', (await host.auth.passcodes.list(admin, 'acc_1'))[0]!.id, { overlapMinutes: 0 }))
      .value
    for (const partner of ['acme', 'acme', 'globex'])
      await sender.connect({ headers: { 'x-service-account-id': 'acc_1', 'x-service-passcode': value }, partner })
    await sender.close()
    for (const viewport of WIDTHS) {
      const page = await signIn('admin', '/settings/', viewport)
      await page.getByRole('button', { name: 'Usage of Only one' }).click()
      await page.getByRole('region', { name: 'Usage of Only one' }).locator('.usage-summary').filter({ hasText: 'Used 2 times' }).waitFor()
      await check(`Passcodes, usage chart shown, ${viewport.width} px`, page)
      await page.getByRole('button', { name: 'More actions for Only one' }).click()
      await page.getByRole('menu', { name: 'More actions for Only one' }).waitFor()
      await check(`Passcodes, row menu open, ${viewport.width} px`, page)
      await page.keyboard.press('Escape')
      await chooseAction(page, 'Only one', 'Delete')
      await page.getByRole('dialog', { name: 'Delete the passcode “Only one”?' }).waitFor()
      await check(`Passcodes, delete confirm dialog open, ${viewport.width} px`, page)
      await page.keyboard.press('Escape')
      await page.getByRole('button', { name: 'Edit Only one' }).click()
      await check(`Passcodes, edit open, ${viewport.width} px`, page)
      await page.keyboard.press('Escape')
      await chooseAction(page, 'Only one', 'Rotate')
      const rotate = page.getByRole('form', { name: 'Rotate “Only one”' })
      await rotate.getByRole('spinbutton').fill('')
      await rotate.getByRole('button', { name: 'Rotate & View' }).click()
      await rotate.locator('.field-error').waitFor()
      await check(`Passcodes, rotate open with an error, ${viewport.width} px`, page)
      await rotate.getByRole('spinbutton').fill('0')
      await rotate.getByRole('button', { name: 'Rotate & View' }).click()
      const dialog = page.getByRole('dialog', { name: 'Rotate “Only one”?' })
      await dialog.waitFor()
      await check(`Passcodes, rotate confirm dialog open, ${viewport.width} px`, page)
      await dialog.getByRole('button', { name: 'Rotate now' }).click()
      await page.getByRole('region', { name: 'New value for “Only one”' }).waitFor()
      await check(`Passcodes, value shown once, ${viewport.width} px`, page)

      const users = await signIn('admin', '/settings/users', viewport)
      const grant = users.getByRole('form', { name: 'Grant a user passcode' })
      await grant.getByRole('textbox', { name: 'User ID' }).fill('u_amy')
      await grant.getByRole('button', { name: 'Grant Passcode' }).click()
      await grant.locator('.field-error').waitFor()
      await check(`Users, with an error shown, ${viewport.width} px`, users)
      await users.getByRole('button', { name: 'Grant Passcode for Mo Member' }).click()
      await check(`Users, grant row open, ${viewport.width} px`, users)
      await users.getByRole('button', { name: 'Usage of Amy Example' }).click()
      await users.getByRole('region', { name: 'Usage of Amy Example' }).locator('.usage-summary').waitFor()
      await check(`Users, usage chart shown, ${viewport.width} px`, users)
      await users.getByRole('combobox', { name: 'The API accepts' }).selectOption('user')
      await users.getByRole('button', { name: 'Save', exact: true }).click()
      await users.getByRole('dialog', { name: 'Accept user passcodes only?' }).waitFor()
      await check(`Users, accepted-passcodes confirm dialog open, ${viewport.width} px`, users)
      await users.keyboard.press('Escape')

      const me = await signIn('amy', '/settings/me', viewport)
      await me.getByRole('button', { name: 'Show my passcode' }).click()
      await me.getByRole('region', { name: 'Your passcode' }).waitFor()
      await check(`My passcode, value shown, ${viewport.width} px`, me)
    }
  })

  it('has no violations at 100 passcodes, at the cap, filtered, with one found in public (its rotate form open), one that works for no partner, and a user passcode the account does not accept', async () => {
    const count = (await host.auth.passcodes.list(admin, 'acc_1')).length
    for (let i = count; i < 98; i++)
      await host.auth.passcodes.create(admin, 'acc_1', { name: `Bulk ${String(i).padStart(3, '0')}`, expiry: 1 + (i % 60) })
    const leaked = await host.auth.passcodes.create(admin, 'acc_1', { name: 'Aa leaked', expiry: 90 })
    await host.auth.leaks.report([{ token: leaked.value, url: 'https://github.com/octo/repo/blob/main/.env' }], { source: 'github' })
    await host.auth.passcodes.create(admin, 'acc_1', { name: 'Aa no partner', expiry: 90, partners: ['globex'] })
    host.partners.delete('globex')
    await host.auth.accounts.setAcceptedPasscodes(admin, 'acc_1', 'account')
    try {
      await everyPage('100 passcodes')
      for (const viewport of WIDTHS) {
        const page = await signIn('admin', '/settings/?q=bulk%200&status=expiring_soon&sort=expiry', viewport)
        await page.locator('#find-shown').filter({ hasText: 'Showing' }).waitFor()
        await check(`Passcodes, filtered, ${viewport.width} px`, page)
        await page.goto(`${host.origin}/settings/?q=aa&per=50`)
        await page.getByText('No partner', { exact: true }).waitFor()
        await chooseAction(page, 'Aa leaked', 'Rotate')
        await page.getByRole('form', { name: 'Rotate “Aa leaked”' }).waitFor()
        await check(`Passcodes, found in public and no partner, rotate form open, ${viewport.width} px`, page)
      }
    } finally {
      host.partners.add('globex')
    }
  })
})
