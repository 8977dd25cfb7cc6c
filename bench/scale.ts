/**
 * Scale benchmark (issue 37): what a request and each job that runs without one cost
 * next to 1k, 100k, 1M and 10M stored account passcodes on PostgreSQL, measured side by
 * side: one schema per tier in one server, and every measure interleaves the tiers call
 * by call (one call on every tier, the order rotating from call to call), so that a
 * tier's k-th sample is taken within a second of every other tier's k-th sample and the
 * machine's noise hits every tier alike. A ratio between two tiers is the median of the
 * ratios of their paired samples.
 *
 * Each tier is seeded with set-based SQL (test/helpers/scale-seed.ts: 100 passcodes per
 * account, every account at the cap; half expired and notified, a tenth forever, the
 * rest active or expiring soon with that email sent; one user passcode and one limiter
 * row per ten), after `migrate()`, with the secondary indexes dropped during the seed
 * and built again after it (the same definitions). A seeded tier is kept: a second run
 * on the same DATABASE_URL measures at once. Per round, on every tier:
 *
 * - cache-miss verification: `auth.authenticate()` with the cache off, 200 calls over
 *   passcodes issued through the API next to the seeded rows (p50, p99 over all rounds);
 * - the claim alone: `claimNotifications` of the 100 passcodes made due for this round
 *   (then released), and the notifier pass `auth.notifyExpirations()` that sends them;
 * - `passcodes.list` of a full account (100 passcodes);
 * - the usage flush of 1 000 used passcodes (`recordUsage`, one statement), `--flushes`
 *   calls per round (10 by default), each at a later instant than the last, so that every
 *   call writes all 1 000 rows;
 * - limiter pruning of 1 000 rows whose window passed (the store's batched DELETE);
 * - a start on the populated schema: `migrate()` finding it up to date, plus the
 *   first verification through a new pool (what `serve` does to the database);
 * - the pepper report (`countHashesByPepper`), which counts every hash (a call past its
 *   deadline, `OPERATOR_READ_DEADLINE_MS`, is counted as such, its time being the deadline's);
 * - table and index sizes.
 *
 *   npm run bench:scale                                   # 1k, 100k, 1M, 10M; a temporary cluster
 *   DATABASE_URL=postgres://… npm run bench:scale -- --tiers=1000,100000 --rounds=5
 *   npm run bench:scale -- --tiers=1000,1000000 --rounds=15 --flushes=10   # 150 paired flushes
 *   npm run bench:scale -- --seed-only                    # seed the tiers, measure nothing
 *   npm run bench:scale -- --json=/tmp/scale.json         # also every sample, as JSON
 */
import { randomUUID } from 'node:crypto'
import { writeFileSync } from 'node:fs'
import pg from 'pg'
import { DAY_MS } from '../src/core/time'
import { createPasscodeAuth, type NotificationReport } from '../src/index'
import { memoryMailer } from '../src/memory'
import { toDatabase } from '../src/stores/postgres/database'
import { migrate, postgresStore } from '../src/stores/postgres/index'
import { StatementDeadlineError } from '../src/stores/postgres/pg-pool-database'
import { rateLimitStatements } from '../src/stores/postgres/rate-limit-statements'
import { postgresAvailability, startTestPostgres } from '../test/helpers/postgres'
import { seededPasscodeId, seedScale, withoutDeadline } from '../test/helpers/scale-seed'
import { ADMIN } from './fixtures'
import { median, percentile } from './stats'

const NOW = Date.UTC(2026, 10, 1)
const DUE = 100
const VERIFY_CALLS = 200
const FLUSH = 1_000
const PRUNE = 1_000
const SEED_CHUNK = 500_000

const args = new Map(
  process.argv.slice(2).map((arg) => {
    const [key, value] = arg.replace(/^--/, '').split('=')
    return [key!, value ?? 'true']
  }),
)
const tiers = (args.get('tiers') ?? '1000,100000,1000000,10000000').split(',').map(Number)
const rounds = Number(args.get('rounds') ?? 7)
const flushes = Number(args.get('flushes') ?? 10)
const seedOnly = args.get('seed-only') === 'true'

