import { execFile, spawn, type ChildProcess } from 'node:child_process'
import { createHash } from 'node:crypto'
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { build } from 'esbuild'
import { expect } from 'vitest'
import { NEW_DATABASE_SETTINGS } from '../../src/cli/data-folder'
import { buildOnce } from './build-once'
import { forNode } from './node-bundle'
import { NODE_FLAGS } from './node-flags'

/**
 * The `passcode-auth` command as a child process, with an environment cleaned of the
 * caller's settings (CI may set DATABASE_URL for other suites). The command is
 * src/cli/index.ts bundled with esbuild, as tsup bundles it into dist/cli.js (no
 * build of the package needed): loading TypeScript through tsx would cost each
 * process most of a second of CPU. `npm start` in first-start.test.ts runs the
 * sources through tsx, as a newcomer does. Nothing here runs the command in the test
 * process (that is test/cli/cli-process.ts), so a file that imports only this changes
 * nothing process-wide.
 */

export const root = path.resolve(import.meta.dirname, '../..')
const entry = path.join(root, 'src/cli/index.ts')
const cache = path.join(root, 'node_modules/.cache/passcode-auth-cli')

let bundled: Promise<string> | undefined

/** The bundled command's entry file, built once per test file from the current sources. */
export function commandFile(): Promise<string> {
  bundled ??= (async () => {
    const result = await build({
      ...forNode,
      entryPoints: { cli: entry },
      outdir: 'out',
      write: false,
      logLevel: 'silent',
    })
    const hash = createHash('sha256')
    for (const file of result.outputFiles) hash.update(file.path).update(file.contents)
    const dir = path.join(cache, `bundle-${hash.digest('hex').slice(0, 16)}`)
    if (!existsSync(dir)) {
      mkdirSync(cache, { recursive: true })
      const building = mkdtempSync(path.join(cache, 'bundling-'))
      const outdir = path.resolve('out')
      for (const file of result.outputFiles) writeFileSync(path.join(building, path.relative(outdir, file.path)), file.contents)
      try {
        renameSync(building, dir)
      } catch {
        rmSync(building, { recursive: true, force: true })
      }
    }
    return path.join(dir, 'cli.js')
  })()
  return bundled
}

/** What a finished command left behind. */
export interface CliRun {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
}

/** The environment of the test process without any setting the command reads. */
export function cleanEnv(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {}
  for (const [name, value] of Object.entries(process.env)) {
    if (name === 'DATABASE_URL' || name === 'PORT' || name.startsWith('PASSCODE_AUTH_')) continue
    env[name] = value
  }
  for (const [name, value] of Object.entries(extra)) if (value !== undefined) env[name] = value
  return env
}

/** Options of {@link cli} and {@link cliProcess}. */
export interface CliOptions {
  /** `PASSCODE_AUTH_DATA_DIR`. */
  readonly dataDir?: string
  /** More environment; `undefined` leaves a name out. */
  readonly env?: Record<string, string | undefined>
}

/**
 * Runs `passcode-auth <args>` to completion as a child process (the bundled command);
 * with `umask`, started under that umask (through `sh`, which then becomes the command).
 */
export function cliProcess(args: readonly string[], options: CliOptions & { umask?: string } = {}): Promise<CliRun> {
  const env = cliEnv(options)
  return commandFile().then(
    (file) =>
      new Promise((resolve) => {
        const [command, ...commandArgs] = underUmask([process.execPath, ...NODE_FLAGS, file, ...args], options.umask)
        execFile(command!, commandArgs, { cwd: root, env, timeout: 90_000 }, (error, stdout, stderr) => {
          const code = error === null ? 0 : typeof error.code === 'number' ? error.code : -1
          resolve({ code, stdout, stderr })
        })
      }),
  )
}

/** The environment of a command: a clean one ({@link cleanEnv}), with the data folder and `env` of `options`. */
export function cliEnv(options: CliOptions): NodeJS.ProcessEnv {
  return cleanEnv({ ...(options.dataDir !== undefined && { PASSCODE_AUTH_DATA_DIR: options.dataDir }), ...options.env })
}

/** A new temporary folder, removed by the returned function. */
export function temporaryFolder(prefix = 'passcode-auth-cli-'): { dir: string; remove(): void } {
  const dir = mkdtempSync(path.join(tmpdir(), prefix))
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) }
}

