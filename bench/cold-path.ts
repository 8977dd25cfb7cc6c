/**
 * Child process: the cold path against its own limit. With the verification cache
 * off, `auth.authenticate()` runs next to the bare read it cannot beat: the store's
 * own lookup SQL, prepared, through the same `pg.Pool` (10 connections), or through
 * the same PGlite instance's public `query`; and, for reference, a one-column
 * `SELECT account_id FROM account_passcodes WHERE hash = $1` the same way; and the
 * schema's lookup function (what the store calls where named statements cannot be
 * kept) next to the store's named statement. Each runs one call at a time and with 16 in flight; every scenario of a
 * store takes turns in each round, so noise hits all alike, and each ratio is the
 * median of per-round ratios. Also reported: process CPU per call (this process:
 * the client side), the store's own lookup alone, and the server round trips per
 * miss, one at a time and with 16 in flight (counted on the pool's connections), and
 * the same for a service on step 1 of a pepper change (two peppers: every miss looks
 * two hashes up), whose `authenticate()` also takes its turn in the rounds.
 *
 *   node --import tsx bench/cold-path.ts '{"rounds":3,"sliceMs":500}'
 *   DATABASE_URL=postgres://… node --import tsx bench/cold-path.ts
 *   node --import tsx bench/cold-path.ts '{"stores":["postgres","pgbouncer"]}'   # also through PgBouncer (transaction mode)
 *   node --import tsx bench/cold-path.ts '{"stores":["pgbouncer"],"pin":true}'   # …and again with PostgreSQL and PgBouncer on core 0, this process on core 1
 */
import { createHash } from 'node:crypto'
import { PGlite } from '@electric-sql/pglite'
import pg from 'pg'
import { createPasscodeAuth, type PasscodeAuth, type PasscodeStore } from '../src/index'
import { createPasscodeHasher } from '../src/core/hashing'
import { migrate, postgresPartners, postgresStore } from '../src/stores/postgres/index'
import { startTestPgBouncer, type TestPgBouncer } from '../test/helpers/pgbouncer'
import { startTestPostgres, type TestPostgres } from '../test/helpers/postgres'
import { runAsChild } from './child'
import { statements } from '../src/stores/postgres/statements'
import { ADMIN, PARTNER } from './fixtures'
import { ALL_CPUS, pinProcesses, pinUnavailable } from './pin'
import { postgresCpuSampler, postmasterPid, processTree } from './postgres-cpu'
import { median } from './stats'

/** Settings passed as JSON in argv[2]. */
export interface ColdPathSettings {
  readonly rounds?: number
  /** Length of one scenario's slice per round. */
  readonly sliceMs?: number
  readonly connectionString?: string
  /**
   * Which stores to run. `pgbouncer`: the PostgreSQL store through PgBouncer in
   * transaction mode (Debian's `pgbouncer`, started here in front of the same server).
   * @default ['postgres', 'pglite']
   */
  readonly stores?: readonly ColdPathStoreName[]
  /**
   * With `pgbouncer`: after its measurement, the same scenarios again (store
   * `pgbouncer-pinned`) with PostgreSQL (postmaster and backends) and PgBouncer pinned to
   * core 0 and this process to core 1 (`taskset`, Linux, a local server): the
   * application and the database on cores of their own, as in a fleet where they run
   * on different machines, so a ratio shows per-request cost rather than the sum of
   * three processes' CPU on shared cores. Both are reported.
   */
  readonly pin?: boolean
}

/**
 * The stores the cold path is measured on; `pgbouncer-pinned` is `pgbouncer` measured
 * again with the database side and this process on cores of their own (`pin`).
 */
export type ColdPathStoreName = 'postgres' | 'pgbouncer' | 'pgbouncer-pinned' | 'pglite'

/** One scenario's medians over rounds. */
export interface ColdPathScenario {
  readonly name: string
  readonly concurrency: number
  readonly callsPerSecond: number
  /** This process's CPU time (user + system) per call, µs. */
  readonly cpuUsPerCall: number
  /** The PostgreSQL server's CPU time per call, µs (a local server only). */
  readonly serverCpuUsPerCall?: number
}

