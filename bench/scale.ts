/**
 * Scale benchmark (issue 37): what a request and each job that runs without one cost
 * next to 1k, 100k, 1M and 10M stored account passcodes on PostgreSQL, measured side by
 * side: one schema per tier in one server, and every round measures each tier in turn
 * (the order rotates), so that noise on a shared machine hits every tier alike.
 *
 * Each tier is seeded with set-based SQL (test/helpers/scale-seed.ts: 100 passcodes per
 * account, every account at the cap; half expired and notified, a tenth forever, the
 * rest active or expiring soon with that email sent; one user passcode and one limiter
 * row per ten), after `migrate()`, with the secondary indexes dropped during the seed
 * and built again after it (the same definitions). A seeded tier is kept: a second run
 * on the same DATABASE_URL measures at once. Per tier and round:
 *
 * - cache-miss verification: `auth.authenticate()` with the cache off, 200 calls over
 *   passcodes issued through the API next to the seeded rows (p50, p99 over all rounds);
 * - the claim alone: `claimNotifications` of the 100 passcodes made due for this round
 *   (then released), and the notifier pass `auth.notifyExpirations()` that sends them;
 * - `passcodes.list` of a full account (100 passcodes);
 * - the usage flush of 1 000 used passcodes (`recordUsage`, one statement);
 * - limiter pruning of 1 000 rows whose window passed (the store's batched DELETE);
 * - a start on the populated schema: `migrate()` finding it up to date, plus the
 *   first verification through a new pool (what `serve` does to the database);
 * - the pepper report (`countHashesByPepper`), which counts every hash;
 * - table and index sizes.
 *
 *   npm run bench:scale                                   # 1k, 100k, 1M, 10M; a temporary cluster
 *   DATABASE_URL=postgres://… npm run bench:scale -- --tiers=1000,100000 --rounds=5
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
import { rateLimitStatements } from '../src/stores/postgres/rate-limit-statements'
import { postgresAvailability, startTestPostgres } from '../test/helpers/postgres'
import { seededPasscodeId, seedScale, withoutDeadline } from '../test/helpers/scale-seed'
import { ADMIN } from './fixtures'
import { percentile } from './stats'

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
  readonly samples: Record<string, number[]>
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
    samples: {},
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

async function measureRound(tier: Tier, round: number, connectionString: string): Promise<void> {
  const { store, auth, schema } = tier
  const database = toDatabase(tier.pool)

  for (const value of tier.values) {
    const accountId = `bench_verify_${Math.floor(tier.values.indexOf(value) / 100)}`
    const started = process.hrtime.bigint()
    const result = await auth.authenticate({ accountId, passcode: value })
    record(tier, 'verify', ms(started))
    if (!result.ok) throw new Error('verification failed')
  }

  // The round's batch is due now (expiring soon); the earlier ones are sent already.
  tier.clock = NOW + (round + 1) * DAY_MS + 1
  const request = { now: tier.clock, windowMs: 30 * DAY_MS, leaseMs: 600_000, limit: DUE, token: randomUUID() }
  let started = process.hrtime.bigint()
  const claims = await store.claimNotifications(request)
  record(tier, 'claim', ms(started))
  if (claims.length !== DUE) throw new Error(`tier ${tier.size}: ${claims.length} claims, ${DUE} due`)
  for (const claim of claims) await store.releaseNotification(claim)

  started = process.hrtime.bigint()
  const report: NotificationReport = await auth.notifyExpirations()
  record(tier, 'pass', ms(started))
  if (report.sent.length !== DUE) throw new Error(`tier ${tier.size}: the pass sent ${report.sent.length}, ${DUE} due`)

  started = process.hrtime.bigint()
  const listed = await auth.passcodes.list(ADMIN, `acc_${Math.floor(tier.size / 200)}`)
  record(tier, 'list', ms(started))
  if (listed.length !== 100) throw new Error(`tier ${tier.size}: listed ${listed.length}`)

  const entries = Array.from({ length: FLUSH }, (_, i) => {
    const index = Math.floor((i * tier.size) / FLUSH)
    return {
      kind: 'account' as const,
      accountId: `acc_${Math.floor(index / 100)}`,
      passcodeId: seededPasscodeId(index),
      at: tier.clock,
      partner: null,
    }
  })
  started = process.hrtime.bigint()
  const written = await store.recordUsage(entries)
  record(tier, 'flush', ms(started))
  if (written !== FLUSH) throw new Error(`tier ${tier.size}: the flush wrote ${written}`)

  await database.query(
    `INSERT INTO ${schema}.rate_limit_failures (key, instants, limit_count, window_ms, expires_at)
     SELECT 'prune:' || i, ARRAY[1::bigint], 10, 1, 2 FROM generate_series(1, $1::integer) AS i`,
    [PRUNE],
  )
  const { deleteExpired } = rateLimitStatements(schema)
  started = process.hrtime.bigint()
  let pruned = 0
  for (;;) {
    const [row] = await database.query(deleteExpired.text, deleteExpired.values({ now: NOW - 365 * DAY_MS, limit: 1_000 }))
    pruned += Number(row?.deleted)
    if (Number(row?.deleted) < 1_000) break
  }
  record(tier, 'prune', ms(started))
  if (pruned !== PRUNE) throw new Error(`tier ${tier.size}: pruned ${pruned}`)

  // A start: a new pool, the schema check, the first verification.
  started = process.hrtime.bigint()
  const pool = new pg.Pool({ connectionString, max: 1, connectionTimeoutMillis: 10_000 })
  const migration = await migrate(pool, { schema })
  const fresh = createPasscodeAuth({ store: postgresStore(pool, { schema, listen: false }), cache: false, clock: () => new Date(tier.clock) })
  const first = await fresh.authenticate({ accountId: 'bench_verify_0', passcode: tier.values[0]! })
  record(tier, 'start', ms(started))
  await fresh.close()
  await pool.end()
  if (migration.applied.length > 0 || !first.ok) throw new Error('start failed')

  started = process.hrtime.bigint()
  await store.countHashesByPepper(tier.clock)
  record(tier, 'peppers', ms(started))
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
    log('measuring')
    for (let round = 0; round < rounds; round += 1) {
      const order = prepared.map((_, i) => prepared[(i + round) % prepared.length]!)
      for (const tier of order) await measureRound(tier, round, server.connectionString)
      log(`round ${round + 1}/${rounds}`)
    }

    const metrics: [string, string, (values: number[]) => number][] = [
      ['verify p50 (ms)', 'verify', (v) => percentile(v, 50)],
      ['verify p99 (ms)', 'verify', (v) => percentile(v, 99)],
      ['claim of 100 due (ms)', 'claim', (v) => percentile(v, 50)],
      ['notifier pass, 100 due (ms)', 'pass', (v) => percentile(v, 50)],
      ['passcodes.list, full account (ms)', 'list', (v) => percentile(v, 50)],
      ['usage flush, 1 000 passcodes (ms)', 'flush', (v) => percentile(v, 50)],
      ['limiter pruning, 1 000 rows (ms)', 'prune', (v) => percentile(v, 50)],
      ['start: migrate check + first verification (ms)', 'start', (v) => percentile(v, 50)],
      ['pepper report (ms)', 'peppers', (v) => percentile(v, 50)],
    ]
    const first = prepared[0]!
    const last = prepared[prepared.length - 1]!
    const head = `| | ${prepared.map((tier) => tier.size.toLocaleString('en-US')).join(' | ')} | ${last.size.toLocaleString('en-US')} / ${first.size.toLocaleString('en-US')} |`
    const lines = [head, `|---|${prepared.map(() => '---:').join('|')}|---:|`]
    for (const [label, key, statistic] of metrics) {
      const values = prepared.map((tier) => statistic([...tier.samples[key]!].sort((a, b) => a - b)))
      lines.push(`| ${label} | ${values.map((value) => value.toFixed(2)).join(' | ')} | ${(values[values.length - 1]! / values[0]!).toFixed(2)}× |`)
    }
    const tableSizes = await Promise.all(prepared.map((tier) => sizes(admin, tier.schema)))
    for (const { name } of tableSizes[tableSizes.length - 1]!) {
      const values = tableSizes.map((list) => list.find((entry) => entry.name === name)?.mb ?? 0)
      lines.push(`| size of ${name} (MB) | ${values.map((value) => value.toFixed(1)).join(' | ')} | |`)
    }
    console.log(lines.join('\n'))
    const json = args.get('json')
    if (json !== undefined)
      writeFileSync(json, JSON.stringify({ rounds, tiers: prepared.map((tier) => ({ size: tier.size, samples: tier.samples })) }))
    for (const tier of prepared) await tier.auth.close()
    await Promise.all(prepared.map((tier) => tier.pool.end()))
  } finally {
    await admin.end()
    await server.stop()
  }
}

await main()
