/**
 * Limiter table after a flood (issue 32, item 6): feeds a `postgresRateLimitStore`
 * 150 000 failures, each from its own client address, spread evenly over one hour of
 * simulated time (the instants are the `now` the port passes), with the default limits
 * (15-minute window, 50 failures per address). Failures are flushed as the store does
 * every 200 ms of simulated time; its cleanup of expired windows runs as part of those
 * writes. At the end it prints the rows in `rate_limit_failures`, the rows whose window
 * is still live, and `pg_total_relation_size` of the table (heap, TOAST and indexes) as
 * left, and after `VACUUM FULL` (what the rows left need, for reference). With windows
 * of 15 min over an hour of even traffic, about a quarter of the keys are live at the end.
 *
 * The simulated hour passes in about a minute, while autovacuum wakes once a minute of
 * real time: the space of deleted rows is then not yet reusable, and the file holds
 * more than in a real hour. `--naptime-s=1` sets `autovacuum_naptime` of the
 * throw-away cluster to 1 s (about one simulated minute), so autovacuum keeps the pace
 * it would have in real time (its other settings stay the defaults).
 *
 *   npx tsx bench/limiter-flood.ts
 *   npx tsx bench/limiter-flood.ts --failures=150000 --minutes=60 --flush-ms=200 --rounds=3 --naptime-s=1
 *   DATABASE_URL=postgres://… npx tsx bench/limiter-flood.ts
 *
 * Uses DATABASE_URL (a schema of its own, dropped afterwards) or a throw-away cluster.
 */
import pg from 'pg'
import { RATE_LIMIT_DEFAULTS } from '../src/service/limiter/options'
import { addressStoreKeys } from '../src/service/client-address'
import { migrate, postgresRateLimitStore } from '../src/stores/postgres/index'
import { postgresAvailability, startTestPostgres } from '../test/helpers/postgres'

interface FloodSettings {
  readonly failures: number
  readonly minutes: number
  /** Simulated time between two flushes (the store's `flushIntervalMs` default). */
  readonly flushMs: number
  readonly rounds: number
  /** `autovacuum_naptime` of the throw-away cluster, seconds; unset: the server's (1 min by default). */
  readonly naptimeSeconds: number | undefined
}

/** What one flood leaves in the table. */
export interface FloodResult {
  readonly rows: number
  readonly liveRows: number
  /** Keys whose window is live at the end, by the instants fed (what the table needs). */
  readonly expectedLive: number
  readonly totalBytes: number
  readonly totalBytesAfterVacuumFull: number
  readonly deadTuples: number
  readonly seconds: number
}

function parseSettings(argv: readonly string[]): FloodSettings {
  const value = (name: string, fallback: number): number => {
    const arg = argv.find((a) => a.startsWith(`--${name}=`))
    if (arg === undefined) return fallback
    const parsed = Number(arg.slice(name.length + 3))
    if (!Number.isFinite(parsed) || parsed <= 0) throw new Error(`--${name} must be a positive number`)
    return parsed
  }
  for (const arg of argv) if (!/^--(failures|minutes|flush-ms|rounds|naptime-s)=\d+$/.test(arg)) throw new Error(`unknown argument ${arg}`)
  const naptime = value('naptime-s', 0)
  return {
    failures: value('failures', 150_000),
    minutes: value('minutes', 60),
    flushMs: value('flush-ms', 200),
    rounds: value('rounds', 1),
    naptimeSeconds: naptime === 0 ? undefined : naptime,
  }
}

/** The i-th distinct IPv4 address, 10.0.0.0/8. */
const address = (i: number): string => `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`

