import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'

const root = join(import.meta.dirname, '../..')
const FRAMEWORKS = ['express', 'express4', 'fastify', 'fastify4', 'fastify-plugin', 'koa', 'koa2', 'hono', '@hono/node-server', '@opentelemetry/api']
const directory = mkdtempSync(join(tmpdir(), 'passcode-auth-imports-'))
afterAll(() => rmSync(directory, { recursive: true, force: true }))

// A module-resolution hook that logs every URL resolved, so the test sees every
// module the import graph actually loads (static and dynamic imports alike).
writeFileSync(
  join(directory, 'hooks.mjs'),
  `import { appendFileSync } from 'node:fs'
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context)
  appendFileSync(process.env.RESOLVE_LOG, result.url + '\\n')
  return result
}
`,
)
writeFileSync(
  join(directory, 'register.mjs'),
  `import { register } from 'node:module'\nregister(${JSON.stringify(pathToFileURL(join(directory, 'hooks.mjs')).href)})\n`,
)

/** Every module URL resolved when importing `entry` from src/ in a fresh Node process. */
function urlsLoadedBy(entry: string): string[] {
  const log = join(directory, `${entry.replaceAll('/', '_')}.log`)
  writeFileSync(log, '')
  const script = `await import(${JSON.stringify(pathToFileURL(join(root, entry)).href)})`
  execFileSync(process.execPath, ['--import', 'tsx', '--import', join(directory, 'register.mjs'), '--input-type=module', '-e', script], {
    cwd: root,
    env: { ...process.env, RESOLVE_LOG: log },
    timeout: 30_000,
  })
  return readFileSync(log, 'utf8').split('\n').filter((url) => url !== '')
}

/** The node_modules packages loaded when importing `entry` from src/ in a fresh Node process. */
function packagesLoadedBy(entry: string): string[] {
  const packages = new Set<string>()
  for (const url of urlsLoadedBy(entry)) {
    const match = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url)
    if (match) packages.add(match[1]!)
  }
  return [...packages].sort()
}

describe('framework packages stay optional', () => {
  it('importing passcode-auth loads no web framework and nothing of OpenTelemetry', () => {
    const loaded = packagesLoadedBy('src/index.ts')
    expect(loaded).toContain('zod') // the hook does see package imports
    expect(loaded.filter((name) => FRAMEWORKS.includes(name))).toEqual([])
  })

  it('importing passcode-auth/memory loads no web framework', () => {
    expect(packagesLoadedBy('src/memory.ts').filter((name) => FRAMEWORKS.includes(name))).toEqual([])
  })

  it('the Express and Koa entries import their framework for types only', () => {
    expect(packagesLoadedBy('src/express/index.ts').filter((name) => FRAMEWORKS.includes(name))).toEqual([])
    expect(packagesLoadedBy('src/koa/index.ts').filter((name) => FRAMEWORKS.includes(name))).toEqual([])
  })

  it('the Fastify entry loads fastify-plugin and not fastify itself', () => {
    expect(packagesLoadedBy('src/fastify/index.ts').filter((name) => FRAMEWORKS.includes(name))).toEqual(['fastify-plugin'])
  })

  it('the fetch and Hono entries import hono for types only, and no Node built-in module', () => {
    for (const entry of ['src/fetch/index.ts', 'src/hono/index.ts']) {
      const urls = urlsLoadedBy(entry)
      expect(packagesLoadedBy(entry).filter((name) => FRAMEWORKS.includes(name)), entry).toEqual([])
      expect(urls.filter((url) => url.startsWith('node:')), entry).toEqual([])
    }
  })
})