const schemaOf = (size: number): string => `scale_${size}`
const ms = (start: bigint): number => Number(process.hrtime.bigint() - start) / 1e6
const log = (line: string): void => void process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${line}\n`)

/** Seeds a tier unless a finished seed of it is recorded; the indexes are built after the rows. */
async function seedTier(pool: pg.Pool, size: number): Promise<void> {
  const schema = schemaOf(size)
  const database = withoutDeadline(toDatabase(pool))
  const [done] = await database.query(`SELECT to_regclass($1) IS NOT NULL AS present`, [`${schema}.scale_seed`])
  if (done?.present === true) {
    const [row] = await database.query(`SELECT rows FROM ${schema}.scale_seed`)
    if (Number(row?.rows) === size) {
      log(`tier ${size}: seeded already`)
      return
    }
    await database.query(`DROP SCHEMA ${schema} CASCADE`)
  } else {
    await database.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`)
  }
  const started = process.hrtime.bigint()
  await migrate(pool, { schema })
  const indexes = await database.query(
    `SELECT c.relname AS name, pg_get_indexdef(x.indexrelid) AS definition
     FROM pg_index x JOIN pg_class c ON c.oid = x.indexrelid JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname = $1 AND NOT x.indisprimary AND NOT x.indisunique`,
    [schema],
  )
  for (const index of indexes) await database.query(`DROP INDEX ${schema}.${String(index.name)}`)
  for (let from = 0; from < size; from += SEED_CHUNK) {
    const to = Math.min(size, from + SEED_CHUNK)
    await seedScale(database, { schema, from, to, now: NOW }, SEED_CHUNK)
    log(`tier ${size}: ${to} rows (${(ms(started) / 1000).toFixed(0)} s)`)
  }
  for (const index of indexes) await database.query(String(index.definition))
  await database.query(`VACUUM ANALYZE`)
  await database.query(`CREATE TABLE ${schema}.scale_seed AS SELECT $1::bigint AS rows`, [size])
  log(`tier ${size}: seeded in ${(ms(started) / 1000).toFixed(0)} s`)
}

/** What one tier keeps between rounds. */
interface Tier {
  readonly size: number
  readonly schema: string
  readonly pool: pg.Pool
  readonly auth: ReturnType<typeof createPasscodeAuth>
  readonly store: ReturnType<typeof postgresStore>
  readonly values: string[]
  clock: number
  /** The instant of the last usage flush: each flush writes a later one. */
  flushedAt: number
  readonly samples: Record<string, number[]>
  /** Calls that passed their statement deadline, by measure. */
  readonly failures: Record<string, number>
}

async function prepareTier(connectionString: string, size: number): Promise<Tier> {
  const schema = schemaOf(size)
  const pool = new pg.Pool({ connectionString, max: 4, connectionTimeoutMillis: 10_000 })
  const database = toDatabase(pool)
  // What an earlier run made through the API goes first.
  await database.query(`DELETE FROM ${schema}.account_passcodes WHERE account_id LIKE 'bench\\_%'`)
  await database.query(`DELETE FROM ${schema}.rate_limit_failures WHERE key LIKE 'prune:%'`)
  await database.query(`UPDATE ${schema}.account_passcodes SET last_used_at = NULL WHERE id = ANY($1::text[])`, [
    Array.from({ length: FLUSH }, (_, i) => seededPasscodeId(Math.floor((i * size) / FLUSH))),
  ])
  const tier: Tier = {
    size,
    schema,
    pool,
    store: postgresStore(pool, { schema, listen: false }),
    auth: undefined as never,
    values: [],
    clock: NOW,
    flushedAt: NOW,
    samples: {},
    failures: {},
  }
  const store = tier.store
  const auth = createPasscodeAuth({
    store,
    cache: false,
    clock: () => new Date(tier.clock),
    mailer: memoryMailer(),
    recipients: () => ['ops@example.com'],
    notifier: { batchSize: 100 },
  })
  Object.assign(tier, { auth })
  // Passcodes to verify: issued through the API, forever.
  for (let i = 0; i < VERIFY_CALLS; i += 1) {
    const { value } = await auth.passcodes.create(ADMIN, `bench_verify_${Math.floor(i / 100)}`, { name: `V${i}`, expiry: 'forever' })
    tier.values.push(value)
  }
  // One batch of 100 per round, due on its round only: expiry 31 + r days from NOW.
  for (let round = 0; round < rounds; round += 1) {
    for (let i = 0; i < DUE; i += 1) {
      await auth.passcodes.create(ADMIN, `bench_due_${round}`, { name: `D${i}`, expiry: 31 + round })
    }
  }
  await database.query(`ANALYZE ${schema}.account_passcodes`)
  return tier
}

