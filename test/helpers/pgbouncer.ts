import { spawn, type ChildProcess } from 'node:child_process'
import { chownSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { connect, createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { postgresAvailability } from './postgres'

/**
 * PgBouncer in transaction mode in front of a test PostgreSQL, as most hosted
 * PostgreSQL offers it: Debian's `pgbouncer` (`.ci/run` installs it), started by the
 * test itself on a free port, as the `postgres` OS user when the tests run as root
 * (it refuses root), with a temp folder removed afterwards. One per test file, shared
 * by its cases. {@link pgbouncerAvailability} decides synchronously, at collection.
 */

const BINARY = ['/usr/sbin/pgbouncer', '/usr/bin/pgbouncer'].find((path) => existsSync(path))

/** Whether PgBouncer tests can run here. */
export function pgbouncerAvailability(): { available: true } | { available: false; reason: string } {
  const postgres = postgresAvailability()
  if (!postgres.available) return postgres
  if (BINARY === undefined) {
    if (process.env.CI === 'true') throw new Error('pgbouncer is required under CI=true (.ci/run installs it)')
    return { available: false, reason: 'pgbouncer is not installed (apt-get install pgbouncer)' }
  }
  return { available: true }
}

/** A running PgBouncer. */
export interface TestPgBouncer {
  /** `postgres://…` through PgBouncer, transaction mode. */
  readonly connectionString: string
  /** The running PgBouncer's process id (`undefined` while stopped): a benchmark pins it to a core. */
  readonly pid: number | undefined
  /** Kills it (SIGTERM: immediate shutdown, every client connection closed). */
  stopServer(): Promise<void>
  /** Starts it again on the same port. */
  startServer(): Promise<void>
  /** Stops it and removes its folder. */
  stop(): Promise<void>
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

/** Resolves once something accepts connections on `port`. */
async function accepting(port: number, child: ChildProcess, timeoutMs = 10_000): Promise<void> {
  const until = Date.now() + timeoutMs
  for (;;) {
    if (child.exitCode !== null) throw new Error(`pgbouncer exited with ${child.exitCode}`)
    const ok = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1')
      socket.once('connect', () => {
        socket.destroy()
        resolve(true)
      })
      socket.once('error', () => resolve(false))
    })
    if (ok) return
    if (Date.now() > until) throw new Error(`pgbouncer did not accept connections on ${port}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

/** Starts PgBouncer (transaction mode) in front of `postgresConnectionString`. */
export async function startTestPgBouncer(postgresConnectionString: string): Promise<TestPgBouncer> {
  if (BINARY === undefined) throw new Error('pgbouncer is not installed')
  const availability = postgresAvailability()
  const runAs = availability.available && availability.source === 'binaries' ? availability.runAs : undefined
  const target = new URL(postgresConnectionString)
  const port = await freePort()
  const dir = mkdtempSync(join(tmpdir(), 'passcode-auth-pgbouncer-'))
  if (runAs !== undefined) chownSync(dir, runAs.uid, runAs.gid)
  const user = decodeURIComponent(target.username) || 'postgres'
  const password = decodeURIComponent(target.password)
  const database = target.pathname.slice(1) || 'postgres'
  const config = join(dir, 'pgbouncer.ini')
  writeFileSync(
    config,
    [
      '[databases]',
      `${database} = host=${target.hostname} port=${target.port || 5432} dbname=${database} user=${user}${password === '' ? '' : ` password=${password}`}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      // Every client logs in as the database line's user: no user list to keep.
      'auth_type = any',
      'pool_mode = transaction',
      'max_client_conn = 1000',
      'default_pool_size = 20',
      'ignore_startup_parameters = extra_float_digits, options',
      // After a failed login to the server (PostgreSQL restarting), PgBouncer refuses
      // every client for this long (default 15 s): past the 10 s recovery bound of a
      // `pg_ctl restart` (docs/operations.md says to lower it).
      'server_login_retry = 1',
      `logfile = ${join(dir, 'pgbouncer.log')}`,
      `pidfile = ${join(dir, 'pgbouncer.pid')}`,
      '',
    ].join('\n'),
  )
  if (runAs !== undefined) chownSync(config, runAs.uid, runAs.gid)

  let child: ChildProcess | undefined
  const startServer = async (): Promise<void> => {
    rmSync(join(dir, 'pgbouncer.pid'), { force: true })
    const started = spawn(BINARY, ['-q', config], { cwd: dir, stdio: 'ignore', ...(runAs ?? {}) })
    child = started
    await accepting(port, started)
  }
  const stopServer = async (): Promise<void> => {
    const running = child
    child = undefined
    if (running?.exitCode !== null) return
    const exited = new Promise((resolve) => running.once('exit', resolve))
    running.kill('SIGTERM')
    await exited
  }
  const onExit = (): void => {
    child?.kill('SIGKILL')
  }
  process.once('exit', onExit)
  try {
    await startServer()
  } catch (error) {
    await stopServer()
    rmSync(dir, { recursive: true, force: true })
    throw error
  }
  const via = new URL(postgresConnectionString)
  via.hostname = '127.0.0.1'
  via.port = String(port)
  return {
    connectionString: via.toString(),
    get pid() {
      return child?.exitCode === null ? child.pid : undefined
    },
    stopServer,
    startServer,
    async stop() {
      process.removeListener('exit', onExit)
      await stopServer()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}
