/**
 * Benchmark (section 3a): verification with 1 000 and with 1 000 000 passcodes stored
 * in PostgreSQL (90 % account, 10 % user passcodes). Two figures per size, measured
 * call by call in turn (1k, 1M, 1M, 1k, …) so that noise hits both sizes alike:
 *
 * - `auth.authenticate()` with the cache off, i.e. a cache-miss verification as the
 *   service makes it (checksum, hash, one lookup through a `pg` Pool, checks), over
 *   real passcodes issued through the API and stored next to the filler rows;
 * - the store lookup `findCredentialByHash` alone, over hashes spread across all rows.
 *
 * Then EXPLAIN ANALYZE of the lookup at 1M must show index scans on both hash
 * indexes. Flat latency from 1k to 1M is the claim under test.
 *
 *   npx tsx bench/postgres-lookup.ts            # DATABASE_URL, or a temporary cluster
 *   LOOKUPS=50000 npx tsx bench/postgres-lookup.ts
 */
import { createHash } from 'node:crypto'
import pg from 'pg'
import { createPasscodeAuth } from '../src/index'
import { migrate, postgresStore } from '../src/stores/postgres/index'
import { statements } from '../src/stores/postgres/statements'
import { postgresAvailability, startTestPostgres } from '../test/helpers/postgres'
import { runAsChild } from './child'
import { ADMIN } from './fixtures'
import { latencyOf } from './stats'

/** Settings passed as JSON in argv[2] by the orchestrator. */
export interface ScaleSettings {
  readonly sizes?: readonly number[]
  readonly rounds?: number
  /** Calls per size and round, of each of the two kinds. */
  readonly calls?: number
  readonly connectionString?: string
}

/** One size's percentiles over every call of every round. */
export interface ScaleResult {
  readonly size: number
  readonly seedSeconds: number
  readonly authenticate: { readonly p50Us: number; readonly p99Us: number; readonly callsPerSecond: number }
  readonly lookup: { readonly p50Us: number; readonly p99Us: number }
}

/** What the child reports. */
export interface ScaleReport {
  readonly postgresVersion: string
  readonly results: readonly ScaleResult[]
  readonly plan: string
  readonly indexed: boolean
}

/** Passcodes issued through the API at every size (the rest are filler rows). */
const REAL = 1_000
const WARMUP = 2_000

const hashOf = (seed: string): string => createHash('sha256').update(seed).digest('hex')

/** Filler rows in bulk; hashes are SHA-256 of 'bench-a-<i>' / 'bench-u-<i>', so the client can compute any of them. */
async function seedFiller(pool: pg.Pool, schema: string, size: number): Promise<{ accounts: number; users: number }> {
  const accounts = Math.round(size * 0.9)
  const users = size - accounts
  await pool.query(
    `INSERT INTO ${schema}.account_passcodes (id, account_id, name, name_key, hash, hint, expiry_days, created_at, updated_at, expires_at)
     SELECT 'pc_' || i, 'acc_' || (i / 100), 'Bench ' || i, 'bench ' || i,
            encode(sha256(convert_to('bench-a-' || i, 'UTF8')), 'hex'), 'psc_…bnch', 365, 0, 0, 4102444800000
     FROM generate_series(1, $1::integer) AS i`,
    [accounts],
  )
  await pool.query(
    `INSERT INTO ${schema}.user_passcodes (account_id, user_id, hash, ciphertext, hint, validity_type, validity_days, granted_at, expires_at, revoked_at)
     SELECT 'acc_' || (i / 10), 'u_' || i, encode(sha256(convert_to('bench-u-' || i, 'UTF8')), 'hex'),
            'bench-ciphertext', 'psc_…bnch', 'infinite', NULL, 0, 4102444800000, NULL
     FROM generate_series(1, $1::integer) AS i`,
    [users],
  )
  return { accounts, users }
}

interface SizeFixture {
  readonly size: number
  readonly seedSeconds: number
  readonly auth: ReturnType<typeof createPasscodeAuth>
  readonly store: ReturnType<typeof postgresStore>
  readonly credentials: { accountId: string; passcode: string }[]
  readonly filler: { accounts: number; users: number }
}