const record = (tier: Tier, name: string, value: number): void => {
  ;(tier.samples[name] ??= []).push(value)
}

/** `tiers` in the order of call `k`: each tier first, second, … in turn. */
const rotated = (tiers: readonly Tier[], k: number): Tier[] => tiers.map((_, i) => tiers[(i + k) % tiers.length]!)

/** One call of `step` on every tier, in the order of call `k`. */
async function onEveryTier(tiers: readonly Tier[], k: number, step: (tier: Tier) => Promise<void>): Promise<void> {
  for (const tier of rotated(tiers, k)) await step(tier)
}

async function verifyOnce(tier: Tier, call: number): Promise<void> {
  const started = process.hrtime.bigint()
  const result = await tier.auth.authenticate({ accountId: `bench_verify_${Math.floor(call / 100)}`, passcode: tier.values[call]! })
  record(tier, 'verify', ms(started))
  if (!result.ok) throw new Error('verification failed')
}

async function claimOnce(tier: Tier): Promise<void> {
  const request = { now: tier.clock, windowMs: 30 * DAY_MS, leaseMs: 600_000, limit: DUE, token: randomUUID() }
  const started = process.hrtime.bigint()
  const claims = await tier.store.claimNotifications(request)
  record(tier, 'claim', ms(started))
  if (claims.length !== DUE) throw new Error(`tier ${tier.size}: ${claims.length} claims, ${DUE} due`)
  for (const claim of claims) await tier.store.releaseNotification(claim)
}

async function passOnce(tier: Tier): Promise<void> {
  const started = process.hrtime.bigint()
  const report: NotificationReport = await tier.auth.notifyExpirations()
  record(tier, 'pass', ms(started))
  if (report.sent.length !== DUE) throw new Error(`tier ${tier.size}: the pass sent ${report.sent.length}, ${DUE} due`)
}

async function listOnce(tier: Tier): Promise<void> {
  const started = process.hrtime.bigint()
  const listed = await tier.auth.passcodes.list(ADMIN, `acc_${Math.floor(tier.size / 200)}`)
  record(tier, 'list', ms(started))
  if (listed.length !== 100) throw new Error(`tier ${tier.size}: listed ${listed.length}`)
}

/** 1 000 seeded passcodes spread over the tier, each used 1 ms after its last flush: all 1 000 rows are written. */
async function flushOnce(tier: Tier): Promise<void> {
  tier.flushedAt += 1
  const entries = Array.from({ length: FLUSH }, (_, i) => {
    const index = Math.floor((i * tier.size) / FLUSH)
    return {
      kind: 'account' as const,
      accountId: `acc_${Math.floor(index / 100)}`,
      passcodeId: seededPasscodeId(index),
      at: tier.flushedAt,
      partner: null,
    }
  })
  const started = process.hrtime.bigint()
  const written = await tier.store.recordUsage(entries)
  record(tier, 'flush', ms(started))
  if (written !== FLUSH) throw new Error(`tier ${tier.size}: the flush wrote ${written}`)
}

async function pruneOnce(tier: Tier): Promise<void> {
  const database = toDatabase(tier.pool)
  await database.query(
    `INSERT INTO ${tier.schema}.rate_limit_failures (key, instants, limit_count, window_ms, expires_at)
     SELECT 'prune:' || i, ARRAY[1::bigint], 10, 1, 2 FROM generate_series(1, $1::integer) AS i`,
    [PRUNE],
  )
  const { deleteExpired } = rateLimitStatements(tier.schema)
  const started = process.hrtime.bigint()
  let pruned = 0
  for (;;) {
    const [row] = await database.query(deleteExpired.text, deleteExpired.values({ now: NOW - 365 * DAY_MS, limit: 1_000 }))
    pruned += Number(row?.deleted)
    if (Number(row?.deleted) < 1_000) break
  }
  record(tier, 'prune', ms(started))
  if (pruned !== PRUNE) throw new Error(`tier ${tier.size}: pruned ${pruned}`)
}

