/**
 * Benchmark: the verification lookup (`findCredentialByHash`) in PostgreSQL at 1 000
 * and at 1 000 000 stored passcodes (90 % account, 10 % user passcodes). Reports
 * p50/p99 of one lookup as the service makes it (one round trip through a `pg`
 * Pool) and the EXPLAIN ANALYZE plan, which must show index scans on both hash
 * indexes. Flat latency from 1k to 1M is the claim under test.
 *
 *   npx tsx bench/postgres-lookup.ts            # DATABASE_URL, or a temporary cluster
 *   LOOKUPS=50000 npx tsx bench/postgres-lookup.ts
 */
import { createHash } from 'node:crypto'
import pg from 'pg'
import { migrate, postgresStore } from '../src/stores/postgres/index'
import { statements } from '../src/stores/postgres/statements'
import { startTestPostgres } from '../test/helpers/postgres'

const SIZES = [1_000, 1_000_000]
const LOOKUPS = Number(process.env.LOOKUPS ?? 20_000)
const WARMUP = 2_000

const hashOf = (seed: string): string => createHash('sha256').update(seed).digest('hex')

async function seed(pool: pg.Pool, schema: string, size: number): Promise<{ accounts: number; users: number }> {
  const accounts = Math.round(size * 0.9)
  const users = size - accounts
  // Hashes are SHA-256 of 'bench-a-<i>' / 'bench-u-<i>', so the client can compute any of them.
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
  await pool.query(`ANALYZE ${schema}.account_passcodes`)
  await pool.query(`ANALYZE ${schema}.user_passcodes`)
  return { accounts, users }
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!
}

async function measure(pool: pg.Pool, schema: string, counts: { accounts: number; users: number }) {
  const store = postgresStore(pool, { schema, listen: false })
  const pick = (): string => {
    const user = Math.random() < 0.1
    const i = 1 + Math.floor(Math.random() * (user ? counts.users : counts.accounts))
    return hashOf(user ? `bench-u-${i}` : `bench-a-${i}`)
  }
  for (let i = 0; i < WARMUP; i++) await store.findCredentialByHash(pick())
  const hashes = Array.from({ length: LOOKUPS }, pick)
  const samples: number[] = []
  let found = 0
  for (const hash of hashes) {
    const start = process.hrtime.bigint()
    const match = await store.findCredentialByHash(hash)
    samples.push(Number(process.hrtime.bigint() - start) / 1e6)
    if (match !== null) found++
  }
  if (found !== LOOKUPS) throw new Error(`expected every lookup to match, ${found} of ${LOOKUPS} did`)
  samples.sort((a, b) => a - b)
  return { p50: percentile(samples, 50), p99: percentile(samples, 99), mean: samples.reduce((a, b) => a + b, 0) / samples.length }
}

async function main(): Promise<void> {
  const server = await startTestPostgres()
  const pool = new pg.Pool({ connectionString: server.connectionString, max: 4 })
  pool.on('error', () => {})
  const results: { size: number; p50: number; p99: number; mean: number; seedSeconds: number }[] = []
  try {
    const version = (await pool.query('SHOW server_version')).rows[0].server_version
    console.log(`PostgreSQL ${version}; ${LOOKUPS} sequential lookups per size after ${WARMUP} warm-up lookups (one pg Pool)`)
    let plan = ''
    for (const size of SIZES) {
      const schema = `bench_lookup_${size}`
      await pool.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`)
      await migrate(pool, { schema })
      const started = Date.now()
      const counts = await seed(pool, schema, size)
      const seedSeconds = (Date.now() - started) / 1000
      results.push({ size, seedSeconds, ...(await measure(pool, schema, counts)) })
      const explained = await pool.query(`EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ${statements(schema).findCredentialByHash}`, [
        hashOf('bench-a-12345'),
      ])
      plan = explained.rows.map((row: Record<string, string>) => row['QUERY PLAN']).join('\n')
      await pool.query(`DROP SCHEMA ${schema} CASCADE`)
    }
    console.log('\n| passcodes | seeded in | p50 (ms) | p99 (ms) | mean (ms) |')
    console.log('|---:|---:|---:|---:|---:|')
    for (const r of results) {
      console.log(`| ${r.size.toLocaleString('en')} | ${r.seedSeconds.toFixed(1)} s | ${r.p50.toFixed(3)} | ${r.p99.toFixed(3)} | ${r.mean.toFixed(3)} |`)
    }
    console.log(`\nEXPLAIN ANALYZE of the lookup at ${SIZES.at(-1)!.toLocaleString('en')} passcodes:\n${plan}`)
    const indexed = /Index (Only )?Scan using account_passcodes_hash_key/.test(plan) && /Index (Only )?Scan using user_passcodes_hash_key/.test(plan)
    console.log(indexed ? '\nplan: index scans on both hash indexes' : '\nplan: NOT an index scan on both hash indexes')
    if (!indexed) process.exitCode = 1
  } finally {
    await pool.end()
    await server.stop()
  }
}

await main()
