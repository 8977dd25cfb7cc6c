/**
 * The capacity model checked against a fleet: N instance processes (bench/fleet-instance.ts)
 * on one PostgreSQL server on loopback, each with its own `pg.Pool` and listening store.
 *
 * 1. Load: every instance verifies `ratePerInstance` credentials per second, drawn
 *    uniformly from K, for `seconds`, with the verification cache on (`ttlMs`). The
 *    store reads measured (counted in each instance) are set against the model of
 *    docs/capacity.md; PostgreSQL's CPU time (postmaster and backends, from /proc)
 *    gives its cost per 1 000 verifications and per 1 000 store reads.
 * 2. Revocation: a passcode cached by every instance is deleted through another
 *    service; each instance reports when the invalidation reached it.
 *
 * Bounded in time (about a minute of load), loopback only.
 *
 *   npx tsx bench/fleet.ts '{"instances":8,"seconds":40}'
 */
import { fork, type ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import pg from 'pg'
import { createPasscodeAuth } from '../src/index'
import { migrate, postgresStore } from '../src/stores/postgres/index'
import { startTestPostgres, type TestPostgres } from '../test/helpers/postgres'
import { runAsChild } from './child'
import { ADMIN } from './fixtures'
import { postgresCpuSampler } from './postgres-cpu'
import { median, percentile } from './stats'
import type { FromInstance, ToInstance } from './fleet-instance'

/** Settings passed as JSON in argv[2]. */
export interface FleetSettings {
  readonly instances?: number
  readonly passcodes?: number
  readonly ratePerInstance?: number
  readonly seconds?: number
  readonly ttlMs?: number
  readonly poolSize?: number
  readonly revocations?: number
  readonly connectionString?: string
}

/** What the run measured, next to what the model predicts. */
export interface FleetReport {
  readonly settings: Required<Omit<FleetSettings, 'connectionString'>>
  readonly requests: number
  readonly readsMeasured: number
  readonly readsPredicted: number
  /** Store reads per second over the fleet, measured and predicted (steady state). */
  readonly readsPerSecondMeasured: number
  readonly readsPerSecondPredicted: number
  /** The model's steady state (a long run), reads per second over the fleet. */
  readonly steadyReadsPerSecondPredicted: number
  readonly hitRatioMeasured: number
  readonly hitRatioPredicted: number
  /** Verifications of valid credentials refused, and why (503/504: the store too slow on this machine). */
  readonly refused: number
  readonly refusedBy: Record<string, number>
  /** The latest any instance started a call after it was due: how far the load generators fell behind. */
  readonly maxLateMs: number
  readonly postgresCpuMsPer1000Verifications?: number
  readonly postgresCpuMsPer1000Reads?: number
  /** The server's CPU while the fleet is connected but idle, ms per second. */
  readonly postgresIdleCpuMsPerSecond?: number
  /** Per 1 000 store reads, once the idle rate over the load's duration is taken off. */
  readonly postgresCpuMsPer1000ReadsAboveIdle?: number
  readonly instanceCpuUsPerVerification: number
  /** Time from the delete's promise resolving to the invalidation reaching each instance, over all trials, ms. */
  readonly revocation: {
    readonly trials: number
    readonly p50Ms: number
    readonly p99Ms: number
    readonly maxMs: number
    readonly allRefusedAfter: boolean
  }
  /** NOTIFY deliveries per management write (one per listening instance). */
  readonly notifyDeliveriesPerWrite: number
}

/**
 * The model's store reads per second of one instance for one credential requested at
 * `lambda` per second (Poisson), with the verification cache's halves of `ttl / 2`:
 * after an entry is dropped at a half's end, the next request (after an exponential
 * wait w) is a miss and starts an entry that lives until the end of the half after
 * its own, so a cycle lasts 2P + P·floor(w / P), P = ttl / 2; its mean is
 * P·(2 + 1 / (e^(λP) − 1)).
 */
export function missesPerSecond(lambda: number, ttlSeconds: number): number {
  if (lambda <= 0) return 0
  const half = ttlSeconds / 2
  return 1 / (half * (2 + 1 / Math.expm1(lambda * half)))
}

/**
 * The same model over a run of `seconds` from a cold cache (the first half starts with
 * the first request): the mean number of misses of one credential, by simulation
 * (fixed seed), since the first cycles of a short run weigh more than the steady state.
 */
export function expectedMisses(lambda: number, ttlSeconds: number, seconds: number, paths = 20_000): number {
  const half = ttlSeconds / 2
  let seed = 0x2545f491
  const random = () => {
    seed ^= seed << 13
    seed ^= seed >>> 17
    seed ^= seed << 5
    return (seed >>> 0) / 2 ** 32
  }
  let misses = 0
  for (let path = 0; path < paths; path++) {
    let t = 0
    let cachedUntil = -1
    for (;;) {
      t += -Math.log(1 - random()) / lambda
      if (t >= seconds) break
      if (t < cachedUntil) continue
      misses++
      cachedUntil = (Math.floor(t / half) + 2) * half
    }
  }
  return misses / paths
}

const INSTANCE = fileURLToPath(new URL('./fleet-instance.ts', import.meta.url))
const wallNow = () => performance.timeOrigin + performance.now()

interface Instance {
  readonly process: ChildProcess
  send(message: ToInstance): void
  next<T extends FromInstance['type']>(type: T): Promise<Extract<FromInstance, { type: T }>>
  readonly invalidations: number[]
}

function startInstance(): Instance {
  const child = fork(INSTANCE, [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
  const invalidations: number[] = []
  const waiting = new Map<string, { resolve: (message: FromInstance) => void; reject: (error: Error) => void }[]>()
  let failure: Error | undefined
  child.once('exit', (code) => {
    for (const queue of waiting.values()) for (const waiter of queue.splice(0)) waiter.reject(failure ?? new Error(`instance exited with ${code}`))
  })
  child.on('message', (message: FromInstance) => {
    if (message.type === 'invalidation') invalidations.push(message.at)
    if (message.type === 'error') failure = new Error(message.message)
    waiting.get(message.type)?.shift()?.resolve(message)
  })
  return {
    process: child,
    invalidations,
    send: (message) => child.send(message),
    next(type) {
      return new Promise((resolve, reject) => {
        if (failure !== undefined) return reject(failure)
        const queue = waiting.get(type) ?? []
        queue.push({ resolve: resolve as (message: FromInstance) => void, reject })
        waiting.set(type, queue)
      })
    },
  }
}

/** Runs the fleet. */
export async function runFleet(given: FleetSettings = {}): Promise<FleetReport> {
  const settings = {
    instances: given.instances ?? 8,
    passcodes: given.passcodes ?? 1_000,
    ratePerInstance: given.ratePerInstance ?? 150,
    seconds: given.seconds ?? 40,
    ttlMs: given.ttlMs ?? 10_000,
    poolSize: given.poolSize ?? 4,
    revocations: given.revocations ?? 10,
  }
  const server: TestPostgres | undefined = given.connectionString === undefined ? await startTestPostgres() : undefined
  const connectionString = given.connectionString ?? server!.connectionString
  const schema = 'bench_fleet'
  const pool = new pg.Pool({ connectionString, max: 4, connectionTimeoutMillis: 10_000 })
  pool.on('error', () => {})
  const instances: Instance[] = []
  try {
    await pool.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`)
    await migrate(pool, { schema })
    const adminStore = postgresStore(pool, { schema })
    const admin = createPasscodeAuth({ store: adminStore, cache: false })
    const credentials: { accountId: string; passcode: string }[] = []
    for (let i = 0; i < settings.passcodes; i++) {
      const accountId = `acc_fleet_${Math.floor(i / 100)}`
      const { value } = await admin.passcodes.create(ADMIN, accountId, { name: `Partner ${i}`, expiry: 365 })
      credentials.push({ accountId, passcode: value })
    }
    for (let i = 0; i < settings.instances; i++) instances.push(startInstance())
    await Promise.all(
      instances.map((instance) => {
        const ready = instance.next('ready')
        instance.send({ type: 'start', connectionString, schema, ttlMs: settings.ttlMs, poolSize: settings.poolSize })
        instance.send({ type: 'credentials', credentials })
        return ready
      }),
    )

    // 1. Load, after the server's own idle CPU (background processes, listening sessions) over a few seconds.
    const serverCpu = await postgresCpuSampler(pool)
    const idleBefore = serverCpu?.()
    const idleStarted = performance.now()
    await new Promise((resolve) => setTimeout(resolve, 3_000))
    const idleCpuMsPerSecond = idleBefore === undefined ? undefined : ((serverCpu!() - idleBefore) * 1000) / (performance.now() - idleStarted)
    const cpuBefore = serverCpu?.()
    const loaded = await Promise.all(
      instances.map((instance) => {
        const done = instance.next('loaded')
        instance.send({ type: 'load', ratePerSecond: settings.ratePerInstance, seconds: settings.seconds })
        return done
      }),
    )
    const serverCpuMs = cpuBefore === undefined ? undefined : serverCpu!() - cpuBefore
    const requests = loaded.reduce((sum, l) => sum + l.requests, 0)
    const readsMeasured = loaded.reduce((sum, l) => sum + l.reads, 0)
    const lambda = settings.ratePerInstance / settings.passcodes
    const readsPredicted = settings.instances * settings.passcodes * expectedMisses(lambda, settings.ttlMs / 1000, settings.seconds)
    const steadyPerSecond = settings.instances * settings.passcodes * missesPerSecond(lambda, settings.ttlMs / 1000)
    const instanceCpuUs = loaded.reduce((sum, l) => sum + l.cpuMicros, 0)

    // 2. Revocation.
    const delays: number[] = []
    let allRefusedAfter = true
    let deliveries = 0
    for (let trial = 0; trial < settings.revocations; trial++) {
      const accountId = `acc_revoke_${trial}`
      const { passcode, value } = await admin.passcodes.create(ADMIN, accountId, { name: 'Revoked', expiry: 30 })
      const checks = await Promise.all(
        instances.map((instance) => {
          const checked = instance.next('checked')
          instance.send({ type: 'check', accountId, passcode: value })
          return checked
        }),
      )
      if (checks.some((check) => check.statusCode !== 200)) throw new Error('a fresh passcode was refused')
      const seen = instances.map((instance) => instance.invalidations.length)
      await admin.passcodes.delete(ADMIN, accountId, passcode.id)
      const committed = wallNow()
      const deadline = Date.now() + 5_000
      while (instances.some((instance, i) => instance.invalidations.length <= seen[i]!) && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 1))
      }
      instances.forEach((instance, i) => {
        const arrivals = instance.invalidations.slice(seen[i])
        deliveries += arrivals.length
        if (arrivals[0] !== undefined) delays.push(Math.max(0, arrivals[0] - committed))
      })
      const after = await Promise.all(
        instances.map((instance) => {
          const checked = instance.next('checked')
          instance.send({ type: 'check', accountId, passcode: value })
          return checked
        }),
      )
      if (after.some((check) => check.statusCode !== 400)) allRefusedAfter = false
    }
    await admin.close()
    await adminStore.close()
    const sorted = Float64Array.from(delays).sort()
    return {
      settings,
      requests,
      readsMeasured,
      readsPredicted,
      readsPerSecondMeasured: readsMeasured / settings.seconds,
      readsPerSecondPredicted: readsPredicted / settings.seconds,
      steadyReadsPerSecondPredicted: steadyPerSecond,
      hitRatioMeasured: 1 - readsMeasured / requests,
      hitRatioPredicted: 1 - readsPredicted / requests,
      refused: loaded.reduce((sum, l) => sum + l.refused, 0),
      refusedBy: loaded.reduce<Record<string, number>>((all, l) => {
        for (const [reason, count] of Object.entries(l.reasons)) all[reason] = (all[reason] ?? 0) + count
        return all
      }, {}),
      maxLateMs: Math.max(...loaded.map((l) => l.lateMs)),
      ...(serverCpuMs === undefined || idleCpuMsPerSecond === undefined
        ? {}
        : {
            postgresCpuMsPer1000Verifications: (serverCpuMs * 1000) / requests,
            postgresCpuMsPer1000Reads: (serverCpuMs * 1000) / readsMeasured,
            postgresIdleCpuMsPerSecond: idleCpuMsPerSecond,
            postgresCpuMsPer1000ReadsAboveIdle: ((serverCpuMs - idleCpuMsPerSecond * settings.seconds) * 1000) / readsMeasured,
          }),
      instanceCpuUsPerVerification: instanceCpuUs / requests,
      revocation: {
        trials: settings.revocations,
        p50Ms: median([...sorted]),
        p99Ms: percentile(sorted, 99),
        maxMs: sorted.at(-1) ?? Number.NaN,
        allRefusedAfter: allRefusedAfter && delays.length === settings.revocations * settings.instances,
      },
      notifyDeliveriesPerWrite: deliveries / settings.revocations,
    }
  } finally {
    await Promise.all(
      instances.map(
        (instance) =>
          new Promise<void>((resolve) => {
            if (instance.process.exitCode !== null) return resolve()
            instance.process.once('exit', () => resolve())
            instance.send({ type: 'stop' })
            setTimeout(() => instance.process.kill('SIGKILL'), 10_000).unref()
          }),
      ),
    )
    await pool.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch(() => {})
    await pool.end()
    await server?.stop()
  }
}

runAsChild(() => runFleet(JSON.parse(process.argv[2] ?? '{}') as FleetSettings))
