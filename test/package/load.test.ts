import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { declarationsFolder, entries } from '../../tsup.config'
import { generatePasscode } from '../../src/index'
import { extractTarball, packedPackages } from '../helpers/packed-tarball'

/**
 * The package as a user gets it, loaded by name: once with `import` (ESM) and once
 * with `require` (CommonJS, which needs Node's require(esm) for the ESM-only jose
 * and @noble/hashes), for every subpath in package.json "exports".
 *
 * The package is the packed tarball of the working tree (test/helpers/packed-tarball.ts:
 * `npm pack`, whose `prepack` runs `npm run build` with tsup.config.ts, made once for
 * every test file that wants it), extracted into
 * node_modules/.cache/…/node_modules/passcode-auth/. That is an installed copy: Node
 * resolves it through "exports", and its own imports (jose, zod, @noble/hashes, peers)
 * through this repository's node_modules. The repository's dist/ is never touched, so
 * a concurrent `npm run build` can't interfere.
 */

const packageRoot = fileURLToPath(new URL('../..', import.meta.url))

type EntryName = keyof typeof entries

interface EntryExpectation {
  subpath: string
  entry: EntryName
  /** Names that must be exported. */
  names: readonly string[]
}

const expectations: readonly EntryExpectation[] = [
  {
    subpath: 'passcode-auth',
    entry: 'index',
    names: ['createPasscodeAuth', 'PASSCODE_PATTERN', 'passcodeStatus', 'PasscodeAuthError', 'nodeRequirePasscode', 'nodeConnectHandler'],
  },
  { subpath: 'passcode-auth/memory', entry: 'memory', names: ['memoryStore', 'memoryMailer'] },
  { subpath: 'passcode-auth/express', entry: 'express', names: ['requirePasscode', 'connectHandler', 'dashboard'] },
  { subpath: 'passcode-auth/fastify', entry: 'fastify', names: ['passcodeAuthPlugin', 'dashboardPlugin', 'PasscodeRefusedError'] },
  {
    subpath: 'passcode-auth/koa',
    entry: 'koa',
    names: ['requirePasscode', 'connectHandler', 'connectMiddleware', 'dashboard', 'PasscodeRefusedError'],
  },
  { subpath: 'passcode-auth/client', entry: 'client', names: ['createConnectClient'] },
  { subpath: 'passcode-auth/postgres', entry: 'postgres', names: ['postgresStore', 'migrate'] },
  { subpath: 'passcode-auth/smtp', entry: 'smtp', names: ['smtpMailer'] },
  {
    subpath: 'passcode-auth/dashboard',
    entry: 'dashboard',
    names: ['createDashboard', 'createManagementApi', 'isCrossSite', 'MANAGEMENT_ERROR_STATUS', 'nodeDashboard'],
  },
  { subpath: 'passcode-auth/fetch', entry: 'fetch', names: ['requirePasscode', 'connectHandler', 'dashboard'] },
  { subpath: 'passcode-auth/hono', entry: 'hono', names: ['requirePasscode', 'connectHandler', 'dashboard', 'PasscodeRefusedError'] },
  { subpath: 'passcode-auth/secretlint', entry: 'secretlint', names: ['creator'] },
  {
    subpath: 'passcode-auth/webhooks',
    entry: 'webhooks',
    names: ['WEBHOOK_EVENT_TYPES', 'WEBHOOK_TEST_EVENT', 'WebhookVerificationError', 'verifyWebhook'],
  },
  {
    subpath: 'passcode-auth/nestjs',
    entry: 'nestjs',
    names: [
      'PasscodeAuthModule',
      'PasscodeAuthGuard',
      'RequireScopes',
      'PasscodePrincipal',
      'PasscodeRefusedException',
      'PasscodeRefusedFilter',
      'connectHandler',
      'PASSCODE_AUTH',
    ],
  },
]

/**
 * Constructor arguments for the exported classes that need some to be built; every
 * other class is built with none. A class that can't be built fails its test, so a
 * new one that needs arguments gets its entry here.
 */
const constructorArguments: Readonly<Record<string, readonly unknown[]>> = {
  PasscodeRefusedError: [
    { ok: false, reason: 'invalid_credentials', statusCode: 400, body: { status: 'fail', error: 'Invalid Credentials', code: 400 } },
  ],
  UnexpectedResponseError: [{ status: 502, contentType: 'text/html', reason: 'status', bodyExcerpt: '' }],
  PasscodeRefusedException: [
    { ok: false, reason: 'invalid_credentials', statusCode: 400, body: { status: 'fail', error: 'Invalid Credentials', code: 400 } },
  ],
}