async function flood(pool: pg.Pool, settings: FloodSettings, schema: string): Promise<FloodResult> {
  await pool.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`)
  await migrate(pool, { schema })
  const { windowMs, maxFailures: limit } = RATE_LIMIT_DEFAULTS
  const keyOf = addressStoreKeys(undefined)
  // Never flushed by its own timer: the loop below flushes on simulated time.
  const store = postgresRateLimitStore(pool, { schema, listen: false, flushIntervalMs: 10_000, onError: (error) => console.error(error) })
  const spanMs = settings.minutes * 60_000
  const end = Date.now()
  const start = end - spanMs
  const step = spanMs / settings.failures
  const started = performance.now()
  let nextFlush = start + settings.flushMs
  let lastAt = start
  for (let i = 0; i < settings.failures; i++) {
    const at = Math.round(start + (i + 1) * step)
    if (at >= nextFlush) {
      await store.flush()
      nextFlush = at + settings.flushMs
    }
    store.recordFailure(keyOf(address(i)), limit, windowMs, at)
    lastAt = at
  }
  await store.close()
  const seconds = (performance.now() - started) / 1000
  const table = `${schema}.rate_limit_failures`
  const counts = await pool.query<{ rows: number; live: number }>(
    `SELECT count(*)::int AS rows, count(*) FILTER (WHERE expires_at > $1::bigint)::int AS live FROM ${table}`,
    [lastAt],
  )
  const size = async () =>
    Number((await pool.query<{ bytes: string }>(`SELECT pg_total_relation_size($1::regclass)::bigint AS bytes`, [table])).rows[0]!.bytes)
  const totalBytes = await size()
  const dead = await pool.query<{ dead: number }>(
    `SELECT n_dead_tup::int AS dead FROM pg_stat_user_tables WHERE schemaname = $1 AND relname = 'rate_limit_failures'`,
    [schema],
  )
  await pool.query(`VACUUM FULL ${table}`)
  const totalBytesAfterVacuumFull = await size()
  // A failure at `at` keeps its key live while at + windowMs > lastAt.
  const expectedLive = Array.from({ length: settings.failures }, (_, i) => Math.round(start + (i + 1) * step)).filter(
    (at) => at + windowMs > lastAt,
  ).length
  await pool.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`)
  return {
    rows: counts.rows[0]!.rows,
    liveRows: counts.rows[0]!.live,
    expectedLive,
    totalBytes,
    totalBytesAfterVacuumFull,
    deadTuples: dead.rows[0]?.dead ?? 0,
    seconds,
  }
}

async function main(): Promise<void> {
  const settings = parseSettings(process.argv.slice(2))
  const availability = postgresAvailability()
  if (!availability.available) {
    console.log(`skipped: ${availability.reason}`)
    return
  }
  const server = process.env.DATABASE_URL ? undefined : await startTestPostgres()
  const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL ?? server!.connectionString, max: 4, connectionTimeoutMillis: 10_000 })
  pool.on('error', () => {})
  try {
    if (settings.naptimeSeconds !== undefined) {
      if (server === undefined) throw new Error('--naptime-s changes the server: only with the throw-away cluster, not DATABASE_URL')
      await pool.query(`ALTER SYSTEM SET autovacuum_naptime = ${settings.naptimeSeconds}`)
      await pool.query('SELECT pg_reload_conf()')
      // The reload reaches the server's processes asynchronously.
      for (let tries = 0; tries < 50; tries++) {
        const shown = (await pool.query<{ setting: string }>(`SELECT setting FROM pg_settings WHERE name = 'autovacuum_naptime'`)).rows[0]!.setting
        if (Number(shown) === settings.naptimeSeconds) break
        await new Promise((resolve) => setTimeout(resolve, 100))
      }
    }
    const version = (await pool.query<{ server_version: string }>('SHOW server_version')).rows[0]!.server_version
    const naptime = (await pool.query<{ autovacuum_naptime: string }>('SHOW autovacuum_naptime')).rows[0]!.autovacuum_naptime
    console.log(
      `PostgreSQL ${version}; ${settings.failures.toLocaleString('en')} failures from distinct addresses over ${settings.minutes} min of simulated time, ` +
        `window ${RATE_LIMIT_DEFAULTS.windowMs / 60_000} min, limit ${RATE_LIMIT_DEFAULTS.maxFailures}, a flush per ${settings.flushMs} ms simulated; autovacuum_naptime ${naptime}`,
    )
    console.log('\n| round | rows left | rows with a live window | live keys fed | total size | after VACUUM FULL | dead tuples | fed in |')
    console.log('|---:|---:|---:|---:|---:|---:|---:|---:|')
    const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MB`
    for (let round = 1; round <= settings.rounds; round++) {
      const r = await flood(pool, settings, 'bench_limiter_flood')
      console.log(
        `| ${round} | ${r.rows.toLocaleString('en')} | ${r.liveRows.toLocaleString('en')} | ${r.expectedLive.toLocaleString('en')} | ${mb(r.totalBytes)} | ${mb(r.totalBytesAfterVacuumFull)} | ${r.deadTuples.toLocaleString('en')} | ${r.seconds.toFixed(1)} s |`,
      )
    }
  } finally {
    await pool.end()
    await server?.stop()
  }
}

await main()
