import { describe, expect, it } from 'vitest'
import { bundleClient, CLIENT_BUNDLE_BUDGET_BYTES } from '../../scripts/client-bundle-size'

/*
 * The client must run in browsers, Deno, Bun and edge runtimes: its browser bundle
 * (esbuild, platform "browser", which refuses Node built-ins) may use only fetch,
 * AbortController, AbortSignal, URL, Headers, TextDecoder and timers.
 */

const bundle = await bundleClient()

describe('the client bundle', () => {
  it('contains only the client and pure core modules, with zod as the one external import', () => {
    for (const input of bundle.inputs) expect(input).toMatch(/^src\/(client\/[a-z-]+|core\/(passcode-format|base62|crc32|class-name))\.ts$/)
    expect(new Set(bundle.externalImports)).toEqual(new Set(['zod']))
  })

  it('uses no Node-only API', () => {
    expect(bundle.code).not.toMatch(/\bnode:/)
    expect(bundle.code).not.toMatch(/\brequire\s*\(/)
    expect(bundle.code).not.toMatch(/\bprocess\b/)
    expect(bundle.code).not.toMatch(/\bBuffer\b/)
    expect(bundle.code).not.toMatch(/\b(?:setImmediate|__dirname|__filename|global)\b/)
  })

  it(`stays under ${CLIENT_BUNDLE_BUDGET_BYTES} bytes minified and gzipped, zod excluded`, () => {
    expect(bundle.gzippedBytes).toBeLessThan(CLIENT_BUNDLE_BUDGET_BYTES)
  })
})