/** An exported class: the `name` of the class and of an instance (or why none could be built). */
interface ClassReport {
  readonly exportName: string
  readonly className: string
  readonly instanceName?: unknown
  readonly constructionError?: string
}

type LoadResult = { ok: true; names: string[]; classes: ClassReport[] } | { ok: false; error: string }
interface LoadReport {
  entries: Record<string, LoadResult>
  /** `subpath.name` for every name that a subpath and the root both export but as different objects. */
  notShared: string[]
  /** How many names were compared for `notShared`. */
  compared: number
}

/** Source of a script that loads every subpath and prints a {@link LoadReport} as JSON. */
function loaderScript(kind: 'import' | 'require'): string {
  const load = kind === 'import' ? 'await import(subpath)' : 'require(subpath)'
  return `
    const constructorArguments = ${JSON.stringify(constructorArguments)}
    const entries = {}, namespaces = {}, notShared = []
    let compared = 0
    for (const subpath of ${JSON.stringify(expectations.map((e) => e.subpath))}) {
      try {
        const namespace = ${load}
        namespaces[subpath] = namespace
        const classes = []
        for (const [exportName, value] of Object.entries(namespace)) {
          if (typeof value !== 'function' || !/^class[\\s{]/.test(Function.prototype.toString.call(value))) continue
          const report = { exportName, className: value.name }
          try {
            const instance = Reflect.construct(value, constructorArguments[exportName] || [])
            if (instance instanceof Error) report.instanceName = instance.name
          } catch (error) {
            report.constructionError = String(error)
          }
          classes.push(report)
        }
        entries[subpath] = { ok: true, names: Object.keys(namespace).sort(), classes }
      } catch (error) {
        entries[subpath] = { ok: false, error: String((error && error.stack) || error) }
      }
    }
    const root = namespaces['passcode-auth'] || {}
    for (const [subpath, namespace] of Object.entries(namespaces)) {
      if (subpath === 'passcode-auth') continue
      for (const name of Object.keys(namespace)) {
        if (name === 'default' || !(name in root)) continue
        compared++
        if (namespace[name] !== root[name]) notShared.push(subpath + '.' + name)
      }
    }
    process.stdout.write(JSON.stringify({ entries, notShared, compared }))
  `
}

let consumer: string
let installedDist: string
const reports: Partial<Record<'import' | 'require', LoadReport>> = {}

function run(kind: 'import' | 'require'): LoadReport {
  const script = loaderScript(kind)
  const args = kind === 'import' ? ['--input-type=module', '-e', script] : ['-e', script]
  const stdout = execFileSync(process.execPath, args, { cwd: consumer, encoding: 'utf8', timeout: 20_000 })
  return JSON.parse(stdout) as LoadReport
}

beforeAll(async () => {
  const { library } = await packedPackages()
  const cache = join(packageRoot, 'node_modules', '.cache')
  mkdirSync(cache, { recursive: true })
  consumer = mkdtempSync(join(cache, 'passcode-auth-consumer-'))
  const modules = join(consumer, 'node_modules')
  mkdirSync(modules)
  const installed = join(modules, 'passcode-auth')
  renameSync(await extractTarball(library, modules), installed)
  installedDist = join(installed, 'dist')
  reports.import = run('import')
  reports.require = run('require')
}, 900_000)

afterAll(() => {
  if (consumer) rmSync(consumer, { recursive: true, force: true })
})

describe('package.json', () => {
  const manifest = JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')) as {
    exports: Record<string, unknown>
  }

  it('exports exactly the tsup entries, plus ./package.json', () => {
    const subpaths = Object.keys(entries).map((name) => (name === 'index' ? '.' : `./${name}`))
    expect(Object.keys(manifest.exports).sort()).toEqual([...subpaths, './package.json'].sort())
  })

  it('lists every entry in this test', () => {
    expect(expectations.map((e) => e.entry).sort()).toEqual(Object.keys(entries).sort())
  })

  it.each(Object.keys(entries))('maps %s to dist files, types first', (name) => {
    const conditions = manifest.exports[name === 'index' ? '.' : `./${name}`] as Record<'import' | 'require', object>
    expect(conditions).toEqual({
      import: { types: `./dist/${name}.d.ts`, default: `./dist/${name}.js` },
      require: { types: `./dist/${name}.d.cts`, default: `./dist/${name}.cjs` },
    })
    expect(Object.keys(conditions.import)[0]).toBe('types')
    expect(Object.keys(conditions.require)[0]).toBe('types')
  })
})