/**
 * A data folder that `migrate` has already initialised. Creating a PGlite database
 * costs seconds of CPU, so it is done once per migration set and PGlite version,
 * cached under node_modules/.cache, and copied for each test. The first start on an
 * empty folder is tested for real in first-start.test.ts.
 */
export async function migratedDataFolder(): Promise<{ dir: string; remove(): void }> {
  const template = await migratedTemplate()
  const copy = temporaryFolder()
  cpSync(template, copy.dir, { recursive: true })
  return copy
}

/**
 * A migrated data folder that still owes the demo, as after a first start that could
 * not listen (src/cli/server/demo.ts): its `serve` seeds the demo account and prints
 * the curl line, as on a new folder, without the seconds of creating a database. The
 * first start itself is tested in first-start.test.ts and data-folder.test.ts.
 */
export async function demoOwingDataFolder(): Promise<{ dir: string; remove(): void }> {
  const folder = await migratedDataFolder()
  writeFileSync(path.join(folder.dir, 'demo-pending'), '', { mode: 0o600 })
  return folder
}

let templateBuilt: Promise<string> | undefined

/**
 * The cached template's folder, built once for all test files (see {@link buildOnce}):
 * the data folder a first `passcode-auth migrate` makes. Its `pgdata/` is also the
 * migrated, empty database the soak harness seeds (test/soak/soak-smoke.test.ts).
 */
export function migratedTemplate(): Promise<string> {
  templateBuilt ??= (async () => {
    const fingerprint = createHash('sha256')
      .update(readFileSync(path.join(root, 'src/stores/postgres/migrations.ts')))
      .update(readFileSync(path.join(root, 'node_modules/@electric-sql/pglite/package.json')))
      .update(NEW_DATABASE_SETTINGS.join(' '))
      .digest('hex')
      .slice(0, 16)
    const template = path.join(cache, `data-${fingerprint}`)
    mkdirSync(cache, { recursive: true })
    await buildOnce(template, async (building) => {
      // Made by the command itself, as a first `passcode-auth migrate` makes a data folder.
      const result = await cliProcess(['migrate'], { dataDir: building })
      if (result.code !== 0) throw new Error(`migrate failed: ${result.stderr}`)
    })
    return template
  })()
  return templateBuilt
}

/** A running `serve`: a process ({@link RunningServer}) or in the test process (`serveInProcess` of test/cli/cli-process.ts). */
export interface ServeUnderTest {
  /** The base URL it printed. */
  readonly url: string
  stdout(): string
  stderr(): string
  /** Stops it as `signal` would (SIGTERM by default) and resolves its exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>
}

/** A running `serve` (or `npm start`) process. */
export interface RunningServer extends ServeUnderTest {
  readonly child: ChildProcess
  /**
   * Sends a signal and resolves the exit code: to `pid` when given (the server under
   * `npm start`, so that npm reports how it ended), else to the whole process group.
   */
  stop(signal?: NodeJS.Signals, pid?: number): Promise<number | null>
}

/** Whether a server's stdout says it is ready: "Stop with Ctrl+C.", or with `--json` its whole document. */
const isReady = (stdout: string): boolean => stdout.includes('Stop with Ctrl+C.') || /^\{\n {2}"status": "listening"[^]*\n\}\n/.test(stdout)

/**
 * Starts a server command in its own process group (in `cwd`, the repository by
 * default) and resolves once it printed "Stop with Ctrl+C." (with `--json`, its one
 * JSON document), or rejects with its output when it exits first.
 */
export function startServer(command: readonly string[], env: NodeJS.ProcessEnv, cwd = root): Promise<RunningServer> {
  const child = spawn(command[0]!, command.slice(1), { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => void (stdout += chunk))
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => void (stderr += chunk))
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      process.kill(-child.pid!, 'SIGKILL')
      reject(new Error(`server did not start in time:\n${stdout}\n${stderr}`))
    }, 90_000)
    const onData = () => {
      if (!isReady(stdout)) return
      clearTimeout(timer)
      child.stdout.off('data', onData)
      const url = /listening on (http:\/\/\S+)/.exec(stdout)?.[1] ?? /^ {2}"url": "(http:\/\/[^"]+)"/m.exec(stdout)?.[1] ?? ''
      resolve({
        child,
        url,
        stdout: () => stdout,
        stderr: () => stderr,
        async stop(signal = 'SIGTERM', pid) {
          if (child.exitCode === null && child.signalCode === null) process.kill(pid ?? -child.pid!, signal)
          return exited
        },
      })
    }
    child.stdout.on('data', onData)
    void exited.then(() => {
      clearTimeout(timer)
      reject(new Error(`server exited before it was ready:\n${stdout}\n${stderr}`))
    })
  })
}

