import { execFile } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { bundleClient, CLIENT_BUNDLE_BUDGET_BYTES, type ClientBundle } from '../../scripts/client-bundle-size'
import * as source from '../../src/client/index'
import { temporaryFolder } from '../helpers/cli-command'
import { CLIENT_WORKSPACE, extractTarball, packedPackages, repositoryRoot, type PackedTarball } from '../helpers/packed-tarball'
import { ts } from '../helpers/typescript'

/**
 * The partner client on its own: the workspace packages/connect-client, published as
 * `@passcode-auth/client`, packed as `npm publish` would pack it (its `prepack` builds it
 * from src/client). It has no dependency of any kind, ships its README and LICENSE, holds
 * no source of its own (src/client is the one source of `passcode-auth/client` and of
 * it), exports what `passcode-auth/client` exports and answers as it does, and, bundled
 * for a browser as a partner's app bundles it, stays within 8 KB gzipped with no import
 * left and no Node-only API.
 */

const run = promisify(execFile)
let tarball: PackedTarball
let library: PackedTarball
let scratch: { dir: string; remove(): void }
/** The extracted package. */
let unpacked: string
let bundle: ClientBundle

beforeAll(async () => {
  ;({ client: tarball, library } = await packedPackages())
  scratch = temporaryFolder('passcode-auth-client-package-')
  unpacked = await extractTarball(tarball, scratch.dir)
  bundle = await bundleClient(path.join(unpacked, 'dist/index.js'))
}, 900_000)

afterAll(() => scratch?.remove())

describe('@passcode-auth/client, packed', () => {
  it('is the library’s client under its own name and version, with no dependency of any kind', () => {
    const manifest = tarball.manifest
    expect(manifest).toMatchObject({
      name: '@passcode-auth/client',
      version: library.manifest.version,
      license: 'MIT',
      type: 'module',
      sideEffects: false,
    })
    for (const field of ['dependencies', 'peerDependencies', 'optionalDependencies', 'bundleDependencies', 'bundledDependencies'])
      expect(manifest[field], field).toBeUndefined()
    // Scoped packages are private on npm unless published as public.
    expect(manifest.publishConfig).toEqual({ access: 'public' })
  })

  it('holds its build, README, LICENSE and package.json, and nothing else', () => {
    expect(tarball.entries.map((entry) => entry.path).sort()).toEqual([
      'LICENSE',
      'README.md',
      'dist/index.cjs',
      'dist/index.d.cts',
      'dist/index.d.ts',
      'dist/index.js',
      'package.json',
    ])
    expect(readFileSync(path.join(unpacked, 'LICENSE'), 'utf8')).toBe(readFileSync(path.join(repositoryRoot, 'LICENSE'), 'utf8'))
  })

  it('is built from src/client: the workspace holds no source of its own', async () => {
    const { stdout } = await run('git', ['ls-files', '--cached', '--others', '--exclude-standard', CLIENT_WORKSPACE], { cwd: repositoryRoot })
    // CHANGELOG.md is what `changeset version` writes for the package.
    expect(stdout.split('\n').filter(Boolean).sort()).toEqual(
      ['CHANGELOG.md', 'LICENSE', 'README.md', 'package.json'].map((file) => `${CLIENT_WORKSPACE}/${file}`),
    )
    const workspace = JSON.parse(readFileSync(path.join(repositoryRoot, CLIENT_WORKSPACE, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>
    }
    expect(workspace.scripts.build).toMatch(/^tsup \.\.\/\.\.\/src\/client\/index\.ts /)
    expect(workspace.scripts.prepack).toBe('npm run build')
  })

  it('exports the values and types passcode-auth/client exports, from ES modules and CommonJS', async () => {
    const values = Object.keys(source).sort()
    const esm = (await import(pathToFileURL(path.join(unpacked, 'dist/index.js')).href)) as Record<string, unknown>
    expect(Object.keys(esm).sort()).toEqual(values)
    const cjs = createRequire(import.meta.url)(path.join(unpacked, 'dist/index.cjs')) as Record<string, unknown>
    expect(Object.keys(cjs).sort()).toEqual(values)
    const exported = (file: string) => {
      const module = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest)
      return module.statements
        .filter(ts.isExportDeclaration)
        .flatMap((statement) =>
          statement.exportClause !== undefined && ts.isNamedExports(statement.exportClause) ? statement.exportClause.elements : [],
        )
        .map((element) => element.name.text)
        .sort()
    }
    const types = exported(path.join(repositoryRoot, 'src/client/index.ts'))
    expect(types.length).toBeGreaterThan(values.length)
    expect(exported(path.join(unpacked, 'dist/index.d.ts'))).toEqual(types)
    expect(exported(path.join(unpacked, 'dist/index.d.cts'))).toEqual(types)
  })

  it('answers as passcode-auth/client does', async () => {
    const packed = (await import(pathToFileURL(path.join(unpacked, 'dist/index.js')).href)) as typeof source
    const answers = async (client: typeof source) => {
      const results = []
      for (const [status, body] of [
        [200, { status: 'success', message: 'Authorised Successfully.' }],
        [403, { status: 'fail', error: 'Partner not whitelisted globex', code: 403 }],
        [400, { status: 'fail', error: 'Invalid Credentials', code: 400 }],
      ] as const) {
        const fetch = async () => Response.json(body, { status })
        const result = await client
          .createConnectClient({ baseUrl: 'https://api.example.com', accountId: 'acc_1', passcode: 'pass', partner: 'globex', fetch })
          .check()
        results.push(result.ok ? result : { code: result.code, name: result.error.name, instance: result.error instanceof client.ConnectError })
      }
      return results
    }
    const expected = await answers(source)
    expect(expected.map((result) => ('code' in result ? result.code : 'ok'))).toEqual([
      'ok',
      'ERR_PARTNER_NOT_WHITELISTED',
      'ERR_INVALID_CREDENTIALS',
    ])
    expect(await answers(packed)).toEqual(expected)
  })

  it(`bundled for a browser, is at most ${CLIENT_BUNDLE_BUDGET_BYTES} bytes gzipped, imports nothing and uses no Node-only API`, () => {
    expect(bundle.externalImports).toEqual([])
    expect(bundle.gzippedBytes).toBeLessThanOrEqual(CLIENT_BUNDLE_BUDGET_BYTES)
    expect(bundle.code).not.toMatch(/\bnode:/)
    expect(bundle.code).not.toMatch(/\brequire\s*\(/)
    expect(bundle.code).not.toMatch(/\bprocess\b/)
    expect(bundle.code).not.toMatch(/\bBuffer\b/)
    expect(bundle.code).not.toMatch(/\b(?:setImmediate|__dirname|__filename|global)\b/)
  })
})
