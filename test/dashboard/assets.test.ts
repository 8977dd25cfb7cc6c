import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { ASSETS_MODULE, assetsModuleText, builtAssets } from '../../scripts/dashboard-assets'
import { createPasscodeAuth } from '../../src/index'
import { createDashboard } from '../../src/dashboard/index'
import { memoryStore } from '../../src/memory'
import { TEST_KEY } from '../helpers/service'
import { isVisibleAscii, MAX_IDENTIFIER_LENGTH } from '../../src/core/rules'
import { parseInput } from '../../src/service/input'

const script = readFileSync(new URL('../../src/dashboard/client/dashboard.ts', import.meta.url), 'utf8')

describe('src/http/dashboard/assets.ts', () => {
  it('is exactly what `npm run dashboard:assets` generates from src/dashboard/client/ (run it after editing those files)', () => {
    expect(readFileSync(ASSETS_MODULE, 'utf8')).toBe(assetsModuleText())
  })

  it('puts no HTML into the page from data: the script never uses innerHTML, outerHTML, insertAdjacentHTML or document.write', () => {
    expect(script).not.toMatch(/innerHTML|outerHTML|insertAdjacentHTML|document\.write|eval\(|new Function/)
  })

  it("checks a User ID before sending as the service does, with the API's own message", () => {
    const rule = new RegExp(/const USER_ID = \/(.+)\/\n/.exec(script)![1]!)
    const message = /const USER_ID_MESSAGE = '([^']+)'/.exec(script)![1]
    let refusal: unknown
    try {
      parseInput('userId', 'userId', '')
    } catch (error) {
      refusal = error
    }
    expect(refusal).toMatchObject({ field: 'userId', message })
    for (const id of ['', ' ', 'u_1', 'a b', 'é', '~!', 'x'.repeat(MAX_IDENTIFIER_LENGTH), 'x'.repeat(MAX_IDENTIFIER_LENGTH + 1), '\u007f']) {
      expect(rule.test(id), JSON.stringify(id)).toBe(isVisibleAscii(id))
    }
  })

  it('serves the script and style sheet under content-hashed names for a year, immutable; the pages never cached', async () => {
    const dashboard = createDashboard(createPasscodeAuth({ store: memoryStore(), encryptionKeys: [{ id: 'k1', key: TEST_KEY }] }))
    const session = () => ({ accountId: 'acc_1', actor: { userId: 'u_1', role: 'admin' as const } })
    const get = (path: string) =>
      dashboard.handle({ method: 'GET', path, base: '/settings', header: () => undefined, body: async () => ({ text: '' }) }, session)
    const page = await get('/')
    expect(page.headers['cache-control']).toBe('no-store')
    const links = [...page.body.matchAll(/(?:src|href)="\/settings(\/assets\/dashboard\.[0-9a-f]{16}\.(?:js|css))"/g)].map((match) => match[1]!)
    expect(links).toHaveLength(2)
    for (const link of links) {
      const file = await get(link)
      expect(file.statusCode).toBe(200)
      expect(file.headers['cache-control']).toBe('public, max-age=31536000, immutable')
    }
    const { script: built, scriptFile } = builtAssets()
    expect(links).toContain(`/assets/${scriptFile}`)
    expect((await get(`/assets/${scriptFile}`)).body).toBe(built)
    // The plain names still answer, revalidated each time; any other name is a 404.
    expect((await get('/assets/dashboard.js')).headers['cache-control']).toBe('no-cache')
    expect((await get('/assets/dashboard.0000000000000000.js')).statusCode).toBe(404)
    expect((await get('/assets/toString')).statusCode).toBe(404)
  })
})
