/**
 * Child process, run with `--expose-gc`: known-bad credentials and cold bursts.
 *
 * 1. A repeated refused credential (a deleted passcode a partner keeps sending):
 *    calls/s of `authenticate()` answered from the refusal cache, next to a cache
 *    hit (the warm path) and to the same refusal with the refusal cache off (hash +
 *    store read), in interleaved rounds, and the store reads it costs; then with the
 *    brute-force limiter on (its own accounting, reported apart).
 * 2. A flood of 1 000 000 distinct random well-formed values: the heap before and
 *    after (settled), the refusal cache's size, and whether a valid credential is
 *    still answered from the verification cache afterwards.
 * 3. 200 concurrent requests for one cold credential: store reads (shared reads).
 *
 *   node --expose-gc --import tsx bench/refusals.ts '{"rounds":5,"sliceMs":300}'
 */
import { createPasscodeAuth, generatePasscode, type PasscodeAuthOptions, type PasscodeStore } from '../src/index'
import { memoryStore } from '../src/memory'
import { runAsChild } from './child'
import { ADMIN } from './fixtures'
import { median } from './stats'

/** Settings passed as JSON in argv[2]. */
export interface RefusalSettings {
  readonly rounds?: number
  readonly sliceMs?: number
  /** Distinct values in the flood. @default 1_000_000 */
  readonly flood?: number
}

/** What the child reports. */
export interface RefusalReport {
  readonly scenarios: readonly { readonly name: string; readonly callsPerSecond: number }[]
  /** Median per-round ratio: refusal from the cache / cache hit. */
  readonly refusalOverHit: number
  /** Store reads made by 1 000 repeats of the refused credential, after the first. */
  readonly readsPerThousandRepeats: number
  readonly flood: {
    readonly values: number
    /** Settled heap growth after the first tenth of the flood, and after all of it: equal when bounded. */
    readonly heapGrowthAtTenthBytes: number
    readonly heapGrowthBytes: number
    readonly maxEntries: number
    /** Store reads for one valid, cached credential after the flood (0: not evicted). */
    readonly validReadsAfter: number
  }
  /** Store reads made by `concurrent` simultaneous requests for one cold credential. */
  readonly burst: { readonly concurrent: number; readonly reads: number }
}

function counting(): { store: PasscodeStore; reads: () => number } {
  const inner = memoryStore()
  let reads = 0
  const store = Object.create(inner) as PasscodeStore
  store.findCredentialByHash = (hash) => {
    reads++
    return inner.findCredentialByHash(hash)
  }
  return { store, reads: () => reads }
}

async function service(options: Partial<PasscodeAuthOptions> = {}) {
  const { store, reads } = counting()
  const auth = createPasscodeAuth({ store, ...options })
  const { value } = await auth.passcodes.create(ADMIN, 'acc_bench', { name: 'Valid', expiry: 365 })
  const deleted = await auth.passcodes.create(ADMIN, 'acc_bench', { name: 'Deleted', expiry: 365 })
  await auth.passcodes.delete(ADMIN, 'acc_bench', deleted.passcode.id)
  return {
    auth,
    reads,
    valid: { accountId: 'acc_bench', passcode: value },
    refused: { accountId: 'acc_bench', passcode: deleted.value, clientAddress: '192.0.2.1' },
  }
}

async function rate(call: () => Promise<unknown>, sliceMs: number): Promise<number> {
  const started = performance.now()
  let calls = 0
  do {
    for (let i = 0; i < 256; i++) await call()
    calls += 256
  } while (performance.now() - started < sliceMs)
  return (calls / (performance.now() - started)) * 1000
}

function settledHeap(): number {
  const gc = (globalThis as { gc?: () => void }).gc
  if (gc === undefined) throw new Error('run with node --expose-gc')
  for (let i = 0; i < 4; i++) gc()
  return process.memoryUsage().heapUsed
}

async function main(): Promise<RefusalReport> {
  const settings = JSON.parse(process.argv[2] ?? '{}') as RefusalSettings
  const rounds = settings.rounds ?? 5
  const sliceMs = settings.sliceMs ?? 300

  // 1. Repeated refusals.
  const on = await service()
  const off = await service({ cache: { refusals: false } })
  // Per-address counting over 65 536 addresses: each stays far below its limit, so every call is counted, none refused with 429.
  const limited = await service({ rateLimit: { windowMs: 1_000, maxFailuresPerAddress: 10_000, maxFailuresPerAccount: false } })
  let address = 0
  const fromAnyAddress = () => ({ ...limited.refused, clientAddress: `10.0.${(address >> 8) & 255}.${address++ & 255}` })
  const scenarios: { name: string; call: () => Promise<unknown> }[] = [
    { name: 'cache hit (valid credential)', call: () => on.auth.authenticate(on.valid) },
    { name: 'refused credential, from the refusal cache', call: () => on.auth.authenticate(on.refused) },
    { name: 'refused credential, refusal cache off (hash + store read)', call: () => off.auth.authenticate(off.refused) },
    { name: 'refused credential, from the refusal cache, limiter on', call: () => limited.auth.authenticate(fromAnyAddress()) },
  ]
  for (const scenario of scenarios) await rate(scenario.call, Math.min(200, sliceMs))
  const rates = new Map<string, number[]>(scenarios.map((s) => [s.name, []]))
  for (let round = 0; round < rounds; round++) {
    for (const scenario of round % 2 === 0 ? scenarios : [...scenarios].reverse()) rates.get(scenario.name)!.push(await rate(scenario.call, sliceMs))
  }
  const hits = rates.get(scenarios[0]!.name)!
  const refusals = rates.get(scenarios[1]!.name)!
  const before = on.reads()
  for (let i = 0; i < 1_000; i++) await on.auth.authenticate(on.refused)
  const readsPerThousandRepeats = on.reads() - before

  // 2. The flood.
  const values = settings.flood ?? 1_000_000
  // A long TTL for valid entries: only an eviction could make the valid credential be read again.
  const flooded = await service({ cache: { ttlMs: 3_600_000 } })
  await flooded.auth.authenticate(flooded.valid)
  const heapBefore = settledHeap()
  let heapGrowthAtTenthBytes = 0
  for (let i = 0; i < values; i++) {
    if (i === values / 10) heapGrowthAtTenthBytes = settledHeap() - heapBefore
    await flooded.auth.authenticate({ accountId: 'acc_bench', passcode: generatePasscode() })
  }
  const heapGrowthBytes = settledHeap() - heapBefore
  const readsBefore = flooded.reads()
  await flooded.auth.authenticate(flooded.valid)

  // 3. A cold burst.
  const cold = await service()
  const burstBefore = cold.reads()
  await Promise.all(Array.from({ length: 200 }, () => cold.auth.authenticate(cold.valid)))

  return {
    scenarios: scenarios.map(({ name }) => ({ name, callsPerSecond: median(rates.get(name)!) })),
    refusalOverHit: median(refusals.map((r, i) => r / hits[i]!)),
    readsPerThousandRepeats,
    flood: { values, heapGrowthAtTenthBytes, heapGrowthBytes, maxEntries: 10_000, validReadsAfter: flooded.reads() - readsBefore },
    burst: { concurrent: 200, reads: cold.reads() - burstBefore },
  }
}

runAsChild(main)