describe('entry list in tsup.config.ts', () => {
  const readJson = (file: string): unknown => JSON.parse(readFileSync(join(packageRoot, file), 'utf8'))

  it('is mirrored by tsconfig.json "paths" (package names resolve to src/ in tests)', () => {
    const { compilerOptions } = readJson('tsconfig.json') as { compilerOptions: { paths: Record<string, string[]> } }
    const expected = Object.fromEntries(
      Object.entries(entries).map(([name, source]) => [name === 'index' ? 'passcode-auth' : `passcode-auth/${name}`, [`./${source}`]]),
    )
    expect(compilerOptions.paths).toEqual(expected)
  })

  // `npm run build` emits declarations with tsc for these files only, then bundles them per entry.
  it('is mirrored by tsconfig.build.json "files", which emits into the folder the dts step reads', () => {
    const { files, include, compilerOptions } = readJson('tsconfig.build.json') as {
      files: string[]
      include: string[]
      compilerOptions: { rootDir: string; outDir: string }
    }
    expect([...files].sort()).toEqual(Object.values(entries).sort())
    expect(include).toEqual([])
    expect(compilerOptions).toMatchObject({ rootDir: 'src', outDir: declarationsFolder })
  })

  it('is mirrored by typedoc.json "entryPoints"', () => {
    const { entryPoints } = readJson('typedoc.json') as { entryPoints: string[] }
    expect([...entryPoints].sort()).toEqual(Object.values(entries).sort())
  })

  // The API reference names each module by the path users import, not by its source folder.
  it.each(Object.entries(entries))('gives %s its import path as its @module name', (name, source) => {
    const importPath = name === 'index' ? 'passcode-auth' : `passcode-auth/${name}`
    const header = /^\/\*\*[\s\S]*?\*\//.exec(readFileSync(join(packageRoot, source), 'utf8'))?.[0] ?? ''
    expect(header).toMatch(new RegExp(`^ \\* @module ${importPath.replace('/', '\\/')}$`, 'm'))
  })
})

describe.each(['import', 'require'] as const)('%s', (kind) => {
  it.each(expectations)('loads $subpath', ({ subpath, names }) => {
    const result = reports[kind]?.entries[subpath]
    expect(result, `no result for ${subpath}`).toBeDefined()
    if (!result?.ok) throw new Error(`${kind}('${subpath}') failed:\n${result?.error}`)
    expect(result.names).toEqual(expect.arrayContaining([...names]))
  })
})

describe.each(['import', 'require'] as const)('%s, class names', (kind) => {
  // tsup's CommonJS output used to turn `class X { field = 1 }` into `_class`, so
  // `error.name` and `console.log(error)` showed `_class`.
  it.each(expectations)('every class exported by $subpath is named as exported, and so are its errors', ({ subpath }) => {
    const result = reports[kind]?.entries[subpath]
    if (!result?.ok) throw new Error(`${kind}('${subpath}') failed`)
    for (const report of result.classes) {
      expect(report.constructionError, `new ${report.exportName}()`).toBeUndefined()
      expect(report.className, `${report.exportName}.name`).toBe(report.exportName)
      if ('instanceName' in report) expect(report.instanceName, `new ${report.exportName}().name`).toBe(report.exportName)
    }
  })

  it('finds the classes to check', () => {
    const classes = Object.values(reports[kind]?.entries ?? {}).flatMap((result) => (result.ok ? result.classes : []))
    const names = new Set(classes.map((report) => report.exportName))
    for (const name of ['PasscodeAuthError', 'InvalidCredentialsError', 'PasscodeRefusedError', 'IssuedPasscode', 'MailerError']) {
      expect(names).toContain(name)
    }
    expect(classes.filter((report) => 'instanceName' in report).length).toBeGreaterThan(25)
  })
})

describe.each(['import', 'require'] as const)('%s, shared modules', (kind) => {
  // e.g. passcode-auth/smtp re-exports MailerError: it must be the root's class, or
  // `instanceof` fails for errors thrown by one entry point and caught with another.
  it('gives every name exported by a subpath and by the root one identity', () => {
    const report = reports[kind]
    expect(report?.compared).toBeGreaterThan(0)
    expect(report?.notShared).toEqual([])
  })
})

