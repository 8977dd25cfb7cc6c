/**
 * What last-use tracking (SPEC §5.27) adds to the warm path, per request, measured as
 * `bench/hook-cost.ts` measures `requirePasscode`: the Fastify, Express and Koa hooks
 * on a warm cache next to a hook that does nothing, in slices of 20 000 calls that
 * alternate every few milliseconds, so the machine's noise hits both alike.
 *
 * Two figures:
 * - `recorderNs`: the recorder's own call (`seen`, what the warm path adds) next to a
 *   no-op function taking the same arguments, in one process;
 * - per framework, the hook's extra cost over the no-op with usage recording on (the
 *   default) and with `usage: false`, each in processes of their own (so neither
 *   variant's JIT state shapes the other's), alternating on, off, on, off…; `usageNs`
 *   is the difference of their medians.
 * The goal is at most 25 ns.
 *
 * Usage over time (SPEC §5.41) adds a per-day count to the same call; two more figures,
 * each side by side in one process:
 * - `countingNs`: the day counter's own call (`DayCounts.success`, what `seen()` does
 *   for the count) next to a no-op function taking the same argument;
 * - `warm`: the warm path's own cost (`auth.verifyRequest` answering from the cache,
 *   what every adapter calls) of a service with usage on (last use and day counts) next to one
 *   with `usage: false` (bare); `ratio` is bare ns over counting ns, the throughput
 *   of the counting path as a share of bare. The goal is at least 0.99.
 *
 * Run directly (`npx tsx bench/usage-cost.ts`, prints JSON; with `counting`, only the
 * in-process figures) or as a child of `npm run bench`.
 */
import type { Principal } from '../src/index'
import { memoryStore } from '../src/memory'
import { DayCounts } from '../src/service/usage/day-counts'
import { UsageRecorder } from '../src/service/usage/usage-recorder'
import { runAsChild, runChild } from './child'
import { createBenchService } from './fixtures'
import { median } from './stats'

type Framework = 'fastify' | 'express' | 'koa'

/** The recorder's own cost and each framework's hook with and without it. */
export interface UsageCost {
  /** Median over rounds of `seen()` − a no-op call, ns per call. */
  readonly recorderNs: number
  /** Median over rounds of `DayCounts.success` − a no-op call: the day count's own cost, ns per call. */
  readonly countingNs?: number
  /** The warm path's own cost with usage counting and bare (`usage: false`), side by side. */
  readonly warm?: {
    readonly withUsageNs: number
    readonly bareNs: number
    /** bareNs / withUsageNs. */
    readonly ratio: number
  }
  readonly frameworks: readonly {
    readonly framework: Framework
    /** Median of the hook's extra ns over the no-op, usage recording on. */
    readonly withUsageNs: number
    /** The same with `usage: false`. */
    readonly withoutUsageNs: number
    /** withUsageNs − withoutUsageNs. */
    readonly usageNs: number
  }[]
}

const CALLS = 20_000
const ROUNDS = 60
/** Processes per variant, alternating. */
const PROCESSES = 3

type Call = () => void

function slice(call: Call): number {
  const start = process.hrtime.bigint()
  for (let i = 0; i < CALLS; i++) call()
  return Number(process.hrtime.bigint() - start) / CALLS
}

/** Median over alternating rounds of `measured` − `baseline`, after a warm-up. */
function extraNs(measured: Call, baseline: Call): number {
  for (let i = 0; i < 10; i++) {
    slice(measured)
    slice(baseline)
  }
  const extra: number[] = []
  for (let round = 0; round < ROUNDS; round++) {
    if (round % 2 === 0) {
      const a = slice(measured)
      extra.push(a - slice(baseline))
    } else {
      const b = slice(baseline)
      extra.push(slice(measured) - b)
    }
  }
  return median(extra)
}

/** `seen()` as the warm path calls it, the clock moving by a millisecond every call (the worst case). */
function recorderCost(): number {
  const recorder = new UsageRecorder(memoryStore(), { flushIntervalMs: 3_600_000, retentionDays: 90 }, undefined)
  const principal: Principal = { accountId: 'acc_bench_0', kind: 'account', passcodeId: crypto.randomUUID(), passcodeName: 'Partner 0' }
  let now = Date.now()
  const noop = (_principal: Principal, _now: number) => {}
  return extraNs(
    () => recorder.seen(principal, ++now),
    () => noop(principal, ++now),
  )
}

/** The day counter's call as `seen()` makes it, next to a no-op taking the same argument. */
function countingCost(): number {
  const days = new DayCounts()
  const noop = (_now: number) => {}
  let now = Date.now()
  return extraNs(
    () => days.success(++now),
    () => noop(++now),
  )
}

/** Median ns per call of `measured` and of `baseline`, in alternating slices after a warm-up. */
function sideBySide(measured: Call, baseline: Call): { measuredNs: number; baselineNs: number } {
  for (let i = 0; i < 10; i++) {
    slice(measured)
    slice(baseline)
  }
  const a: number[] = []
  const b: number[] = []
  for (let round = 0; round < ROUNDS; round++) {
    if (round % 2 === 0) {
      a.push(slice(measured))
      b.push(slice(baseline))
    } else {
      b.push(slice(baseline))
      a.push(slice(measured))
    }
  }
  return { measuredNs: median(a), baselineNs: median(b) }
}

