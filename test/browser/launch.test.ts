import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { browserAvailability, launchBrowser } from '../helpers/browser'

const availability = browserAvailability()

describe.skipIf(availability.skip)(availability.title('Chromium for browser tests'), () => {
  let browser: Browser
  let server: Server
  let origin: string

  beforeAll(async () => {
    server = createServer((request, response) => {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
      response.end(`<!doctype html><title>probe</title><button>${request.url === '/' ? 'Ready' : 'Other'}</button>`)
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    browser = await launchBrowser()
  })

  afterAll(async () => {
    await browser?.close()
    await new Promise((resolve) => server?.close(resolve))
  })

  it('loads a page from a local server and finds an element by its accessible name', async () => {
    const context = await browser.newContext()
    const page = await context.newPage()
    const response = await page.goto(`${origin}/`)
    expect(response?.status()).toBe(200)
    await expect(page.title()).resolves.toBe('probe')
    expect(await page.getByRole('button', { name: 'Ready' }).count()).toBe(1)
    await context.close()
  })

  it('keeps contexts apart: a cookie set in one is absent from another', async () => {
    const first = await browser.newContext()
    const second = await browser.newContext()
    await first.addCookies([{ name: 'probe', value: '1', url: origin }])
    expect((await first.cookies(origin)).map((cookie) => cookie.name)).toEqual(['probe'])
    expect(await second.cookies(origin)).toEqual([])
    await Promise.all([first.close(), second.close()])
  })
})