describe('shared modules', () => {
  // `instanceof PasscodeAuthError` must hold for an error thrown by any entry point,
  // so the class is defined in one shared chunk per format, never copied per entry.
  it.each([
    ['ESM', '.js'],
    ['CJS', '.cjs'],
  ])('%s defines PasscodeAuthError exactly once', (_format, extension) => {
    const definition = /\bclass PasscodeAuthError\b|\bPasscodeAuthError = class\b/g
    const files = readdirSync(installedDist).filter((file) => file.endsWith(extension))
    const count = files.reduce((sum, file) => sum + (readFileSync(join(installedDist, file), 'utf8').match(definition)?.length ?? 0), 0)
    expect(count).toBe(1)
  })
})

describe('the secretlint command, with passcode-auth/secretlint in .secretlintrc.json', () => {
  // secretlint loads a rule by name from its own folder (`require.resolve` in
  // @secretlint/resolver), as it finds a rule installed beside it. Here secretlint is
  // this repository's, whose node_modules holds the repository itself as `passcode-auth`
  // (the root is an npm workspace), source without a build; so a resolve hook of
  // secretlint's own (`registerResolveHook`) resolves rules from the user's project first,
  // where the built package is installed, as if secretlint were installed beside it.
  const secretlint = (args: readonly string[]) => {
    const project = join(consumer, 'project')
    const hook = join(consumer, 'resolve-from-project.mjs')
    writeFileSync(
      hook,
      [
        "import { createRequire } from 'node:module'",
        "import { registerResolveHook } from '@secretlint/resolver'",
        `const fromProject = createRequire(${JSON.stringify(join(project, 'package.json'))})`,
        'registerResolveHook((name) => {',
        '  try {',
        '    return { url: fromProject.resolve(name) }',
        '  } catch {',
        '    return undefined',
        '  }',
        '})',
        '',
      ].join('\n'),
    )
    try {
      const stdout = execFileSync(
        process.execPath,
        ['--import', pathToFileURL(hook).href, join(packageRoot, 'node_modules', 'secretlint', 'bin', 'secretlint.js'), ...args],
        {
          cwd: project,
          encoding: 'utf8',
          timeout: 20_000,
        },
      )
      return { status: 0, stdout }
    } catch (error) {
      const { status, stdout, stderr } = error as { status: number; stdout: string; stderr: string }
      return { status, stdout: stdout + stderr }
    }
  }

  it('reports the passcodes of the configured prefix with their line and column, never their value', () => {
    const project = join(consumer, 'project')
    mkdirSync(project, { recursive: true })
    const [psc, acme] = [generatePasscode(), generatePasscode({ prefix: 'acme' })]
    const lookAlike = psc.slice(0, -1) + (psc.endsWith('A') ? 'B' : 'A')
    writeFileSync(join(project, 'config.yaml'), `service:\n  passcode: ${psc}\n  old: ${lookAlike}\n`)
    writeFileSync(join(project, '.env'), `API_PASSCODE=${acme}\n`)
    writeFileSync(
      join(project, '.secretlintrc.json'),
      JSON.stringify({ rules: [{ id: 'passcode-auth/secretlint', options: { prefix: ['psc', 'acme'] } }] }),
    )
    // Unmasked, to show that the message itself holds no value.
    const result = secretlint(['--no-color', '--no-terminalLink', '--no-maskSecrets', 'config.yaml', '.env'])
    expect(result.status, result.stdout).toBe(1)
    expect(result.stdout).toMatch(/config\.yaml\n\s+2:12\s+error\s+\[PASSCODE\] found a passcode-auth passcode \(psc_…\): revoke/)
    expect(result.stdout).toMatch(/\.env\n\s+1:13\s+error\s+\[PASSCODE\] found a passcode-auth passcode \(acme_…\): revoke/)
    expect(result.stdout.match(/ error /g)).toHaveLength(2)
    for (const value of [psc, acme, lookAlike]) expect(result.stdout).not.toContain(value.slice(-12))

    writeFileSync(join(project, '.secretlintrc.json'), JSON.stringify({ rules: [{ id: 'passcode-auth/secretlint' }] }))
    const defaults = secretlint(['--no-color', '--no-terminalLink', 'config.yaml', '.env'])
    expect(defaults.stdout.match(/ error /g)).toHaveLength(1)
  })
})