/** One store's results. */
export interface ColdPathStore {
  readonly store: ColdPathStoreName
  readonly scenarios: readonly ColdPathScenario[]
  /** Median per-round ratio authenticate / a read, per concurrency and read (`against`, the read's name). */
  readonly ratios: readonly {
    readonly concurrency: number
    readonly against: string
    /** Whether `against` is the read the goal (≥ 0.8) is set against on this store; the others are shown beside it. */
    readonly goal: boolean
    readonly ratio: number
    /** The per-round ratios the median is taken over. */
    readonly rounds?: readonly number[]
  }[]
  /**
   * `auth.connect()` with a warm cache and the store's whitelist (`postgresPartners`)
   * over the same with a static list: median per-round ratio of calls/s, per concurrency.
   */
  readonly connectStoreOverStatic?: readonly { readonly concurrency: number; readonly ratio: number }[]
  /** Statements sent to the server per cache-miss authenticate (pg only). */
  readonly roundTripsPerMiss?: number
  /** The same with 16 misses in flight (concurrent misses share statements). */
  readonly roundTripsPerMissInFlight?: number
  /** Statements per cache miss with two peppers (step 1 of a pepper change), one at a time and with 16 in flight. */
  readonly twoPeppers?: { readonly roundTripsPerMiss: number; readonly roundTripsPerMissInFlight: number }
}

/**
 * The service's own CPU time per cache miss, without I/O: `authenticate()` on the
 * memory store minus that store's lookup alone (hash given), µs; median of
 * alternating slices. What a miss costs this process beside the read itself.
 */
export interface ServiceWork {
  readonly plainUs: number
  /** With a pepper (HMAC-SHA256 instead of SHA-256). */
  readonly pepperedUs: number
}

/** What the child reports. */
export interface ColdPathReport {
  readonly stores: readonly ColdPathStore[]
  readonly serviceWork?: ServiceWork
  readonly passcodes: number
  readonly poolSize: number
}

const PASSCODES = 100
/** The row of the schema's lookup function: the credential as JSON, or NULL. */
interface Called {
  json: string | null
}
const POOL_SIZE = 10
const CONCURRENCIES = [1, 16] as const

interface Scenario {
  readonly name: string
  /**
   * `goal`: the read the goal is set against on this store (its name says which);
   * `compared`: another read, shown beside it; `own`: the store's own lookup call (hash
   * given), also shown beside it; `lookup`: measured, no ratio.
   */
  readonly kind: 'authenticate' | 'goal' | 'compared' | 'own' | 'lookup'
  readonly call: (i: number) => Promise<boolean>
}

/** Runs `call` with `concurrency` in flight for `sliceMs`; calls/s and CPU µs per call. */
async function slice(
  call: (i: number) => Promise<boolean>,
  concurrency: number,
  sliceMs: number,
  serverCpu?: () => number,
): Promise<{ rate: number; cpuUs: number; serverCpuUs?: number }> {
  const started = performance.now()
  const cpuBefore = process.cpuUsage()
  const serverBefore = serverCpu?.()
  let calls = 0
  let stop = false
  const worker = async () => {
    while (!stop) {
      for (let i = 0; i < 16; i++) {
        if (!(await call(calls++))) throw new Error('a valid credential was refused')
      }
      if (performance.now() - started >= sliceMs) stop = true
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker))
  const elapsed = performance.now() - started
  const cpu = process.cpuUsage(cpuBefore)
  const serverCpuUs = serverBefore === undefined ? undefined : ((serverCpu!() - serverBefore) * 1000) / calls
  return { rate: (calls / elapsed) * 1000, cpuUs: (cpu.user + cpu.system) / calls, ...(serverCpuUs === undefined ? {} : { serverCpuUs }) }
}

async function seed(
  store: PasscodeStore,
  auth = createPasscodeAuth({ store, cache: false }),
): Promise<{ auth: PasscodeAuth; credentials: { accountId: string; passcode: string }[]; hashes: string[] }> {
  const credentials: { accountId: string; passcode: string }[] = []
  for (let i = 0; i < PASSCODES; i++) {
    const { value } = await auth.passcodes.create(ADMIN, `acc_cold_${i % 10}`, { name: `Partner ${i}`, expiry: 365 })
    credentials.push({ accountId: `acc_cold_${i % 10}`, passcode: value })
  }
  const hashes = credentials.map(({ passcode }) => createHash('sha256').update(passcode).digest('hex'))
  return { auth, credentials, hashes }
}

