import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { bundleForNode, type NodeBundles } from '../helpers/node-bundle'

const root = join(import.meta.dirname, '../..')
const FRAMEWORKS = ['express', 'express4', 'fastify', 'fastify4', 'fastify-plugin', 'koa', 'koa2', 'hono', '@hono/node-server', '@opentelemetry/api']
const ENTRIES = [
  'src/index.ts',
  'src/memory.ts',
  'src/express/index.ts',
  'src/koa/index.ts',
  'src/fastify/index.ts',
  'src/fetch/index.ts',
  'src/hono/index.ts',
  'src/nestjs/index.ts',
]
const directory = mkdtempSync(join(tmpdir(), 'passcode-auth-imports-'))
// The entries, bundled as tsup bundles the package (a module loaded with import() stays a
// separate file, loaded only when called; packages stay imports); see node-bundle.ts.
let bundles: Promise<NodeBundles> | undefined
const bundled = () => (bundles ??= bundleForNode(Object.fromEntries(ENTRIES.map((entry) => [entry.replaceAll('/', '_'), join(root, entry)]))))
afterAll(async () => {
  rmSync(directory, { recursive: true, force: true })
  if (bundles !== undefined) (await bundles).remove()
})

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

/** Every module URL resolved when importing `entry` of src/ (bundled) in a fresh Node process. */
async function urlsLoadedBy(entry: string): Promise<string[]> {
  const log = join(directory, `${entry.replaceAll('/', '_')}.log`)
  writeFileSync(log, '')
  const script = `await import(${JSON.stringify(pathToFileURL((await bundled()).file(entry.replaceAll('/', '_'))).href)})`
  execFileSync(process.execPath, ['--import', join(directory, 'register.mjs'), '--input-type=module', '-e', script], {
    cwd: root,
    env: { ...process.env, RESOLVE_LOG: log },
    timeout: 30_000,
  })
  return readFileSync(log, 'utf8')
    .split('\n')
    .filter((url) => url !== '')
}

/** The node_modules packages loaded when importing `entry` of src/ (bundled) in a fresh Node process, or among `urls`. */
async function packagesLoadedBy(entry: string, urls?: readonly string[]): Promise<string[]> {
  const packages = new Set<string>()
  for (const url of urls ?? (await urlsLoadedBy(entry))) {
    const match = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url)
    // node_modules/.cache/ holds the bundles themselves.
    if (match && match[1] !== '.cache') packages.add(match[1]!)
  }
  return [...packages].sort()
}

describe('framework packages stay optional', () => {
  it('importing passcode-auth loads no web framework and nothing of OpenTelemetry', async () => {
    const loaded = await packagesLoadedBy('src/index.ts')
    expect(loaded).toContain('zod') // the hook does see package imports
    expect(loaded.filter((name) => FRAMEWORKS.includes(name))).toEqual([])
  })

  it('importing passcode-auth/memory loads no web framework', async () => {
    expect((await packagesLoadedBy('src/memory.ts')).filter((name) => FRAMEWORKS.includes(name))).toEqual([])
  })

  it('the Express and Koa entries import their framework for types only', async () => {
    expect((await packagesLoadedBy('src/express/index.ts')).filter((name) => FRAMEWORKS.includes(name))).toEqual([])
    expect((await packagesLoadedBy('src/koa/index.ts')).filter((name) => FRAMEWORKS.includes(name))).toEqual([])
  })

  it('the Fastify entry loads fastify-plugin and not fastify itself', async () => {
    expect((await packagesLoadedBy('src/fastify/index.ts')).filter((name) => FRAMEWORKS.includes(name))).toEqual(['fastify-plugin'])
  })

  it('the NestJS entry loads Nest itself, and neither platform nor framework: Express and Fastify are types only', async () => {
    const loaded = await packagesLoadedBy('src/nestjs/index.ts')
    expect(loaded).toEqual(expect.arrayContaining(['@nestjs/common', '@nestjs/core']))
    expect(loaded.filter((name) => FRAMEWORKS.includes(name) || name.startsWith('@nestjs/platform-') || name.startsWith('@fastify/'))).toEqual([])
  })

  it('the fetch and Hono entries import hono for types only, and no Node built-in module', async () => {
    for (const entry of ['src/fetch/index.ts', 'src/hono/index.ts']) {
      const urls = await urlsLoadedBy(entry)
      expect(
        (await packagesLoadedBy(entry, urls)).filter((name) => FRAMEWORKS.includes(name)),
        entry,
      ).toEqual([])
      expect(
        urls.filter((url) => url.startsWith('node:')),
        entry,
      ).toEqual([])
    }
  })
})
