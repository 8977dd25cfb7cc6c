import { execFile, execFileSync, spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/**
 * PostgreSQL for tests: `DATABASE_URL` when set, or else a throw-away cluster made
 * with the installed binaries (initdb + pg_ctl) on a free port in a temp folder,
 * removed afterwards. {@link postgresAvailability} decides synchronously, at test
 * collection, so that a suite without either is reported as skipped with the reason.
 */

/** Whether PostgreSQL tests can run here, and how. */
export type PostgresAvailability =
  | { readonly available: true; readonly source: 'DATABASE_URL' }
  | { readonly available: true; readonly source: 'binaries'; readonly binDir: string; readonly runAs?: { uid: number; gid: number } }
  | { readonly available: false; readonly reason: string }

/** A running server for one test file. */
export interface TestPostgres {
  readonly connectionString: string
  /** Stops and removes a temporary cluster; does nothing for `DATABASE_URL`. */
  stop(): Promise<void>
  /**
   * Temporary cluster only (absent for `DATABASE_URL`): shuts the server down and keeps
   * its data, for outage tests. `fast` ends sessions cleanly, `immediate` like a crash.
   * Runs asynchronously, so the test's own servers keep answering meanwhile.
   */
  readonly stopServer?: (mode?: 'fast' | 'immediate') => Promise<void>
  /** Temporary cluster only: starts it again on the same port after {@link stopServer}. */
  readonly startServer?: () => Promise<void>
  /** Temporary cluster only: the folder that holds it (its data, socket and log). */
  readonly folder?: string
}

function runAsync(file: string, args: string[], options: { cwd: string; uid?: number; gid?: number }): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(file, args, { ...options, timeout: 60_000 }, (error: Error | null) => (error ? reject(error) : resolve()))
  })
}

function findBinDir(): string | undefined {
  const fromEnv = process.env.PG_BIN_DIR
  if (fromEnv !== undefined && existsSync(join(fromEnv, 'initdb'))) return fromEnv
  const root = '/usr/lib/postgresql'
  if (existsSync(root)) {
    const versions = readdirSync(root)
      .filter((version) => existsSync(join(root, version, 'bin', 'initdb')) && existsSync(join(root, version, 'bin', 'pg_ctl')))
      .sort((a, b) => Number(b) - Number(a))
    if (versions[0] !== undefined) return join(root, versions[0], 'bin')
  }
  for (const dir of (process.env.PATH ?? '').split(':')) {
    if (dir !== '' && existsSync(join(dir, 'initdb')) && existsSync(join(dir, 'pg_ctl'))) return dir
  }
  return undefined
}

/** initdb refuses to run as root: use the `postgres` OS user then. */
function osUser(name: string): { uid: number; gid: number } | undefined {
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((entry) => entry.startsWith(`${name}:`))
  const fields = line?.split(':')
  if (fields === undefined || fields.length < 4) return undefined
  return { uid: Number(fields[2]), gid: Number(fields[3]) }
}

let cached: PostgresAvailability | undefined

/** Skipped with the reason locally; under `CI=true` a missing PostgreSQL fails the test file instead. */
function unavailable(reason: string): PostgresAvailability {
  if (process.env.CI === 'true') throw new Error(`PostgreSQL is required under CI=true (.ci/run installs it): ${reason}`)
  return { available: false, reason }
}

/** Decides, once per process, where test PostgreSQL comes from. */
export function postgresAvailability(): PostgresAvailability {
  if (cached !== undefined) return cached
  if (process.env.DATABASE_URL) return (cached = { available: true, source: 'DATABASE_URL' })
  const binDir = findBinDir()
  if (binDir === undefined) return (cached = unavailable('no DATABASE_URL and no PostgreSQL binaries (initdb, pg_ctl) installed'))
  if (process.getuid?.() !== 0) return (cached = { available: true, source: 'binaries', binDir })
  const runAs = osUser('postgres')
  if (runAs === undefined) return (cached = unavailable('running as root and no "postgres" OS user to run initdb as'))
  return (cached = { available: true, source: 'binaries', binDir, runAs })
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      server.close(() => (typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error('no port'))))
    })
  })
}

// 1MB WAL segments instead of 16MB: every cluster is a copy of the template (below), and
// the first segment, written in full, was 17 of its 40MB.
const INITDB_ARGS = ['-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-locale', '--no-sync', '--wal-segsize=1']

/**
 * Makes `data` a new cluster: a copy of one initdb made once per installation (kept in
 * the temp folder, where the `postgres` OS user can read it), as copying costs about a
 * third of initdb's CPU. The template is used only if this user (or `runAs`) owns it.
 */