async function prepareSize(pool: pg.Pool, size: number): Promise<SizeFixture> {
  const schema = `bench_scale_${size}`
  await pool.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`)
  await migrate(pool, { schema })
  const started = Date.now()
  const real = Math.min(REAL, size)
  const filler = await seedFiller(pool, schema, size - real)
  const store = postgresStore(pool, { schema, listen: false })
  const auth = createPasscodeAuth({ store, cache: false })
  const credentials: { accountId: string; passcode: string }[] = []
  for (let i = 0; i < real; i++) {
    const accountId = `acc_real_${Math.floor(i / 100)}`
    const { value } = await auth.passcodes.create(ADMIN, accountId, { name: `Partner ${i}`, expiry: 365 })
    credentials.push({ accountId, passcode: value })
  }
  await pool.query(`ANALYZE ${schema}.account_passcodes`)
  await pool.query(`ANALYZE ${schema}.user_passcodes`)
  return { size, seedSeconds: (Date.now() - started) / 1000, auth, store, credentials, filler }
}

/** One timed authentication with a random issued passcode, in ns. */
async function timeOneAuthenticate(fixture: SizeFixture): Promise<number> {
  const credentials = fixture.credentials[Math.floor(Math.random() * fixture.credentials.length)]!
  const before = performance.now()
  const outcome = await fixture.auth.authenticate(credentials)
  const elapsed = (performance.now() - before) * 1e6
  if (!outcome.ok) throw new Error(`size ${fixture.size}: a valid passcode was refused (${outcome.reason})`)
  return elapsed
}

/** One timed store lookup of any stored row, filler or issued, with equal chance, in ns. */
async function timeOneLookup(fixture: SizeFixture): Promise<number> {
  const { accounts, users } = fixture.filler
  const real = fixture.credentials.length
  const r = Math.floor(Math.random() * (real + accounts + users))
  const hash =
    r < real
      ? hashOf(fixture.credentials[r]!.passcode)
      : r < real + accounts
        ? hashOf(`bench-a-${r - real + 1}`)
        : hashOf(`bench-u-${r - real - accounts + 1}`)
  const before = performance.now()
  const match = await fixture.store.findCredentialByHash(hash)
  const elapsed = (performance.now() - before) * 1e6
  if (match === null) throw new Error(`size ${fixture.size}: a stored hash was not found`)
  return elapsed
}

/** Seeds every size, then measures them in interleaved rounds. */
export async function runScale(settings: ScaleSettings = {}): Promise<ScaleReport> {
  const sizes = settings.sizes ?? [1_000, 1_000_000]
  const rounds = settings.rounds ?? 6
  const calls = settings.calls ?? Number(process.env.LOOKUPS ?? 3_000)
  const server = settings.connectionString === undefined ? await startTestPostgres() : undefined
  const pool = new pg.Pool({ connectionString: settings.connectionString ?? server!.connectionString, max: 4, connectionTimeoutMillis: 10_000 })
  pool.on('error', () => {})
  const fixtures: SizeFixture[] = []
  try {
    const postgresVersion = (await pool.query<{ server_version: string }>('SHOW server_version')).rows[0]!.server_version
    for (const size of sizes) fixtures.push(await prepareSize(pool, size))
    // Call by call, the sizes take turns, so a burst of noise on the machine hits both alike;
    // percentiles are over every call of every round.
    const authSamples = new Map<number, number[]>(sizes.map((size) => [size, []]))
    const lookupSamples = new Map<number, number[]>(sizes.map((size) => [size, []]))
    const turn = async (record: boolean, count: number) => {
      for (let i = 0; i < count; i++) {
        for (const fixture of i % 2 === 0 ? fixtures : [...fixtures].reverse()) {
          const authNs = await timeOneAuthenticate(fixture)
          const lookupNs = await timeOneLookup(fixture)
          if (record) {
            authSamples.get(fixture.size)!.push(authNs)
            lookupSamples.get(fixture.size)!.push(lookupNs)
          }
        }
      }
    }
    await turn(false, Math.min(WARMUP, calls))
    for (let round = 0; round < rounds; round++) await turn(true, calls)
    const largest = sizes.at(-1)!
    const explained = await pool.query(
      `EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ${statements(`bench_scale_${largest}`).findCredentialByHash.text}`,
      [hashOf('bench-a-12345')],
    )
    const plan = explained.rows.map((row: Record<string, string>) => row['QUERY PLAN']).join('\n')
    const indexed = /Index (Only )?Scan using account_passcodes_hash_key/.test(plan) && /Index (Only )?Scan using user_passcodes_hash_key/.test(plan)
    return {
      postgresVersion,
      plan,
      indexed,
      results: fixtures.map(({ size, seedSeconds }) => {
        const auth = Float64Array.from(authSamples.get(size)!)
        return {
          size,
          seedSeconds,
          authenticate: { ...latencyOf(auth), callsPerSecond: auth.length / (auth.reduce((sum, ns) => sum + ns, 0) / 1e9) },
          lookup: latencyOf(Float64Array.from(lookupSamples.get(size)!)),
        }
      }),
    }
  } finally {
    for (const fixture of fixtures) await fixture.auth.close()
    for (const size of sizes) await pool.query(`DROP SCHEMA IF EXISTS bench_scale_${size} CASCADE`).catch(() => {})
    await pool.end()
    await server?.stop()
  }
}

function printReport(report: ScaleReport): void {
  console.log(`PostgreSQL ${report.postgresVersion}`)
  console.log('\n| passcodes | seeded in | authenticate p50 | authenticate p99 | lookup p50 | lookup p99 |')
  console.log('|---:|---:|---:|---:|---:|---:|')
  for (const r of report.results) {
    const us = (value: number) => `${value.toFixed(0)} µs`
    console.log(
      `| ${r.size.toLocaleString('en')} | ${r.seedSeconds.toFixed(1)} s | ${us(r.authenticate.p50Us)} | ${us(r.authenticate.p99Us)} | ${us(r.lookup.p50Us)} | ${us(r.lookup.p99Us)} |`,
    )
  }
  console.log(`\nEXPLAIN ANALYZE of the lookup at the largest size:\n${report.plan}`)
  console.log(report.indexed ? '\nplan: index scans on both hash indexes' : '\nplan: NOT an index scan on both hash indexes')
}

if (process.send !== undefined) {
  runAsChild(() => runScale(JSON.parse(process.argv[2] ?? '{}') as ScaleSettings))
} else if (import.meta.url === `file://${process.argv[1]}`) {
  const availability = postgresAvailability()
  if (!availability.available) {
    console.log(`skipped: ${availability.reason}`)
  } else {
    const report = await runScale({ connectionString: process.env.DATABASE_URL })
    printReport(report)
    if (!report.indexed) process.exitCode = 1
  }
}
