/**
 * The verification lookup through PgBouncer in transaction mode, where no named
 * statement can be kept, side by side in one process: every way below is sent unnamed
 * through the same PgBouncer and `pg.Pool` (10 connections), as the store must there.
 * The one-column indexed read `SELECT account_id … WHERE hash = $1` is the bare read
 * the cold-path goal compares with; then the store's lookup statement (planned by the
 * server on every call), the schema's lookup function as migration 10 creates it (its
 * three probes one after the other), a function running the lookup statement's
 * `UNION ALL … LIMIT 1` as one query instead, and the migration's function with
 * `SET search_path` pinned (which the server saves and restores on every call), and
 * the migration's three probes returning a JSON array of each kind's own columns
 * instead of `row_to_json`'s 26 keys (a form no migration creates); last, the statement
 * concurrent misses share (`callFindCredentialsByHashes`: the function over an array of
 * keys) with 1 key and with 8 (its figures per statement: divide by 8 for a key).
 * Scenarios take turns in every round (order reversed every other round), one call at
 * a time and 16 in flight; reported are median calls/s, the median per-round ratio to
 * the bare read, and the PostgreSQL server's CPU per call (a local server only).
 *
 *   npx tsx bench/pgbouncer-lookup.ts
 *   npx tsx bench/pgbouncer-lookup.ts --rounds=10 --slice-ms=500
 *
 * Needs PostgreSQL's binaries (or `DATABASE_URL`) and Debian's `pgbouncer`, as the tests.
 */
import { createHash } from 'node:crypto'
import pg from 'pg'
import { createPasscodeAuth } from '../src/index'
import { migrate, postgresStore } from '../src/stores/postgres/index'
import { MIGRATIONS } from '../src/stores/postgres/migrations'
import { statements } from '../src/stores/postgres/statements'
import { startTestPgBouncer } from '../test/helpers/pgbouncer'
import { startTestPostgres } from '../test/helpers/postgres'
import { ADMIN } from './fixtures'
import { postgresCpuSampler } from './postgres-cpu'
import { median } from './stats'

const PASSCODES = 100
const POOL_SIZE = 10
const CONCURRENCIES = [1, 16] as const
const SCHEMA = 'bench_pgbouncer_lookup'

function option(name: string): string | undefined {
  const prefix = `--${name}=`
  return process.argv.find((argument) => argument.startsWith(prefix))?.slice(prefix.length)
}

/** Calls/s and the server's CPU µs per call, `concurrency` in flight for `sliceMs`. */
async function slice(
  call: (i: number) => Promise<boolean>,
  concurrency: number,
  sliceMs: number,
  serverCpu?: () => number,
): Promise<{ rate: number; serverUs: number }> {
  const started = performance.now()
  const cpuBefore = serverCpu?.() ?? 0
  let calls = 0
  let stop = false
  const worker = async () => {
    while (!stop) {
      for (let i = 0; i < 16; i++) if (!(await call(calls++))) throw new Error('a stored credential was not found')
      if (performance.now() - started >= sliceMs) stop = true
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker))
  return { rate: (calls / (performance.now() - started)) * 1000, serverUs: (((serverCpu?.() ?? 0) - cpuBefore) * 1000) / calls }
}

