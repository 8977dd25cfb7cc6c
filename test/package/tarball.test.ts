import { execFile } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync } from 'node:fs'
import path from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { isAlive } from '../../src/cli/data-folder'
import { cleanEnv, curlLineIn, headersOfCurlLine, shownText, startServer, temporaryFolder, type RunningServer } from '../helpers/cli-command'
import { cleanNpmEnvironment, extractTarball, packedPackages, repositoryRoot, type PackedTarball } from '../helpers/packed-tarball'
import { commandAvailability } from '../helpers/requirement'

/**
 * `npm pack` on a fresh clone after `npm ci` (no build run by hand) gives a package
 * that holds every file its package.json points at.
 */

const run = promisify(execFile)
const SUCCESS = '{"status":"success","message":"Authorised Successfully."}'
const curl = commandAvailability('curl')

let tarball: PackedTarball | undefined
/** This file's own folder: what it extracts, and the consumer's project. */
let scratch: { dir: string; remove(): void }

beforeAll(async () => {
  scratch = temporaryFolder('passcode-auth-tarball-')
  tarball = (await packedPackages()).library
}, 900_000)

afterAll(() => scratch?.remove())

/**
 * Whether process `pid` runs: it exists and is not a zombie. An orphan's new parent (init,
 * or a container's first process) may be slow to reap it, or never do.
 */
function runs(pid: number): boolean {
  if (!isAlive(pid)) return false
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ').at(-1)?.[0] !== 'Z'
  } catch {
    return isAlive(pid) // no /proc (not Linux), or gone meanwhile
  }
}

/** Every string inside an `exports` value (conditions nest). */
function exportTargets(value: unknown): string[] {
  if (typeof value === 'string') return [value]
  if (value !== null && typeof value === 'object') return Object.values(value).flatMap(exportTargets)
  return []
}

/** `./dist/x.js` → `dist/x.js`. */
const packagePath = (target: string): string => path.posix.normalize(target)

describe('npm pack on a fresh clone', () => {
  const repositoryManifest = JSON.parse(readFileSync(path.join(repositoryRoot, 'package.json'), 'utf8')) as {
    main: string
    module: string
    types: string
    bin: Record<string, string>
    exports: Record<string, unknown>
    files: string[]
    license: string
  }
  const packed = (): Set<string> => new Set(tarball?.entries.map((entry) => entry.path))

  it('ships the package.json of the repository', () => {
    expect(tarball?.manifest).toEqual(repositoryManifest)
  })

  it.each(Object.entries(repositoryManifest.exports))('holds every file of exports["%s"]', (_subpath, conditions) => {
    const targets = exportTargets(conditions).map(packagePath)
    expect(targets.length).toBeGreaterThan(0)
    expect(targets.filter((target) => !packed().has(target))).toEqual([])
  })

  it.each(['main', 'module', 'types'] as const)('holds the "%s" file', (field) => {
    expect(packed()).toContain(packagePath(repositoryManifest[field]))
  })

  it.each(Object.entries(repositoryManifest.bin))('holds the "%s" command, executable', (_name, target) => {
    const entry = tarball?.entries.find((candidate) => candidate.path === packagePath(target))
    expect(entry, `${target} is not in the tarball`).toBeDefined()
    expect(entry!.mode & 0o111).toBe(0o111)
  })

  it('holds every entry of "files", and nothing else but the README, LICENSE and package.json', () => {
    const paths = [...packed()]
    for (const entry of repositoryManifest.files) {
      expect(
        paths.some((file) => file === entry || file.startsWith(`${entry}/`)),
        `"files" names ${entry}`,
      ).toBe(true)
    }
    const outside = paths.filter((file) => !repositoryManifest.files.some((entry) => file === entry || file.startsWith(`${entry}/`)))
    expect(outside.sort()).toEqual(['LICENSE', 'README.md', 'package.json'])
  })

  it('ships no source maps, and no file points at one', async () => {
    expect([...packed()].filter((file) => file.endsWith('.map'))).toEqual([])
    const dist = path.join(await extractTarball(tarball!, scratch.dir, ['dist']), 'dist')
    const pointing = readdirSync(dist).filter((file) => readFileSync(path.join(dist, file), 'utf8').includes('sourceMappingURL'))
    expect(pointing).toEqual([])
  })

  it('holds the LICENSE of the repository, the license package.json names', async () => {
    expect(repositoryManifest.license).toBe('MIT')
    const shipped = readFileSync(path.join(await extractTarball(tarball!, scratch.dir, ['LICENSE']), 'LICENSE'), 'utf8')
    expect(shipped).toBe(readFileSync(path.join(repositoryRoot, 'LICENSE'), 'utf8'))
    expect(shipped).toMatch(/^MIT License\n\nCopyright \(c\) \d{4} passcode-auth contributors\n/)
  })
})

