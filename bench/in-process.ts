/**
 * Child process (section 2): `auth.authenticate()` calls per second and p50/p99 on one
 * core, for a cache hit, a cache miss on the memory store, PGlite and PostgreSQL, and
 * wrong credentials next to right ones; better-auth's `verifyApiKey` as the peer.
 * Scenarios run interleaved in rounds; each figure is the median over rounds.
 *
 *   node --import tsx bench/in-process.ts '{"rounds":2,"sliceMs":300}'
 */
import { PGlite } from '@electric-sql/pglite'
import { generatePasscode, type AuthOutcome } from '../src/index'
import { createPasscodeHasher } from '../src/core/hashing'
import { runAsChild } from './child'
import { createBenchService, type BenchService } from './fixtures'
import { createBetterAuthPeer } from './peers'
import { latencyOf, median } from './stats'

/** Settings passed as JSON in argv[2]. */
export interface InProcessSettings {
  readonly rounds: number
  /** Length of one throughput slice and of one latency slice, per scenario and round. */
  readonly sliceMs: number
  /** Calls of each kind in the right-against-wrong timing comparison. */
  readonly timingCalls: number
  readonly connectionString?: string
}

/** One scenario's medians. */
export interface ScenarioResult {
  readonly name: string
  readonly callsPerSecond: number
  readonly p50Us: number
  readonly p99Us: number
}

/**
 * Right and wrong credentials on one store, cache off, timed call by call in turn
 * (right, wrong passcode, wrong account, right, …) so that noise hits all alike.
 */
export interface TimingComparison {
  readonly store: string
  readonly right: { readonly p50Us: number; readonly p99Us: number }
  readonly wrongPasscode: { readonly p50Us: number; readonly p99Us: number }
  readonly wrongAccount: { readonly p50Us: number; readonly p99Us: number }
}

interface Scenario {
  readonly name: string
  /** One call, awaited as is: a `.then` here would add its own cost to every call. */
  readonly call: (i: number) => Promise<AuthOutcome | { ok: boolean }>
  readonly expectAccepted: boolean
}

const CREDENTIALS = 100

function scenariosOf(name: string, service: BenchService, options: { wrong?: boolean } = {}): Scenario[] {
  const { auth, credentials } = service
  const right: Scenario = {
    name,
    call: (i) => auth.authenticate(credentials[i % credentials.length]!),
    expectAccepted: true,
  }
  if (options.wrong !== true) return [right]
  // Well-formed passcodes (valid checksum) that were never issued: the full path.
  const unknown = Array.from({ length: CREDENTIALS }, (_, i) => ({
    accountId: credentials[i % credentials.length]!.accountId,
    passcode: generatePasscode(),
  }))
  // A right passcode sent with another account's ID.
  const otherAccount = credentials.map((c) => ({ accountId: `${c.accountId}_other`, passcode: c.passcode }))
  return [
    right,
    { name: `${name}, wrong passcode`, call: (i) => auth.authenticate(unknown[i % unknown.length]!), expectAccepted: false },
    { name: `${name}, wrong account`, call: (i) => auth.authenticate(otherAccount[i % otherAccount.length]!), expectAccepted: false },
  ]
}

async function throughput(scenario: Scenario, sliceMs: number): Promise<number> {
  const started = performance.now()
  let calls = 0
  let elapsed = 0
  do {
    // Batches keep the clock reads out of the per-call cost.
    for (let i = 0; i < 64; i++) {
      if ((await scenario.call(calls++)).ok !== scenario.expectAccepted) throw new Error(`${scenario.name}: unexpected outcome`)
    }
    elapsed = performance.now() - started
  } while (elapsed < sliceMs)
  return (calls / elapsed) * 1000
}

async function latencies(scenario: Scenario, sliceMs: number): Promise<Float64Array> {
  const samples: number[] = []
  const started = performance.now()
  let i = 0
  while (performance.now() - started < sliceMs) {
    const before = performance.now()
    const result = await scenario.call(i++)
    samples.push((performance.now() - before) * 1e6)
    if (result.ok !== scenario.expectAccepted) throw new Error(`${scenario.name}: unexpected outcome`)
  }
  return Float64Array.from(samples)
}

