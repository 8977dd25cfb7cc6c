/**
 * What the brute-force limiter costs one `auth.authenticate()` call, on one core: a call
 * that succeeds (cache on, as in production) and one that fails (a well-formed passcode
 * never issued), with the limiter off, on the memory store, and on `postgresRateLimitStore`
 * over a PostgreSQL server (its check reads this instance's memory; failures are written
 * in batches). The server is `{"connectionString":…}`, or else a throw-away cluster made
 * with the installed binaries, as the tests make it.
 * Limits are set high enough never to refuse, so every call takes its normal path.
 * Scenarios run interleaved in rounds; each figure is the median over rounds.
 *
 *   node --import tsx bench/limiter-cost.ts            # 5 rounds of 400 ms per scenario
 *   node --import tsx bench/limiter-cost.ts '{"rounds":3,"sliceMs":200}'
 */
import pg from 'pg'
import { createPasscodeAuth, generatePasscode, type PasscodeAuth } from '../src/index'
import { memoryStore } from '../src/memory'
import { migrate, postgresRateLimitStore, type PostgresRateLimitStore } from '../src/stores/postgres/index'
import { startTestPostgres } from '../test/helpers/postgres'
import { ADMIN } from './fixtures'
import { formatMicros, formatRate, median } from './stats'

const settings = {
  rounds: 5,
  sliceMs: 400,
  ...(JSON.parse(process.argv[2] ?? '{}') as { rounds?: number; sliceMs?: number; connectionString?: string }),
}
// The highest limits allowed; failures are spread over 1 024 addresses and 256 accounts, so none is reached.
const HIGH = { windowMs: 60_000, maxFailuresPerAddress: 10_000, maxFailuresPerAccount: 10_000 }

async function service(limiter: 'off' | 'memory' | 'postgres', db: pg.Pool) {
  let shared: PostgresRateLimitStore | undefined
  if (limiter === 'postgres') shared = postgresRateLimitStore(db, { schema: 'bench_limiter' })
  const auth: PasscodeAuth = createPasscodeAuth({
    store: memoryStore(),
    rateLimit: limiter === 'off' ? false : { ...HIGH, ...(shared && { store: shared }) },
  })
  const { value } = await auth.passcodes.create(ADMIN, 'acc_bench', { name: 'Bench', expiry: 90 })
  return { auth, value, close: async () => (await auth.close(), await shared?.close()) }
}

async function main(): Promise<void> {
  const server = settings.connectionString === undefined ? await startTestPostgres() : undefined
  const db = new pg.Pool({ connectionString: settings.connectionString ?? server!.connectionString, max: 4, connectionTimeoutMillis: 10_000 })
  await db.query('DROP SCHEMA IF EXISTS bench_limiter CASCADE')
  await migrate(db, { schema: 'bench_limiter' })
  const services = { off: await service('off', db), memory: await service('memory', db), postgres: await service('postgres', db) }
  const wrong = Array.from({ length: 256 }, () => generatePasscode())
  const scenarios = Object.entries(services).flatMap(([limiter, { auth, value }]) => [
    {
      name: `succeeds, limiter ${limiter}`,
      call: (i: number) => auth.authenticate({ accountId: 'acc_bench', passcode: value, clientAddress: `10.0.${(i >> 8) & 3}.${i & 255}` }),
      ok: true,
    },
    {
      name: `fails, limiter ${limiter}`,
      call: (i: number) =>
        auth.authenticate({ accountId: `acc_${i & 255}`, passcode: wrong[i & 255]!, clientAddress: `10.0.${(i >> 8) & 3}.${i & 255}` }),
      ok: false,
    },
  ])
  const rates = new Map<string, number[]>(scenarios.map((scenario) => [scenario.name, []]))
  for (let round = 0; round < settings.rounds; round++) {
    for (const scenario of scenarios) {
      let calls = 0
      const started = performance.now()
      do {
        for (let i = 0; i < 64; i++) if ((await scenario.call(calls++)).ok !== scenario.ok) throw new Error(`${scenario.name}: unexpected outcome`)
      } while (performance.now() - started < settings.sliceMs)
      rates.get(scenario.name)!.push(calls / ((performance.now() - started) / 1000))
    }
  }
  console.log('| call | calls/s | mean time per call |')
  console.log('|---|---|---|')
  for (const [name, values] of rates) {
    const rate = median(values)
    console.log(`| ${name} | ${formatRate(rate)} | ${formatMicros(1e6 / rate)} |`)
  }
  for (const { close } of Object.values(services)) await close()
  const rows = await db.query<{ keys: number }>('SELECT count(*)::int AS keys FROM bench_limiter.rate_limit_failures')
  console.log(`\nrate_limit_failures rows after the run: ${rows.rows[0]!.keys} (one per key that failed: 1 024 addresses + 256 accounts)`)
  await db.query('DROP SCHEMA bench_limiter CASCADE')
  await db.end()
  await server?.stop()
}

await main()