function initCluster(binDir: string, runAs: { uid: number; gid: number } | undefined, dir: string, data: string): void {
  const initdb = join(binDir, 'initdb')
  const { size, mtimeMs } = statSync(initdb)
  const key = createHash('sha256')
    .update(JSON.stringify([initdb, size, mtimeMs, INITDB_ARGS]))
    .digest('hex')
    .slice(0, 16)
  const template = join(tmpdir(), `passcode-auth-pg-initdb-${key}`)
  const owner = runAs?.uid ?? process.getuid?.()
  const run = (file: string, args: string[], cwd: string) => execFileSync(file, args, { stdio: 'pipe', cwd, ...(runAs ?? {}), timeout: 60_000 })
  const usable = () => statSync(join(template, 'data', 'PG_VERSION'), { throwIfNoEntry: false })?.uid === owner
  if (!usable()) {
    // Built aside and renamed, so that a test file starting at the same time never copies half of one.
    const building = mkdtempSync(`${template}.building-`)
    try {
      if (runAs !== undefined) chownSync(building, runAs.uid, runAs.gid)
      run(initdb, ['-D', join(building, 'data'), ...INITDB_ARGS], building)
      try {
        renameSync(building, template)
      } catch {
        // Another test file's template won the rename (or a foreign folder is in the way).
      }
      if (!usable()) return renameSync(join(building, 'data'), data)
    } finally {
      rmSync(building, { recursive: true, force: true })
    }
  }
  run('cp', ['-a', join(template, 'data'), data], dir)
}

/** Options of {@link startTestPostgres}. */
export interface TestPostgresOptions {
  /** PostgreSQL's `max_connections`. @default 200 */
  readonly maxConnections?: number
  /**
   * Leave the cluster running when this process exits: whoever keeps its folder
   * ({@link TestPostgres.folder}) stops it with {@link stopClusterIn}.
   */
  readonly outliveProcess?: boolean
}

/** Stops the temporary cluster kept in `folder` (as {@link TestPostgres.folder} names it) and removes the folder. */
export function stopClusterIn(folder: string): void {
  const availability = postgresAvailability()
  if (!availability.available || availability.source === 'DATABASE_URL') return
  const { binDir, runAs } = availability
  spawnSync(join(binDir, 'pg_ctl'), ['-D', join(folder, 'data'), '-m', 'immediate', '-w', 'stop'], { stdio: 'ignore', cwd: folder, ...(runAs ?? {}) })
  rmSync(folder, { recursive: true, force: true })
}

/**
 * Starts PostgreSQL for a test file (or returns `DATABASE_URL`). Call from
 * `beforeAll` and `stop()` in `afterAll`. A file that needs no server of its own (it
 * neither stops the server nor counts its sessions) takes a database of the run's
 * shared server instead: `sharedTestPostgres()` of test/helpers/shared-postgres.ts.
 */
export async function startTestPostgres({ maxConnections = 200, outliveProcess = false }: TestPostgresOptions = {}): Promise<TestPostgres> {
  const availability = postgresAvailability()
  if (!availability.available) throw new Error(`PostgreSQL unavailable: ${availability.reason}`)
  if (availability.source === 'DATABASE_URL') {
    return { connectionString: process.env.DATABASE_URL!, stop: async () => {} }
  }
  const { binDir, runAs } = availability
  const dir = mkdtempSync(join(tmpdir(), 'passcode-auth-pg-'))
  if (runAs !== undefined) chownSync(dir, runAs.uid, runAs.gid)
  const data = join(dir, 'data')
  const run = (command: string, args: string[]) =>
    execFileSync(join(binDir, command), args, { stdio: 'pipe', cwd: dir, ...(runAs ?? {}), timeout: 60_000 })

  try {
    initCluster(binDir, runAs, dir, data)
  } catch (error) {
    rmSync(dir, { recursive: true, force: true })
    throw error
  }
  const stopCluster = (): void => stopClusterIn(dir)
  // Safety net if the test process ends without afterAll.
  if (!outliveProcess) process.once('exit', stopCluster)

  let lastError: unknown
  for (let attempt = 0; attempt < 3; attempt++) {
    const port = await freePort()
    const settings = [
      `-p ${port}`,
      `-k ${dir}`,
      '-c listen_addresses=127.0.0.1',
      `-c max_connections=${maxConnections}`,
      '-c fsync=off',
      '-c synchronous_commit=off',
      '-c full_page_writes=off',
    ].join(' ')
    const startArgs = ['-D', data, '-l', join(dir, 'server.log'), '-o', settings, '-w', '-t', '60', 'start']
    try {
      run('pg_ctl', startArgs)
      const pgCtl = join(binDir, 'pg_ctl')
      return {
        connectionString: `postgres://postgres@127.0.0.1:${port}/postgres`,
        folder: dir,
        async stop() {
          process.removeListener('exit', stopCluster)
          stopCluster()
        },
        stopServer: (mode = 'fast') => runAsync(pgCtl, ['-D', data, '-m', mode, '-w', 'stop'], { cwd: dir, ...(runAs ?? {}) }),
        startServer: () => runAsync(pgCtl, startArgs, { cwd: dir, ...(runAs ?? {}) }),
      }
    } catch (error) {
      // Most likely the port was taken between freePort() and start: try another.
      lastError = error
    }
  }
  stopCluster()
  process.removeListener('exit', stopCluster)
  throw lastError
}