async function main(): Promise<{ scenarios: ScenarioResult[]; timing: TimingComparison[]; postgres: boolean }> {
  const settings = JSON.parse(process.argv[2] ?? '{}') as InProcessSettings
  const services: BenchService[] = []
  const open = async (options: Parameters<typeof createBenchService>[0]) => {
    const service = await createBenchService({ count: CREDENTIALS, ...options })
    services.push(service)
    return service
  }
  const hit = await open({ store: 'memory' })
  for (const credentials of hit.credentials) await hit.auth.authenticate(credentials) // warm the cache
  const pglite = await open({ store: 'pglite', cache: false })
  const scenarios: Scenario[] = [
    ...scenariosOf('cache hit', hit),
    ...scenariosOf('cache miss, memory', await open({ store: 'memory', cache: false }), { wrong: true }),
    ...scenariosOf('cache miss, PGlite', pglite, { wrong: true }),
  ]
  // What PGlite itself costs: the store's lookup alone, and PGlite's cheapest statement.
  const hashes = pglite.credentials.map(({ passcode }) => createPasscodeHasher()(passcode))
  const found = { ok: true }
  scenarios.push({
    name: 'PGlite: the store lookup alone',
    call: (i) => pglite.store.findCredentialByHash(hashes[i % hashes.length]!).then((match) => (match === null ? { ok: false } : found)),
    expectAccepted: true,
  })
  const bare = new PGlite()
  scenarios.push({ name: "PGlite: exec('SELECT 1')", call: () => bare.exec('SELECT 1').then(() => found), expectAccepted: true })
  if (settings.connectionString !== undefined) {
    const service = await open({ store: 'postgres', cache: false, connectionString: settings.connectionString, schema: 'bench_in_process' })
    scenarios.push(...scenariosOf('cache miss, PostgreSQL', service, { wrong: true }))
  }
  const peer = await createBetterAuthPeer()
  scenarios.push({
    name: 'better-auth verifyApiKey',
    call: () => peer.verify(peer.key).then((result) => ({ ok: result.valid })),
    expectAccepted: true,
  })

  try {
    const rates = new Map<string, number[]>(scenarios.map((s) => [s.name, []]))
    const samples = new Map<string, Float64Array[]>(scenarios.map((s) => [s.name, []]))
    // Warm-up: JIT, plan caches, pools.
    for (const scenario of scenarios) await throughput(scenario, Math.min(500, settings.sliceMs))
    for (let round = 0; round < settings.rounds; round++) {
      for (const scenario of scenarios) {
        rates.get(scenario.name)!.push(await throughput(scenario, settings.sliceMs))
        samples.get(scenario.name)!.push(await latencies(scenario, settings.sliceMs))
      }
    }
    const timing: TimingComparison[] = []
    for (const store of ['memory', 'PGlite', 'PostgreSQL']) {
      const [right, wrongPasscode, wrongAccount] = [
        `cache miss, ${store}`,
        `cache miss, ${store}, wrong passcode`,
        `cache miss, ${store}, wrong account`,
      ].map((name) => scenarios.find((scenario) => scenario.name === name))
      if (right === undefined || wrongPasscode === undefined || wrongAccount === undefined) continue
      const trio = [right, wrongPasscode, wrongAccount]
      const samples = trio.map(() => [] as number[])
      for (let i = 0; i < settings.timingCalls; i++) {
        for (let j = 0; j < 3; j++) {
          const k = (i + j) % 3
          const before = performance.now()
          const outcome = await trio[k]!.call(i)
          samples[k]!.push((performance.now() - before) * 1e6)
          if (outcome.ok !== trio[k]!.expectAccepted) throw new Error(`${trio[k]!.name}: unexpected outcome`)
        }
      }
      const [r, w, a] = samples.map((values) => latencyOf(Float64Array.from(values)))
      timing.push({ store, right: r!, wrongPasscode: w!, wrongAccount: a! })
    }
    return {
      postgres: settings.connectionString !== undefined,
      timing,
      scenarios: scenarios.map(({ name }) => {
        const perRound = samples.get(name)!.map(latencyOf)
        return {
          name,
          callsPerSecond: median(rates.get(name)!),
          p50Us: median(perRound.map((l) => l.p50Us)),
          p99Us: median(perRound.map((l) => l.p99Us)),
        }
      }),
    }
  } finally {
    for (const service of services) await service.close()
    await bare.close()
  }
}

runAsChild(main)
