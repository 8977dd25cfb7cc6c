import { readdirSync, readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { ASSETS_MODULE, assetsModuleText, builtAssets, scriptInputs } from '../../scripts/dashboard-assets'
import { createPasscodeAuth } from '../../src/index'
import { createDashboard } from '../../src/dashboard/index'
import { USER_ID_MESSAGE } from '../../src/dashboard/client/pages/users'
import { memoryStore } from '../../src/memory'
import { TEST_KEY } from '../helpers/service'
import { parseInput } from '../../src/service/input'

const CLIENT = new URL('../../src/dashboard/client/', import.meta.url)
/** Every file of the browser client, by its path under src/dashboard/client/. */
const clientFiles = readdirSync(CLIENT, { recursive: true, encoding: 'utf8' })
  .filter((path) => /\.(ts|css)$/.test(path))
  .map((path) => ({ path, text: readFileSync(new URL(path, CLIENT), 'utf8') }))
const scripts = clientFiles.filter((file) => file.path.endsWith('.ts'))

describe('src/http/dashboard/assets.ts', () => {
  it('is exactly what `npm run dashboard:assets` generates from src/dashboard/client/ (run it after editing those files)', () => {
    expect(readFileSync(ASSETS_MODULE, 'utf8')).toBe(assetsModuleText())
  })

  it('puts no HTML into the page from data: no module of the script uses innerHTML, outerHTML, insertAdjacentHTML or document.write', () => {
    expect(scripts.length).toBeGreaterThan(10)
    for (const { path, text } of scripts) expect(text, path).not.toMatch(/innerHTML|outerHTML|insertAdjacentHTML|document\.write|eval\(|new Function/)
  })

  it('is modules of at most 300 lines each, the entry a router of pages/', () => {
    const long = clientFiles.filter(({ text }) => text.split('\n').length > 300).map(({ path }) => path)
    expect(long).toEqual([])
    const entry = scripts.find(({ path }) => path === 'dashboard.ts')!.text
    // One import per page: passcodes, users, me, activity, webhooks.
    expect(entry.match(/^import .+ from '\.\/pages\/[a-z-]+'$/gm)).toHaveLength(5)
  })

  it('bundles the client and the constants it shares with the service, and nothing else: the wire types are type-only imports, no zod', () => {
    const inputs = scriptInputs()
    expect(inputs.filter((input) => !input.startsWith('src/dashboard/client/'))).toEqual([
      'src/core/labels.ts',
      // RATE_LIMIT_BOUNDS, MAX_CREDITS, REFILL_INTERVALS: the limit fields' bounds and refill choices.
      'src/core/limits.ts',
      // MAX_ALLOWED_ADDRESSES, MAX_METADATA_BYTES, MAX_TAGS: what the restriction fields say.
      'src/core/restrictions.ts',
      'src/core/rules.ts',
      'src/core/time.ts',
      // WEBHOOK_EVENT_TYPES, the Webhooks page's event checkboxes.
      'src/core/webhook-events.ts',
    ])
    expect(inputs.some((input) => input.includes('node_modules') || input.includes('protocol'))).toBe(false)
    for (const { path, text } of scripts)
      for (const line of text.match(/^import .+ from '[./]+\/protocol\/.+'$/gm) ?? []) expect(line, path).toMatch(/^import type /)
    expect(builtAssets().script).not.toMatch(/zod|ZodError/)
  })

  it("checks a User ID before sending with the service's own rule (isVisibleAscii) and the API's own message", () => {
    let refusal: unknown
    try {
      parseInput('userId', 'userId', '')
    } catch (error) {
      refusal = error
    }
    expect(refusal).toMatchObject({ field: 'userId', message: USER_ID_MESSAGE })
    expect(scripts.find(({ path }) => path.endsWith('users.ts'))!.text).toContain("import { isVisibleAscii } from '../../../core/rules'")
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