const rounds = Number(option('rounds') ?? 6)
const sliceMs = Number(option('slice-ms') ?? 500)
const server = process.env.DATABASE_URL === undefined ? await startTestPostgres() : undefined
const connectionString = process.env.DATABASE_URL ?? server!.connectionString
const direct = new pg.Pool({ connectionString, max: 1, connectionTimeoutMillis: 10_000 })
direct.on('error', () => {})
let through: pg.Pool | undefined
let bouncer: Awaited<ReturnType<typeof startTestPgBouncer>> | undefined
try {
  await direct.query(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`)
  await migrate(direct, { schema: SCHEMA })
  // The function as the migration creates it, again under another name with the search
  // path pinned, and one that runs the lookup statement itself.
  const [create] = MIGRATIONS.find((migration) => migration.name === 'the verification lookup as a function')!.statements(SCHEMA)
  await direct.query(
    create!
      .replace(`${SCHEMA}.find_credential_by_hash(text)`, `${SCHEMA}.find_credential_pinned(text)`)
      .replace('SECURITY INVOKER', 'SECURITY INVOKER SET search_path = pg_catalog, pg_temp'),
  )
  await direct.query(`CREATE FUNCTION ${SCHEMA}.find_credential_union(text) RETURNS text LANGUAGE plpgsql STABLE AS $union$
    DECLARE answer text;
    BEGIN
      SELECT row_to_json(r)::text INTO answer FROM (${statements(SCHEMA).findCredentialByHash.text}) AS r;
      RETURN answer;
    END $union$`)
  // The same three probes returning a JSON array of only each kind's own columns
  // (what a schema version could return instead of row_to_json's 26 keys).
  const accountArray = (column: string) => `SELECT json_build_array('account', p.account_id, p.id, p.name, p.name_key, p.hash, p.hint,
        p.expiry_days, p.created_at, p.updated_at, p.expires_at, p.partners, p.previous_hash, p.previous_hash_ends_at, p.last_used_at,
        p.last_used_partner, p.pepper_id, p.disabled_at, p.description, coalesce(a.accepted_passcodes, 'account'))::text INTO answer
      FROM ${SCHEMA}.account_passcodes p LEFT JOIN ${SCHEMA}.accounts a ON a.account_id = p.account_id WHERE p.${column} = $1;`
  await direct.query(`CREATE FUNCTION ${SCHEMA}.find_credential_array(text) RETURNS text LANGUAGE plpgsql STABLE AS $array$
    DECLARE answer text;
    BEGIN
      ${accountArray('hash')}
      IF answer IS NOT NULL THEN RETURN answer; END IF;
      ${accountArray('previous_hash')}
      IF answer IS NOT NULL THEN RETURN answer; END IF;
      SELECT json_build_array('user', u.account_id, u.user_id, u.hash, u.hint, u.expires_at, u.last_used_at, u.last_used_partner,
        u.ciphertext, u.validity_type, u.validity_days, u.granted_at, u.revoked_at, u.pepper_id,
        coalesce(a.accepted_passcodes, 'account'))::text INTO answer
      FROM ${SCHEMA}.user_passcodes u LEFT JOIN ${SCHEMA}.accounts a ON a.account_id = u.account_id WHERE u.hash = $1;
      RETURN answer;
    END $array$`)
  const auth = createPasscodeAuth({ store: postgresStore(direct, { schema: SCHEMA, listen: false }), cache: false })
  const hashes: string[] = []
  for (let i = 0; i < PASSCODES; i++) {
    const { value } = await auth.passcodes.create(ADMIN, `acc_${i % 10}`, { name: `Partner ${i}`, expiry: 365 })
    hashes.push(createHash('sha256').update(value).digest('hex'))
  }
  await auth.close()

  bouncer = await startTestPgBouncer(connectionString)
  const pool = new pg.Pool({ connectionString: bouncer.connectionString, max: POOL_SIZE, connectionTimeoutMillis: 10_000 })
  through = pool
  pool.on('error', () => {})
  await Promise.all(Array.from({ length: POOL_SIZE }, () => pool.query('SELECT 1')))
  const sql = statements(SCHEMA)
  const read = (text: string) => async (i: number) => (await pool.query(text, [hashes[i % PASSCODES]])).rows.length === 1
  const called = (text: string) => async (i: number) =>
    typeof (await pool.query<{ json: string | null }>(text, [hashes[i % PASSCODES]])).rows[0]?.json === 'string'
  // The function over an array of keys, as concurrent misses share it (pgPreparedLookup): one statement, n rows.
  const shared = (n: number) => async (i: number) => {
    const keys = Array.from({ length: n }, (_, k) => hashes[(i * n + k) % PASSCODES]!)
    const { rows } = await pool.query<{ json: string | null }>(sql.callFindCredentialsByHashes.text, [keys])
    return rows.length === n && rows.every((row) => typeof row.json === 'string')
  }
  const scenarios: readonly { name: string; call: (i: number) => Promise<boolean> }[] = [
    { name: 'one-column indexed read (the bare read)', call: read(`SELECT account_id FROM ${SCHEMA}.account_passcodes WHERE hash = $1`) },
    { name: "the store's lookup statement", call: read(sql.findCredentialByHash.text) },
    { name: 'the lookup function (migration 10)', call: called(sql.callFindCredentialByHash.text) },
    { name: "a function with the statement's UNION ALL", call: called(`SELECT ${SCHEMA}.find_credential_union($1::text) AS json`) },
    { name: 'the lookup function, SET search_path', call: called(`SELECT ${SCHEMA}.find_credential_pinned($1::text) AS json`) },
    { name: 'the lookup function, a JSON array', call: called(`SELECT ${SCHEMA}.find_credential_array($1::text) AS json`) },
    { name: 'the shared statement, 1 key', call: shared(1) },
    { name: 'the shared statement, 8 keys (per statement)', call: shared(8) },
  ]
  for (const scenario of scenarios) for (const concurrency of CONCURRENCIES) await slice(scenario.call, concurrency, 200)
  const serverCpu = process.env.DATABASE_URL === undefined ? await postgresCpuSampler(direct) : undefined
  const rates = new Map<string, number[]>()
  const cpus = new Map<string, number[]>()
  for (let round = 0; round < rounds; round++) {
    for (const concurrency of CONCURRENCIES) {
      for (const scenario of round % 2 === 0 ? scenarios : [...scenarios].reverse()) {
        const key = `${scenario.name}@${concurrency}`
        const { rate, serverUs } = await slice(scenario.call, concurrency, sliceMs, serverCpu)
        rates.set(key, [...(rates.get(key) ?? []), rate])
        cpus.set(key, [...(cpus.get(key) ?? []), serverUs])
      }
    }
  }
  console.log(
    `Through PgBouncer, unnamed; ${rounds} rounds of ${sliceMs} ms per scenario; calls/s, per-round ratio to the bare read, server CPU per call (medians)`,
  )
  for (const concurrency of CONCURRENCIES) {
    const bare = rates.get(`${scenarios[0]!.name}@${concurrency}`)!
    for (const scenario of scenarios) {
      const key = `${scenario.name}@${concurrency}`
      const own = rates.get(key)!
      const ratios = own.map((rate, i) => rate / bare[i]!)
      const cpu = serverCpu === undefined ? '' : `  ${median(cpus.get(key)!).toFixed(0).padStart(4)} µs`
      console.log(
        `${String(concurrency).padStart(2)} in flight  ${scenario.name.padEnd(42)} ${Math.round(median(own)).toString().padStart(6)}/s${cpu}  ${median(ratios).toFixed(2)} (${ratios.map((r) => r.toFixed(2)).join(' ')})`,
      )
    }
  }
} finally {
  await through?.end()
  await bouncer?.stop()
  await direct.query(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`).catch(() => {})
  await direct.end()
  await server?.stop()
}