/** The warm path (`verifyRequest` on a cache hit) of a service with usage on next to one with `usage: false`. */
async function warmPathCost(): Promise<NonNullable<UsageCost['warm']>> {
  const on = await createBenchService({ store: 'memory' })
  const off = await createBenchService({ store: 'memory', usage: false })
  const cachedOf = async (service: typeof on) => {
    const { accountId, passcode } = service.credentials[0]!
    if (!(await service.auth.authenticate({ accountId, passcode })).ok) throw new Error('the benchmark passcode was refused') // warms the cache
    const headers: Readonly<Record<string, string>> = { 'x-service-account-id': accountId, 'x-service-passcode': passcode }
    const reader = {
      header: (request: typeof headers, name: string) => request[name],
      headerRecord: (request: typeof headers) => request,
      clientAddress: () => undefined,
    }
    if (service.auth.verifyRequest(headers, reader) instanceof Promise) throw new Error('the warm path missed')
    return () => void service.auth.verifyRequest(headers, reader)
  }
  const { measuredNs, baselineNs } = sideBySide(await cachedOf(on), await cachedOf(off))
  await Promise.all([on.close(), off.close()])
  return { withUsageNs: measuredNs, bareNs: baselineNs, ratio: baselineNs / measuredNs }
}

/** In a worker process: each framework's hook − no-op, with usage on or off. */
async function hookCosts(usage: boolean): Promise<Record<Framework, number>> {
  const service = await createBenchService({ store: 'memory', ...(usage ? {} : { usage: false }) })
  const { accountId, passcode } = service.credentials[0]!
  if (!(await service.auth.authenticate({ accountId, passcode })).ok) throw new Error('the benchmark passcode was refused') // warms the cache
  const headers = { host: '127.0.0.1', 'x-service-account-id': `${accountId} `.trim(), 'x-service-passcode': `${passcode} `.trim() }
  const done = () => {}
  const resolved = Promise.resolve()
  const next = () => resolved

  const { default: Fastify } = await import('fastify')
  const { passcodeAuthPlugin } = await import('../src/fastify/index')
  const app = Fastify({ logger: false })
  await app.register(passcodeAuthPlugin, { auth: service.auth, connectRoute: false })
  await app.ready()
  const fastifyHook = app.requirePasscode
  const fastifyRequest = { raw: { headers }, passcodeAuth: null } as never
  const fastifyNoop = (_request: unknown, _reply: unknown, callOn: () => void) => callOn()
  const express = await import('../src/express/index')
  const expressHook = express.requirePasscode(service.auth)
  const expressRequest = { headers } as never
  const expressNoop = (_req: unknown, _res: unknown, callOn: () => void) => callOn()
  const koa = await import('../src/koa/index')
  const koaHook = koa.requirePasscode(service.auth)
  const koaContext = { req: { headers }, state: {} } as never
  const koaNoop = (_ctx: unknown, callOn: () => Promise<void>) => callOn()

  let through = 0
  fastifyHook(fastifyRequest, {} as never, () => through++)
  expressHook(expressRequest, {} as never, () => through++)
  void koaHook(koaContext, () => (through++, resolved))
  if (through !== 3) throw new Error(`requirePasscode let ${through} of 3 warm requests through synchronously`)

  return {
    fastify: extraNs(
      () => fastifyHook(fastifyRequest, {} as never, done),
      () => fastifyNoop(fastifyRequest, {}, done),
    ),
    express: extraNs(
      () => expressHook(expressRequest, {} as never, done),
      () => expressNoop(expressRequest, {}, done),
    ),
    koa: extraNs(
      () => void koaHook(koaContext, next),
      () => void koaNoop(koaContext, next),
    ),
  }
}

async function main(): Promise<UsageCost | Record<Framework, number>> {
  const variant = process.argv[2]
  if (variant === 'on' || variant === 'off') return hookCosts(variant === 'on')
  // The in-process figures alone, without the framework processes: `npx tsx bench/usage-cost.ts counting`.
  if (variant === 'counting') return { recorderNs: recorderCost(), countingNs: countingCost(), warm: await warmPathCost(), frameworks: [] }
  const on: Record<Framework, number>[] = []
  const off: Record<Framework, number>[] = []
  for (let i = 0; i < PROCESSES; i++) {
    on.push(await runChild<Record<Framework, number>>('usage-cost.ts', { args: ['on'] }))
    off.push(await runChild<Record<Framework, number>>('usage-cost.ts', { args: ['off'] }))
  }
  const frameworks = (['fastify', 'express', 'koa'] as const).map((framework) => {
    const withUsageNs = median(on.map((run) => run[framework]))
    const withoutUsageNs = median(off.map((run) => run[framework]))
    return { framework, withUsageNs, withoutUsageNs, usageNs: withUsageNs - withoutUsageNs }
  })
  return { recorderNs: recorderCost(), countingNs: countingCost(), warm: await warmPathCost(), frameworks }
}

runAsChild(main)
