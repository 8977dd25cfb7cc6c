import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { bundleClient, CLIENT_BUNDLE_BUDGET_BYTES } from '../../scripts/client-bundle-size'

/*
 * The client must run in browsers, Deno, Bun and edge runtimes: its browser bundle
 * (esbuild, platform "browser", which refuses Node built-ins) may use only fetch,
 * AbortController, AbortSignal, URL, Headers, TextDecoder and timers.
 */

const bundle = await bundleClient()

describe('the client bundle', () => {
  it('contains only the client and pure core modules, and no dependency at all', () => {
    for (const input of bundle.inputs) expect(input).toMatch(/^src\/(client\/[a-z-]+|core\/(passcode-format|base62|crc32|class-name))\.ts$/)
    expect(bundle.externalImports).toEqual([])
  })

  it('uses no Node-only API', () => {
    expect(bundle.code).not.toMatch(/\bnode:/)
    expect(bundle.code).not.toMatch(/\brequire\s*\(/)
    expect(bundle.code).not.toMatch(/\bprocess\b/)
    expect(bundle.code).not.toMatch(/\bBuffer\b/)
    expect(bundle.code).not.toMatch(/\b(?:setImmediate|__dirname|__filename|global)\b/)
  })

  it(`is at most ${CLIENT_BUNDLE_BUDGET_BYTES} bytes minified and gzipped, every dependency included`, () => {
    expect(bundle.gzippedBytes).toBeLessThanOrEqual(CLIENT_BUNDLE_BUDGET_BYTES)
  })
})

describe('the minified client bundle', () => {
  // A minifier renames classes (`class InvalidCredentialsError` becomes `class Xy`):
  // names must not depend on the declaration.
  const folder = mkdtempSync(path.join(tmpdir(), 'passcode-auth-client-bundle-'))
  afterAll(() => rmSync(folder, { recursive: true, force: true }))

  it('keeps the name of every exported class, and of every error it builds', async () => {
    const file = path.join(folder, 'client.min.mjs')
    writeFileSync(file, bundle.code)
    const exported = (await import(pathToFileURL(file).href)) as Record<string, unknown>
    const constructorArguments: Record<string, unknown[]> = {
      UnexpectedResponseError: [{ status: 502, contentType: null, reason: 'status', bodyExcerpt: '' }],
    }
    const classes = Object.entries(exported).filter(
      (entry): entry is [string, new (...args: unknown[]) => Error] =>
        typeof entry[1] === 'function' && /^class[\s{]/.test(Function.prototype.toString.call(entry[1])),
    )
    expect(classes.length).toBeGreaterThan(10)
    for (const [exportName, Class] of classes) {
      expect(Class.name, `${exportName}.name`).toBe(exportName)
      expect(new Class(...(constructorArguments[exportName] ?? [])).name, `new ${exportName}().name`).toBe(exportName)
    }
  })
})