/** The two peppers of the pepper-change scenario: `authenticate()` with `{ current: OLD, next: [NEW] }`. */
const [OLD_PEPPER, NEW_PEPPER] = ['bench-pepper-old-0123456789abcdef', 'bench-pepper-new-0123456789abcdef']

/**
 * A service on step 1 of a pepper change and its credentials: half written under the
 * current pepper, half under the next one (by instances a step ahead), so a miss looks
 * two hashes up (nothing is re-hashed on this step, so the mix holds).
 */
async function seedTwoPeppers(store: PasscodeStore): Promise<{ auth: PasscodeAuth; credentials: { accountId: string; passcode: string }[] }> {
  const auth = createPasscodeAuth({ store, cache: false, pepper: { current: OLD_PEPPER, next: [NEW_PEPPER] } })
  const ahead = createPasscodeAuth({ store, cache: false, pepper: NEW_PEPPER })
  const credentials: { accountId: string; passcode: string }[] = []
  for (let i = 0; i < PASSCODES; i++) {
    const accountId = `acc_peppers_${i % 10}`
    const { value } = await (i % 2 === 0 ? auth : ahead).passcodes.create(ADMIN, accountId, { name: `Partner ${i}`, expiry: 365 })
    credentials.push({ accountId, passcode: value })
  }
  await ahead.close()
  return { auth, credentials }
}

/** The two-pepper scenario of a store (see {@link seedTwoPeppers}). */
const twoPepperScenario = (peppers: { auth: PasscodeAuth; credentials: { accountId: string; passcode: string }[] }, where = ''): Scenario => ({
  name: `authenticate(), cache off, two peppers (a pepper change, step 1)${where}`,
  kind: 'lookup',
  call: async (i) => (await peppers.auth.authenticate(peppers.credentials[i % PASSCODES]!)).ok,
})

/** Statements per two-pepper miss, one at a time and with 16 in flight. */
async function twoPepperStatements(
  peppers: { auth: PasscodeAuth; credentials: { accountId: string; passcode: string }[] },
  sent: { readonly count: number },
): Promise<{ roundTripsPerMiss: number; roundTripsPerMissInFlight: number }> {
  const before = sent.count
  for (let i = 0; i < 200; i++) await peppers.auth.authenticate(peppers.credentials[i % PASSCODES]!)
  return {
    roundTripsPerMiss: (sent.count - before) / 200,
    roundTripsPerMissInFlight: await statementsPerMissInFlight(peppers.auth, peppers.credentials, sent),
  }
}

async function measure(
  store: ColdPathStoreName,
  scenarios: readonly Scenario[],
  settings: Required<Pick<ColdPathSettings, 'rounds' | 'sliceMs'>>,
  serverCpu?: () => number,
): Promise<Omit<ColdPathStore, 'roundTripsPerMiss'>> {
  const rates = new Map<string, number[]>()
  const cpus = new Map<string, number[]>()
  const serverCpus = new Map<string, number[]>()
  const push = (map: Map<string, number[]>, key: string, value: number | undefined) => {
    if (value !== undefined) map.set(key, [...(map.get(key) ?? []), value])
  }
  const key = (scenario: Scenario, concurrency: number) => `${scenario.name}@${concurrency}`
  for (const scenario of scenarios) for (const concurrency of CONCURRENCIES) await slice(scenario.call, concurrency, Math.min(300, settings.sliceMs))
  for (let round = 0; round < settings.rounds; round++) {
    for (const concurrency of CONCURRENCIES) {
      const order = round % 2 === 0 ? scenarios : [...scenarios].reverse()
      for (const scenario of order) {
        const { rate, cpuUs, serverCpuUs } = await slice(scenario.call, concurrency, settings.sliceMs, serverCpu)
        push(rates, key(scenario, concurrency), rate)
        push(cpus, key(scenario, concurrency), cpuUs)
        push(serverCpus, key(scenario, concurrency), serverCpuUs)
      }
    }
  }
  const authenticate = scenarios.find((s) => s.kind === 'authenticate')!
  const reads = scenarios.filter((s) => s.kind === 'goal' || s.kind === 'compared' || s.kind === 'own')
  return {
    store,
    scenarios: scenarios.flatMap((scenario) =>
      CONCURRENCIES.map((concurrency) => ({
        name: scenario.name,
        concurrency,
        callsPerSecond: median(rates.get(key(scenario, concurrency))!),
        cpuUsPerCall: median(cpus.get(key(scenario, concurrency))!),
        ...(serverCpus.has(key(scenario, concurrency)) ? { serverCpuUsPerCall: median(serverCpus.get(key(scenario, concurrency))!) } : {}),
      })),
    ),
    ratios: CONCURRENCIES.flatMap((concurrency) =>
      reads.map((read) => {
        const a = rates.get(key(authenticate, concurrency))!
        const b = rates.get(key(read, concurrency))!
        const ratios = a.map((rate, i) => rate / b[i]!)
        return { concurrency, against: read.name, goal: read.kind === 'goal', ratio: median(ratios), rounds: ratios }
      }),
    ),
  }
}