/** A start: a new pool, the schema check, the first verification. */
async function startOnce(tier: Tier, connectionString: string): Promise<void> {
  const started = process.hrtime.bigint()
  const pool = new pg.Pool({ connectionString, max: 1, connectionTimeoutMillis: 10_000 })
  const migration = await migrate(pool, { schema: tier.schema })
  const fresh = createPasscodeAuth({
    store: postgresStore(pool, { schema: tier.schema, listen: false }),
    cache: false,
    clock: () => new Date(tier.clock),
  })
  const first = await fresh.authenticate({ accountId: 'bench_verify_0', passcode: tier.values[0]! })
  record(tier, 'start', ms(started))
  await fresh.close()
  await pool.end()
  if (migration.applied.length > 0 || !first.ok) throw new Error('start failed')
}

/** The pepper report; past its deadline (`OPERATOR_READ_DEADLINE_MS`) it is counted as a failure at the deadline's time. */
async function peppersOnce(tier: Tier): Promise<void> {
  const started = process.hrtime.bigint()
  try {
    await tier.store.countHashesByPepper(tier.clock)
  } catch (error) {
    if (!(error instanceof StatementDeadlineError)) throw error
    tier.failures.peppers = (tier.failures.peppers ?? 0) + 1
  }
  record(tier, 'peppers', ms(started))
}

/** One round: every measure, each call on every tier before the next call. */
async function measureRound(tiers: readonly Tier[], round: number, connectionString: string): Promise<void> {
  for (let call = 0; call < VERIFY_CALLS; call += 1) await onEveryTier(tiers, round + call, (tier) => verifyOnce(tier, call))
  // The round's batch is due now (expiring soon); the earlier ones are sent already.
  for (const tier of tiers) tier.clock = NOW + (round + 1) * DAY_MS + 1
  await onEveryTier(tiers, round, claimOnce)
  await onEveryTier(tiers, round, passOnce)
  await onEveryTier(tiers, round, listOnce)
  for (let call = 0; call < flushes; call += 1) await onEveryTier(tiers, round + call, flushOnce)
  await onEveryTier(tiers, round, pruneOnce)
  await onEveryTier(tiers, round, (tier) => startOnce(tier, connectionString))
  await onEveryTier(tiers, round, peppersOnce)
}

/** The median of the ratios of `tier`'s samples of `key` to `base`'s, pair by pair, and their quartiles. */
function pairedRatio(tier: Tier, base: Tier, key: string): { median: number; p25: number; p75: number } {
  const over = tier.samples[key]!
  const under = base.samples[key]!
  const ratios = over.map((value, i) => value / under[i]!).sort((a, b) => a - b)
  return { median: median(ratios), p25: percentile(ratios, 25), p75: percentile(ratios, 75) }
}

async function sizes(pool: pg.Pool, schema: string): Promise<{ name: string; mb: number }[]> {
  const rows = await toDatabase(pool).query(
    `SELECT c.relname AS name, pg_total_relation_size(c.oid)::float8 / 1048576 AS mb
     FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname = $1 AND c.relkind IN ('r', 'i') AND c.relname <> 'scale_seed' ORDER BY c.relkind DESC, c.relname`,
    [schema],
  )
  return rows.map((row) => ({ name: String(row.name), mb: Number(row.mb) }))
}

