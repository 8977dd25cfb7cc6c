/**
 * The verification lookup on PGlite, side by side in one process and one instance:
 * PGlite's public `query` with the lookup's SQL and its one parameter (what the store
 * falls back to on a PGlite without the protocol API) against the store's fast lookup
 * (`preparedLookup`: a named prepared statement run over `execProtocolStream`), and
 * the other public way to reuse a plan: `PREPARE` once, then `exec('EXECUTE …')`.
 * Scenarios take turns in every round (order reversed every other round), one call at
 * a time and 16 in flight; reported are the median calls/s, this process's CPU per
 * call, and the median per-round ratio of each scenario to `query`.
 *
 *   npx tsx bench/pglite-lookup.ts
 *   npx tsx bench/pglite-lookup.ts --rounds=10 --slice-ms=500
 *   npx tsx bench/pglite-lookup.ts --against=/tmp/old-pglite-lookup.ts
 *
 * `--against` adds the `preparedLookup` of another copy of
 * src/stores/postgres/pglite-lookup.ts (for example one taken with `git show`), to
 * compare two implementations in the same run.
 */
import { createHash } from 'node:crypto'
import { resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { PGlite } from '@electric-sql/pglite'
import { createPasscodeAuth } from '../src/index'
import { preparedLookup } from '../src/stores/postgres/pglite-lookup'
import { migrate, postgresStore } from '../src/stores/postgres/index'
import { statements } from '../src/stores/postgres/statements'
import { ADMIN } from './fixtures'
import { median } from './stats'

type Lookup = (text: string, key: string) => Promise<readonly unknown[]>

const PASSCODES = 100
const CONCURRENCIES = [1, 16] as const

function option(name: string): string | undefined {
  const prefix = `--${name}=`
  return process.argv.find((argument) => argument.startsWith(prefix))?.slice(prefix.length)
}

/** Calls/s and this process's CPU µs per call, `concurrency` in flight for `sliceMs`. */
async function slice(call: (i: number) => Promise<boolean>, concurrency: number, sliceMs: number): Promise<{ rate: number; cpuUs: number }> {
  const started = performance.now()
  const cpuBefore = process.cpuUsage()
  let calls = 0
  let stop = false
  const worker = async () => {
    while (!stop) {
      for (let i = 0; i < 16; i++) if (!(await call(calls++))) throw new Error('a stored passcode was not found')
      if (performance.now() - started >= sliceMs) stop = true
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker))
  const cpu = process.cpuUsage(cpuBefore)
  return { rate: (calls / (performance.now() - started)) * 1000, cpuUs: (cpu.user + cpu.system) / calls }
}

async function main(): Promise<void> {
  const rounds = Number(option('rounds') ?? 8)
  const sliceMs = Number(option('slice-ms') ?? 400)
  const against = option('against')
  const db = new PGlite()
  try {
    await migrate(db)
    const auth = createPasscodeAuth({ store: postgresStore(db, { listen: false }), cache: false })
    const hashes: string[] = []
    for (let i = 0; i < PASSCODES; i++) {
      const { value } = await auth.passcodes.create(ADMIN, `acc_lookup_${i % 10}`, { name: `Partner ${i}`, expiry: 365 })
      hashes.push(createHash('sha256').update(value).digest('hex'))
    }
    await auth.close()
    const text = statements('passcode_auth').findCredentialByHash.text
    const lookups: [string, Lookup][] = [
      ['query (public, parametrised)', async (sql, key) => (await db.query(sql, [key])).rows],
      ['PREPARE once, then exec(EXECUTE) (public, simple protocol)', await executeLookup(db, text)],
      ['fast lookup (this tree)', preparedLookup(db) ?? failNoProtocol()],
    ]
    if (against !== undefined) {
      const other = (await import(pathToFileURL(resolve(against)).href)) as { preparedLookup: typeof preparedLookup }
      lookups.push([`fast lookup (${against})`, other.preparedLookup(db) ?? failNoProtocol()])
    }
    const scenarios = lookups.map(([name, lookup]) => ({
      name,
      call: async (i: number) => (await lookup(text, hashes[i % PASSCODES]!)).length === 1,
    }))
    const rates = new Map<string, number[]>()
    const cpus = new Map<string, number[]>()
    const key = (name: string, concurrency: number) => `${name}@${concurrency}`
    const push = (map: Map<string, number[]>, k: string, value: number) => map.set(k, [...(map.get(k) ?? []), value])
    for (const { call } of scenarios) for (const concurrency of CONCURRENCIES) await slice(call, concurrency, 300)
    for (let round = 0; round < rounds; round++) {
      for (const concurrency of CONCURRENCIES) {
        for (const { name, call } of round % 2 === 0 ? scenarios : [...scenarios].reverse()) {
          const { rate, cpuUs } = await slice(call, concurrency, sliceMs)
          push(rates, key(name, concurrency), rate)
          push(cpus, key(name, concurrency), cpuUs)
        }
      }
    }
    const baseline = scenarios[0]!.name
    const rows = scenarios.flatMap(({ name }) =>
      CONCURRENCIES.map((concurrency) => {
        const own = rates.get(key(name, concurrency))!
        const base = rates.get(key(baseline, concurrency))!
        return {
          scenario: name,
          inFlight: concurrency,
          callsPerSecond: Math.round(median(own)),
          cpuUsPerCall: Number(median(cpus.get(key(name, concurrency))!).toFixed(1)),
          overQuery: Number(median(own.map((rate, i) => rate / base[i]!)).toFixed(2)),
          perRound: own.map((rate, i) => Number((rate / base[i]!).toFixed(2))),
        }
      }),
    )
    console.log(`PGlite lookup, ${rounds} interleaved rounds of ${sliceMs} ms per scenario, ${PASSCODES} passcodes`)
    console.table(rows.map(({ perRound: _, ...row }) => row))
    console.log(JSON.stringify(rows))
  } finally {
    await db.close()
  }
}

/**
 * A public-API alternative: the statement `PREPARE`d once, each lookup an `EXECUTE`
 * through `exec` (the simple protocol, so the hex key is written into the text).
 */
async function executeLookup(db: PGlite, text: string): Promise<Lookup> {
  await db.exec(`PREPARE bench_lookup (text) AS SELECT row_to_json(r)::text AS json FROM (${text}) AS r`)
  return async (_, key) => {
    if (!/^[0-9a-f]+$/.test(key)) throw new Error('hex keys only')
    const [result] = await db.exec(`EXECUTE bench_lookup('${key}')`)
    return (result?.rows ?? []).map((row) => JSON.parse(String((row as { json: unknown }).json)) as unknown)
  }
}

function failNoProtocol(): never {
  throw new Error('this PGlite has no protocol API: the store uses query')
}

await main()