/** `auth.connect()` with the store's whitelist against a static one, both with a warm cache, in interleaved rounds. */
async function connectComparison(
  db: Parameters<typeof postgresPartners>[0],
  store: PasscodeStore,
  credentials: readonly { accountId: string; passcode: string }[],
  settings: Required<Pick<ColdPathSettings, 'rounds' | 'sliceMs'>>,
  schema?: string,
): Promise<{ concurrency: number; ratio: number }[]> {
  const partners = postgresPartners(db, schema === undefined ? {} : { schema })
  await partners.add(PARTNER)
  const withStore = createPasscodeAuth({ store, partners })
  const withList = createPasscodeAuth({ store, partners: [PARTNER] })
  try {
    const call = (auth: PasscodeAuth) => async (i: number) => {
      const { accountId, passcode } = credentials[i % credentials.length]!
      const headers = { 'x-service-account-id': accountId, 'x-service-passcode': passcode }
      return (await auth.connect({ headers, partner: PARTNER })).statusCode === 200
    }
    const sides = [call(withStore), call(withList)] as const
    // Warm both caches, and let the registry's LISTEN start and its list load.
    for (let i = 0; i < 3; i++) for (const side of sides) await slice(side, 1, 100)
    if (typeof partners.isWhitelisted(PARTNER) !== 'boolean') throw new Error('the stored whitelist is not answering from memory')
    const ratios = new Map<number, number[]>(CONCURRENCIES.map((c) => [c, []]))
    for (let round = 0; round < settings.rounds; round++) {
      for (const concurrency of CONCURRENCIES) {
        const order = round % 2 === 0 ? sides : ([sides[1], sides[0]] as const)
        const rates = []
        for (const side of order) rates.push((await slice(side, concurrency, settings.sliceMs / 2)).rate)
        const [storeRate, listRate] = round % 2 === 0 ? rates : [rates[1]!, rates[0]!]
        ratios.get(concurrency)!.push(storeRate! / listRate!)
      }
    }
    return CONCURRENCIES.map((concurrency) => ({ concurrency, ratio: median(ratios.get(concurrency)!) }))
  } finally {
    await withStore.close()
    await withList.close()
    await partners.close()
  }
}

/** Statements sent per cache miss with 16 misses in flight, each worker on passcodes of its own (16 apart), 320 in all. */
async function statementsPerMissInFlight(
  auth: PasscodeAuth,
  credentials: readonly { accountId: string; passcode: string }[],
  sent: { readonly count: number },
): Promise<number> {
  const before = sent.count
  await Promise.all(
    Array.from({ length: 16 }, async (_, worker) => {
      for (let i = worker; i < 320; i += 16) await auth.authenticate(credentials[i % PASSCODES]!)
    }),
  )
  return (sent.count - before) / 320
}

/** Counts the statements a pg pool's connections send (each one at least one round trip). */
function countStatements(pool: pg.Pool): { readonly count: number } {
  const counter = { count: 0 }
  pool.on('connect', (client) => {
    const query = client.query.bind(client) as (...args: unknown[]) => unknown
    ;(client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
      counter.count++
      return query(...args)
    }
  })
  return counter
}