/**
 * What a new user does, as README.md says: `npm install passcode-auth @electric-sql/pglite`
 * in an empty folder, then `npx passcode-auth serve`, then pastes the printed curl line.
 * Without PGlite (its folder moved out of node_modules for that case, as if never
 * installed) the command must say what to install and leave no data folder behind.
 */
describe('npx passcode-auth serve from the tarball, in an empty folder', () => {
  let consumer: string
  let server: RunningServer | undefined
  const npm = (args: readonly string[]) =>
    run('npm', [...args, '--no-audit', '--no-fund', '--prefer-offline'], { cwd: consumer, env: cleanNpmEnvironment(), timeout: 300_000 })
  const npx = (args: readonly string[]) => ['npx', '--no-install', 'passcode-auth', ...args]
  const environment = () => cleanEnv(cleanNpmEnvironment())
  const dataDir = () => path.join(consumer, 'data')

  beforeAll(async () => {
    consumer = path.join(scratch.dir, 'consumer')
    mkdirSync(consumer)
    const pglite = JSON.parse(readFileSync(path.join(repositoryRoot, 'package.json'), 'utf8')).devDependencies['@electric-sql/pglite'] as string
    await npm(['install', tarball!.file, `@electric-sql/pglite@${pglite}`])
  }, 600_000)

  afterAll(async () => {
    // The whole process group: npx, npm's shell and the server, also once npx is gone.
    try {
      if (server !== undefined) process.kill(-server.child.pid!, 'SIGKILL')
    } catch {
      // None of them is left.
    }
  })

  it('without @electric-sql/pglite, says what to install and writes nothing', async () => {
    const installed = path.join(consumer, 'node_modules', '@electric-sql', 'pglite')
    const aside = path.join(scratch.dir, 'pglite-aside')
    const [command, ...args] = npx(['serve', '--data-dir', dataDir(), '--port', '0'])
    renameSync(installed, aside)
    const result = await run(command!, args, { cwd: consumer, env: environment(), timeout: 120_000 })
      .then(
        () => ({ code: 0, stderr: '' }),
        (error: unknown) => {
          const { code, stderr } = error as { code?: number; stderr?: string }
          return { code, stderr: stderr ?? '' }
        },
      )
      .finally(() => renameSync(aside, installed))
    expect(result.code).toBe(5)
    expect(result.stderr).toContain('npm install @electric-sql/pglite')
    expect(existsSync(dataDir())).toBe(false)
  }, 120_000)

  it(`with it, starts on an empty data folder and prints a curl line that works${curl.skip ? ' (curl is not installed: the line is sent with fetch)' : ''}`, async () => {
    server = await startServer(npx(['serve', '--data-dir', dataDir(), '--port', '0']), environment(), consumer)
    // stderr is a pipe, not a terminal: the curl line is in the data folder's shown.txt.
    const curlLine = curlLineIn(await shownText(dataDir(), 'curl '))
    expect(curlLine).toMatch(
      /^curl -i -H 'X-Service-Account-Id: acc_demo' -H 'X-Service-Passcode: psc_[A-Za-z0-9]+' 'http:\/\/127\.0\.0\.1:\d+\/v1\/connect\?partner=demo-partner'$/,
    )
    if (curl.skip) {
      // No curl here (CI installs it): the same request through fetch.
      const { url, headers } = headersOfCurlLine(curlLine)
      const response = await fetch(url, { headers })
      expect([response.status, await response.text()]).toEqual([200, SUCCESS])
    } else {
      const { stdout } = await run('sh', ['-c', `${curlLine} --silent --show-error`], { cwd: consumer })
      expect(stdout).toMatch(/^HTTP\/1\.1 200 OK\r\n/)
      expect(stdout.endsWith(`\r\n\r\n${SUCCESS}`)).toBe(true)
    }
  }, 600_000)

  it('stops cleanly on a SIGTERM to npx, which does not pass it on (as `docker stop` or a supervisor sends it)', async () => {
    // Runs after the case above, on the server it started.
    const running = server!
    const lock = path.join(dataDir(), 'lock')
    // The lock names the server process: npx's grandchild, through npm's `sh -c`.
    const { pid } = JSON.parse(readFileSync(lock, 'utf8')) as { pid: number }
    expect(pid).not.toBe(running.child.pid)
    expect(await running.stop('SIGTERM', running.child.pid)).toBeNull() // npx ends at once, by the signal
    // The server notices that npm's shell is gone and shuts down as on SIGTERM: it
    // releases the data folder and exits, well within 20 s (it checks every 250 ms).
    const deadline = Date.now() + 20_000
    while ((runs(pid) || !running.stdout().includes('Stopped.')) && Date.now() < deadline) await sleep(100)
    expect(runs(pid)).toBe(false)
    expect(running.stdout()).toContain('npm exited: shutting down…')
    expect(running.stdout()).toContain('Stopped.')
    expect(existsSync(lock)).toBe(false)
    server = undefined
  }, 60_000)
})