async function main(): Promise<void> {
  const availability = postgresAvailability()
  if (!availability.available) {
    console.log(`bench:scale skipped: ${availability.reason}`)
    return
  }
  const server = await startTestPostgres()
  const admin = new pg.Pool({ connectionString: server.connectionString, max: 2, connectionTimeoutMillis: 10_000 })
  try {
    const [version] = (await admin.query('SHOW server_version')).rows as { server_version: string }[]
    log(`PostgreSQL ${version!.server_version}; tiers ${tiers.join(', ')}; ${rounds} rounds`)
    const seeded: number[] = []
    for (const size of tiers) {
      await seedTier(admin, size)
      seeded.push(size)
    }
    if (seedOnly) return

    const prepared: Tier[] = []
    for (const size of seeded) prepared.push(await prepareTier(server.connectionString, size))
    log(`measuring: ${rounds} rounds, ${flushes} usage flushes per round on every tier`)
    for (let round = 0; round < rounds; round += 1) {
      await measureRound(prepared, round, server.connectionString)
      log(`round ${round + 1}/${rounds}`)
    }

    // [label, measure, percentile]: the ratio of a median is the median of the paired
    // ratios (its quartiles beside it); of another percentile, the percentiles' ratio.
    const metrics: [string, string, number][] = [
      ['verify p50 (ms)', 'verify', 50],
      ['verify p99 (ms)', 'verify', 99],
      ['claim of 100 due (ms)', 'claim', 50],
      ['notifier pass, 100 due (ms)', 'pass', 50],
      ['passcodes.list, full account (ms)', 'list', 50],
      ['usage flush, 1 000 passcodes (ms)', 'flush', 50],
      ['limiter pruning, 1 000 rows (ms)', 'prune', 50],
      ['start: migrate check + first verification (ms)', 'start', 50],
      ['pepper report (ms)', 'peppers', 50],
    ]
    const first = prepared[0]!
    const last = prepared[prepared.length - 1]!
    const sorted = (tier: Tier, key: string): number[] => [...tier.samples[key]!].sort((a, b) => a - b)
    const head = `| | ${prepared.map((tier) => tier.size.toLocaleString('en-US')).join(' | ')} | ${last.size.toLocaleString('en-US')} / ${first.size.toLocaleString('en-US')}, paired (p25–p75) |`
    const lines = [head, `|---|${prepared.map(() => '---:').join('|')}|---:|`]
    for (const [label, key, p] of metrics) {
      const cells = prepared.map((tier) => {
        const failed = tier.failures[key] ?? 0
        const value = (p === 50 ? median(tier.samples[key]!) : percentile(sorted(tier, key), p)).toFixed(2)
        return failed === 0 ? value : `${value} (${failed} of ${tier.samples[key]!.length} past the deadline)`
      })
      let ratio: string
      if (p === 50) {
        const paired = pairedRatio(last, first, key)
        ratio = `${paired.median.toFixed(2)}× (${paired.p25.toFixed(2)}–${paired.p75.toFixed(2)})`
      } else {
        ratio = `${(percentile(sorted(last, key), p) / percentile(sorted(first, key), p)).toFixed(2)}×`
      }
      lines.push(`| ${label} | ${cells.join(' | ')} | ${ratio} |`)
    }
    const tableSizes = await Promise.all(prepared.map((tier) => sizes(admin, tier.schema)))
    for (const { name } of tableSizes[tableSizes.length - 1]!) {
      const values = tableSizes.map((list) => list.find((entry) => entry.name === name)?.mb ?? 0)
      lines.push(`| size of ${name} (MB) | ${values.map((value) => value.toFixed(1)).join(' | ')} | |`)
    }
    console.log(lines.join('\n'))
    // The usage flush in detail: every tier against the smallest, over the paired calls.
    const flushLines = [
      `usage flush of ${FLUSH.toLocaleString('en-US')} passcodes, ${first.samples.flush!.length} calls on every tier, interleaved call by call:`,
    ]
    for (const tier of prepared) {
      const values = sorted(tier, 'flush')
      const spread = `median ${median(values).toFixed(1)} ms (p25–p75 ${percentile(values, 25).toFixed(1)}–${percentile(values, 75).toFixed(1)}, min ${values[0]!.toFixed(1)}, max ${values[values.length - 1]!.toFixed(1)})`
      const paired = pairedRatio(tier, first, 'flush')
      const ratio =
        tier === first
          ? ''
          : `; / ${first.size.toLocaleString('en-US')}: ${paired.median.toFixed(2)}× (p25–p75 ${paired.p25.toFixed(2)}–${paired.p75.toFixed(2)})`
      flushLines.push(`  ${tier.size.toLocaleString('en-US')}: ${spread}${ratio}`)
    }
    console.log(flushLines.join('\n'))
    const json = args.get('json')
    if (json !== undefined)
      writeFileSync(
        json,
        JSON.stringify({ rounds, flushes, tiers: prepared.map((tier) => ({ size: tier.size, samples: tier.samples, failures: tier.failures })) }),
      )
    for (const tier of prepared) await tier.auth.close()
    await Promise.all(prepared.map((tier) => tier.pool.end()))
  } finally {
    await admin.end()
    await server.stop()
  }
}

await main()