async function onPostgres(connectionString: string, settings: Required<Pick<ColdPathSettings, 'rounds' | 'sliceMs'>>): Promise<ColdPathStore> {
  const schema = 'bench_cold_path'
  const pool = new pg.Pool({ connectionString, max: POOL_SIZE, connectionTimeoutMillis: 10_000 })
  pool.on('error', () => {})
  const sent = countStatements(pool)
  try {
    await pool.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`)
    await migrate(pool, { schema })
    const store = postgresStore(pool, { schema, listen: false })
    const { auth, credentials, hashes } = await seed(store)
    const peppers = await seedTwoPeppers(store)
    // Open every connection of the pool before measuring.
    await Promise.all(Array.from({ length: POOL_SIZE }, () => pool.query('SELECT 1')))
    const bareText = `SELECT account_id FROM ${schema}.account_passcodes WHERE hash = $1`
    const storeText = statements(schema).findCredentialByHash.text
    const storeJson = `SELECT row_to_json(r)::text AS json FROM (${storeText}) AS r`
    const callText = statements(schema).callFindCredentialByHash.text
    const scenarios: Scenario[] = [
      {
        name: 'authenticate(), cache off',
        kind: 'authenticate',
        call: async (i) => (await auth.authenticate(credentials[i % PASSCODES]!)).ok,
      },
      {
        name: 'one-column prepared indexed read',
        kind: 'compared',
        call: async (i) => (await pool.query({ name: 'bench_bare_read', text: bareText, values: [hashes[i % PASSCODES]] })).rows.length === 1,
      },
      {
        name: "the store's lookup SQL, prepared",
        kind: 'goal',
        call: async (i) => (await pool.query({ name: 'bench_store_sql', text: storeText, values: [hashes[i % PASSCODES]] })).rows.length === 1,
      },
      {
        name: "the store's lookup SQL, unnamed (parsed and planned per call, as before)",
        kind: 'lookup',
        call: async (i) => (await pool.query(storeText, [hashes[i % PASSCODES]])).rows.length === 1,
      },
      // What the store sends on a pool (its named statement, the row as JSON) next to the
      // schema's lookup function, named and unnamed: which one a direct connection should use.
      {
        name: "the store's named lookup statement (row as JSON)",
        kind: 'lookup',
        call: async (i) => (await pool.query({ name: 'bench_store_json', text: storeJson, values: [hashes[i % PASSCODES]] })).rows.length === 1,
      },
      {
        name: "the store's lookup function, named",
        kind: 'lookup',
        call: async (i) =>
          (await pool.query<Called>({ name: 'bench_store_call', text: callText, values: [hashes[i % PASSCODES]] })).rows[0]?.json != null,
      },
      {
        name: "the store's lookup function, unnamed",
        kind: 'lookup',
        call: async (i) => (await pool.query<Called>(callText, [hashes[i % PASSCODES]])).rows[0]?.json != null,
      },
      {
        name: 'store lookup alone',
        kind: 'own',
        call: async (i) => (await store.findCredentialByHash(hashes[i % PASSCODES]!)) !== null,
      },
      twoPepperScenario(peppers),
    ]
    const before = sent.count
    for (let i = 0; i < 200; i++) await auth.authenticate(credentials[i % PASSCODES]!)
    const roundTripsPerMiss = (sent.count - before) / 200
    const roundTripsPerMissInFlight = await statementsPerMissInFlight(auth, credentials, sent)
    const twoPeppers = await twoPepperStatements(peppers, sent)
    const result = await measure('postgres', scenarios, settings, await postgresCpuSampler(pool))
    await auth.close()
    await peppers.auth.close()
    const connectStoreOverStatic = await connectComparison(pool, store, credentials, settings, schema)
    return { ...result, roundTripsPerMiss, roundTripsPerMissInFlight, twoPeppers, connectStoreOverStatic }
  } finally {
    await pool.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch(() => {})
    await pool.end()
  }
}

/**
 * The same cache miss through PgBouncer in transaction mode, next to bare reads through
 * the same PgBouncer and pool. A transaction pooler hands each statement any server
 * connection, so a named prepared statement cannot be relied on (PgBouncer 1.18 does
 * not track them): the store falls back to the schema's lookup function, called
 * unnamed, and the bare reads are unnamed too, the only way a host can read through
 * it. The goal is set against the one-column indexed read; the store's lookup SQL,
 * unnamed (what the store sent before the function), is shown beside it.
 */
async function onPgBouncer(
  connectionString: string,
  settings: Required<Pick<ColdPathSettings, 'rounds' | 'sliceMs'>>,
  pin: boolean,
): Promise<ColdPathStore[]> {
  const schema = 'bench_cold_path_pgbouncer'
  const direct = new pg.Pool({ connectionString, max: 1, connectionTimeoutMillis: 10_000 })
  direct.on('error', () => {})
  let bouncer: TestPgBouncer | undefined
  let pool: pg.Pool | undefined
  try {
    await direct.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`)
    await migrate(direct, { schema })
    bouncer = await startTestPgBouncer(connectionString)
    const through = new pg.Pool({ connectionString: bouncer.connectionString, max: POOL_SIZE, connectionTimeoutMillis: 10_000 })
    pool = through
    through.on('error', () => {})
    const sent = countStatements(through)
    const store = postgresStore(through, { schema, listen: false })
    const { auth, credentials, hashes } = await seed(store)
    const peppers = await seedTwoPeppers(store)
    await Promise.all(Array.from({ length: POOL_SIZE }, () => through.query('SELECT 1')))
    const bareText = `SELECT account_id FROM ${schema}.account_passcodes WHERE hash = $1`
    const storeText = statements(schema).findCredentialByHash.text
    const callText = statements(schema).callFindCredentialByHash.text
    const scenarios: Scenario[] = [
      {
        name: 'authenticate(), cache off, through PgBouncer',
        kind: 'authenticate',
        call: async (i) => (await auth.authenticate(credentials[i % PASSCODES]!)).ok,
      },
      {
        name: 'one-column indexed read, unnamed, through PgBouncer',
        kind: 'goal',
        call: async (i) => (await through.query(bareText, [hashes[i % PASSCODES]])).rows.length === 1,
      },
      {
        name: "the store's lookup SQL, unnamed, through PgBouncer",
        kind: 'compared',
        call: async (i) => (await through.query(storeText, [hashes[i % PASSCODES]])).rows.length === 1,
      },
      {
        name: "the store's lookup function, unnamed, through PgBouncer",
        kind: 'lookup',
        call: async (i) => (await through.query<Called>(callText, [hashes[i % PASSCODES]])).rows[0]?.json != null,
      },
      {
        name: 'store lookup alone',
        kind: 'own',
        call: async (i) => (await store.findCredentialByHash(hashes[i % PASSCODES]!)) !== null,
      },
      twoPepperScenario(peppers, ', through PgBouncer'),
    ]
    // Also lets the store find that named statements do not work here (its fallback).
    const before = sent.count
    for (let i = 0; i < 200; i++) await auth.authenticate(credentials[i % PASSCODES]!)
    const roundTripsPerMiss = (sent.count - before) / 200
    const roundTripsPerMissInFlight = await statementsPerMissInFlight(auth, credentials, sent)
    const twoPeppers = await twoPepperStatements(peppers, sent)
    const serverCpu = await postgresCpuSampler(direct)
    const results: ColdPathStore[] = [
      { ...(await measure('pgbouncer', scenarios, settings, serverCpu)), roundTripsPerMiss, roundTripsPerMissInFlight, twoPeppers },
    ]
    if (pin) {
      const postmaster = await postmasterPid(direct)
      if (postmaster === undefined || bouncer.pid === undefined) throw new Error('pinning needs a local PostgreSQL this user can see')
      // Every backend is open by now (the pools' connections): a later one inherits the postmaster's core.
      pinProcesses([...processTree(postmaster), bouncer.pid], '0')
      pinProcesses([process.pid], '1')
      try {
        results.push({
          ...(await measure('pgbouncer-pinned', scenarios, settings, serverCpu)),
          roundTripsPerMiss,
          roundTripsPerMissInFlight,
          twoPeppers,
        })
      } finally {
        pinProcesses([...processTree(postmaster), bouncer.pid, process.pid], ALL_CPUS)
      }
    }
    await auth.close()
    await peppers.auth.close()
    return results
  } finally {
    await pool?.end().catch(() => {})
    await bouncer?.stop()
    await direct.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch(() => {})
    await direct.end()
  }
}