/**
 * `passcode-auth serve` on a data folder, on a free port; with `umask`, started under
 * that umask (through `sh`, which then becomes the server with `exec`).
 */
export async function serve(
  dataDir: string,
  args: readonly string[] = [],
  env: Record<string, string> = {},
  options: { umask?: string } = {},
): Promise<RunningServer> {
  const command = [process.execPath, ...NODE_FLAGS, await commandFile(), 'serve', '--port', '0', ...args]
  return startServer(underUmask(command, options.umask), cleanEnv({ PASSCODE_AUTH_DATA_DIR: dataDir, ...env }))
}

/** `command`, run under `umask` when given: through `sh`, which then becomes the command with `exec`. */
function underUmask(command: readonly string[], umask: string | undefined): readonly string[] {
  return umask === undefined ? command : ['/bin/sh', '-c', `umask ${umask} && exec "$0" "$@"`, ...command]
}

/** The request log lines of a server's stdout (JSON when stdout is not a terminal), parsed; the banner's lines left out. */
export function requestLog(stdout: string): Record<string, unknown>[] {
  return stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>)
}

/** The two credential headers of a `curl` line the server printed. */
export function headersOfCurlLine(line: string): { url: string; headers: Record<string, string> } {
  const headers = Object.fromEntries([...line.matchAll(/-H '([^:']+): ([^']*)'/g)].map((match) => [match[1]!, match[2]!]))
  const url = /'(http:\/\/[^']+)'\s*$/.exec(line)?.[1] ?? ''
  return { url, headers }
}

/**
 * What `serve` showed a person in `shown.txt` of its data folder (the demo's curl line,
 * the login link), where it writes them when its stderr is not a terminal, as under a
 * test (SPEC §5.35); waits up to 5 s for it to hold `needle`. '' when it never did.
 */
export async function shownText(dataDir: string, needle = ''): Promise<string> {
  const file = path.join(dataDir, 'shown.txt')
  for (let waited = 0; waited < 5_000; waited += 20) {
    const text = existsSync(file) ? readFileSync(file, 'utf8') : ''
    if (text !== '' && text.includes(needle)) return text
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  return ''
}

/** The `curl` line of a server's shown text ({@link shownText}). */
export const curlLineIn = (text: string): string =>
  text
    .split('\n')
    .find((line) => line.trim().startsWith('curl '))
    ?.trim() ?? ''

/** The one-time dashboard login link in a text. */
/**
 * The login link `dashboard link` made, read from the owner-only file whose path the
 * command printed (SPEC §5.35: a login token never goes to stdout or `--json`): from
 * its `--json` document or its human line. Checks the file is the owner's alone.
 */
export function linkMadeBy(run: CliRun): { url: string; expiresAt: string; file: string } {
  expect(run.code).toBe(0)
  expect(run.stdout).not.toContain('token=')
  const trimmed = run.stdout.trim()
  const answer = trimmed.startsWith('{')
    ? (JSON.parse(trimmed) as { file: string; expiresAt: string })
    : (() => {
        const human = /^The login link \(one use, until (\S+)\) is in (\S+)$/.exec(trimmed)
        expect(human, run.stdout).not.toBeNull()
        return { expiresAt: human![1]!, file: human![2]! }
      })()
  expect(statSync(answer.file).mode & 0o777).toBe(0o600)
  const url = readFileSync(answer.file, 'utf8').trim()
  expect(url).toMatch(/\/settings\/login\?token=[A-Za-z0-9_-]+$/)
  return { url, expiresAt: answer.expiresAt, file: answer.file }
}

export const loginLinkIn = (text: string): string => /(http:\/\/\S+\/settings\/login\?token=[A-Za-z0-9_-]+)/.exec(text)?.[1] ?? ''