async function onPGlite(settings: Required<Pick<ColdPathSettings, 'rounds' | 'sliceMs'>>): Promise<ColdPathStore> {
  const db = new PGlite()
  try {
    await migrate(db)
    const store = postgresStore(db, { listen: false })
    const { auth, credentials, hashes } = await seed(store)
    const peppers = await seedTwoPeppers(store)
    const bareText = 'SELECT account_id FROM passcode_auth.account_passcodes WHERE hash = $1'
    const storeText = statements('passcode_auth').findCredentialByHash.text
    const scenarios: Scenario[] = [
      {
        name: 'authenticate(), cache off',
        kind: 'authenticate',
        call: async (i) => (await auth.authenticate(credentials[i % PASSCODES]!)).ok,
      },
      {
        name: 'one-column indexed read (PGlite query)',
        kind: 'compared',
        call: async (i) => (await db.query(bareText, [hashes[i % PASSCODES]])).rows.length === 1,
      },
      {
        name: "the store's lookup SQL (PGlite query)",
        kind: 'goal',
        call: async (i) => (await db.query(storeText, [hashes[i % PASSCODES]])).rows.length === 1,
      },
      {
        name: 'store lookup alone',
        kind: 'own',
        call: async (i) => (await store.findCredentialByHash(hashes[i % PASSCODES]!)) !== null,
      },
      twoPepperScenario(peppers),
    ]
    const result = await measure('pglite', scenarios, settings)
    await auth.close()
    await peppers.auth.close()
    return { ...result, connectStoreOverStatic: await connectComparison(db, store, credentials, settings) }
  } finally {
    await db.close()
  }
}

async function serviceWork(rounds: number): Promise<ServiceWork> {
  const { memoryStore } = await import('../src/memory')
  const one = async (pepper: string | undefined) => {
    const store = memoryStore()
    const auth = createPasscodeAuth({ store, cache: false, ...(pepper === undefined ? {} : { pepper }) })
    const { credentials } = await seed(store, auth)
    const hash = createPasscodeHasher(pepper)
    const hashes = credentials.map(({ passcode }) => hash(passcode))
    const cpu = async (call: (i: number) => Promise<unknown>) => {
      const before = process.cpuUsage()
      for (let i = 0; i < 20_000; i++) await call(i)
      const used = process.cpuUsage(before)
      return (used.user + used.system) / 20_000
    }
    const differences: number[] = []
    for (let round = 0; round < rounds * 2; round++) {
      const full = await cpu((i) => auth.authenticate(credentials[i % PASSCODES]!))
      const lookup = await cpu((i) => store.findCredentialByHash(hashes[i % PASSCODES]!))
      differences.push(full - lookup)
    }
    await auth.close()
    return median(differences)
  }
  return { plainUs: await one(undefined), pepperedUs: await one('bench-pepper-0123456789abcdef') }
}

/** Runs the cold-path comparison on each store. */
export async function runColdPath(settings: ColdPathSettings = {}): Promise<ColdPathReport> {
  const resolved = { rounds: settings.rounds ?? 5, sliceMs: settings.sliceMs ?? 500 }
  const stores = settings.stores ?? ['postgres', 'pglite']
  const results: ColdPathStore[] = []
  let server: TestPostgres | undefined
  try {
    if (stores.includes('postgres')) {
      const connectionString = settings.connectionString ?? process.env.DATABASE_URL ?? (server = await startTestPostgres()).connectionString
      results.push(await onPostgres(connectionString, resolved))
    }
    if (stores.includes('pgbouncer')) {
      const connectionString = settings.connectionString ?? process.env.DATABASE_URL ?? (server ??= await startTestPostgres()).connectionString
      const pin = settings.pin === true
      if (pin && pinUnavailable() !== undefined) throw new Error(pinUnavailable())
      results.push(...(await onPgBouncer(connectionString, resolved, pin)))
    }
    if (stores.includes('pglite')) results.push(await onPGlite(resolved))
  } finally {
    await server?.stop()
  }
  return { stores: results, serviceWork: await serviceWork(resolved.rounds), passcodes: PASSCODES, poolSize: POOL_SIZE }
}

runAsChild(() => runColdPath(JSON.parse(process.argv[2] ?? '{}') as ColdPathSettings))
