/**
 * What `requirePasscode` itself costs on a warm cache, per request, next to a hook that
 * does nothing, for Fastify, Express and Koa: each hook is called as its framework
 * calls it, on a request object carrying the same credential headers, in slices of
 * 20 000 calls that alternate between them every few milliseconds. At that grain
 * the machine's noise, which swings HTTP throughput by up to 2× from one few-second
 * stretch to the next, hits every side alike, so the difference is measured to a few
 * nanoseconds. Set against the bare route's server CPU per request (from the HTTP
 * section), it is the share of a request the middleware takes.
 *
 * In the same rounds, the same hook on a service with the `telemetry` option set to
 * `@opentelemetry/api`'s tracer and meter with no SDK registered (OpenTelemetry
 * installed but not set up): what turning telemetry on costs the warm path; and on a
 * service with the brute-force limiter on (its memory store, the request coming from
 * an address that is not limited): what the limiter's check costs a cache hit; and the
 * hook of a route that needs two scopes, for a passcode that grants them and may be used
 * from 10 address ranges, the request from the last (SPEC §5.48, §5.49): what a
 * restricted passcode costs a cache hit; and the hook for a passcode with a rate limit
 * and credits (SPEC §5.50): what spending leased slots and credits in memory costs a
 * cache hit. That passcode's limit is above the rate the bench calls it at (at most
 * half of `max` per window: the calls wait for the next window rather than be refused)
 * and its credits outlast the run, and the loop yields between slices, so a lease a
 * slice ran out on lands before the next slice: at most one slice's calls wait for it.
 * Every call of every hook must be let through, or the run fails.
 *
 * Run as a child of `npm run bench`; prints nothing itself.
 */
import { metrics, trace } from '@opentelemetry/api'
import type { PasscodeAuth } from '../src/index'
import { createBenchService } from './fixtures'
import { runAsChild } from './child'
import { median } from './stats'

/** One framework's hook cost. */
export interface HookCost {
  readonly framework: 'fastify' | 'express' | 'koa'
  /** ns per call of `requirePasscode` on a cache hit. */
  readonly hookNs: number
  /** ns per call of a hook that only calls on. */
  readonly noopNs: number
  /** Median over rounds of hook − no-op, ns per call. */
  readonly extraNs: number
  /** ns per call of `requirePasscode` on a cache hit, the service with telemetry on and no OpenTelemetry SDK. */
  readonly telemetryNs?: number
  /** Median over rounds of that − the plain hook, ns per call. */
  readonly telemetryExtraNs?: number
  /** ns per call of `requirePasscode` on a cache hit, the service with `rateLimit: {}` (memory store). */
  readonly limiterNs?: number
  /** Median over rounds of that − the plain hook, ns per call. */
  readonly limiterExtraNs?: number
  /** ns per call of `requirePasscode` with two scopes on a cache hit, the passcode granting them from 10 ranges. */
  readonly restrictedNs?: number
  /** Median over rounds of that − the plain hook, ns per call. */
  readonly restrictedExtraNs?: number
  /** ns per call of `requirePasscode` on a cache hit, the passcode with a rate limit and credits (SPEC §5.50). */
  readonly limitsNs?: number
  /** Median over rounds of that − the plain hook, ns per call. */
  readonly limitsExtraNs?: number
}

const CALLS = 20_000
/** Calls timed between two yields. */
const BATCH = 1_000
const ROUNDS = 60
const WARM_UP_SLICES = 10
/** The limited passcode's rate limit: a 1 s window, `max` above what the bench calls it at. */
const RATE_LIMIT = { max: 1_000_000, windowSeconds: 1 }
/** Its credits: more than every call of the run spends. */
const CREDITS = 1_000_000_000

type Call = () => void
type Framework = HookCost['framework']

const VARIANTS = ['hook', 'telemetry', 'limiter', 'restricted', 'limits', 'noop'] as const
type Variant = (typeof VARIANTS)[number]

/** What the hooks answered instead of letting a request through (Fastify's reply records it). */
const refusals: string[] = []

/** Per variant: calls let through (the hook called on) and calls made. */
type Counts = Record<Variant, { through: number; made: number }>

async function hooks(counts: Counts): Promise<({ framework: Framework } & Record<Variant, Call>)[]> {
  const plain = await createBenchService({ store: 'memory' })
  const observed = await createBenchService({
    store: 'memory',
    telemetry: { tracer: trace.getTracer('passcode-auth-bench'), meter: metrics.getMeter('passcode-auth-bench') },
  })
  const limited = await createBenchService({ store: 'memory', rateLimit: {} })
  // Two scopes needed, granted; 10 ranges, the caller's address (192.0.2.1) in the last.
  const SCOPES = ['events:read', 'events:write']
  const restricted = await createBenchService({
    store: 'memory',
    scopes: { 'events:read': 'Read events', 'events:write': 'Send events', 'reports:read': 'Read reports' },
    restrictions: { scopes: SCOPES, allowedAddresses: [...Array.from({ length: 9 }, (_, i) => `10.0.${i}.0/24`), '192.0.2.0/24'] },
  })
  const limitedPasscode = await createBenchService({ store: 'memory', limits: { rateLimit: RATE_LIMIT, credits: { remaining: CREDITS } } })
  const resolved = Promise.resolve()
  // Each variant's hook calls on into a counter of its own (the no-op's too, so that both sides pay for it).
  const done = (variant: Variant) => () => {
    counts[variant].through++
  }
  const next = (variant: Variant) => () => (counts[variant].through++, resolved)
  let through = 0

  // Header values as Node's parser makes them: flat strings of their own.
  async function warmHeaders(service: typeof plain) {
    const { accountId, passcode } = service.credentials[0]!
    if (!(await service.auth.authenticate({ accountId, passcode, clientAddress: '192.0.2.1' })).ok)
      throw new Error('the benchmark passcode was refused') // warms the cache
    return { host: '127.0.0.1', 'x-service-account-id': `${accountId} `.trim(), 'x-service-passcode': `${passcode} `.trim() }
  }

  const { default: Fastify } = await import('fastify')
  const { passcodeAuthPlugin } = await import('../src/fastify/index')
  const express = await import('../src/express/index')
  const koa = await import('../src/koa/index')

  // The caller's address, as a plain property (the frameworks' own `ip` getters cost
  // what they cost with or without this library; it reads them only with a limiter).
  const ip = '192.0.2.1'
  type Maker = (variant: Variant, auth: PasscodeAuth, headers: object, scopes?: string[]) => Promise<Call>
  const makers: Record<Framework, Maker> = {
    async fastify(variant, auth, headers, scopes) {
      const app = Fastify({ logger: false })
      await app.register(passcodeAuthPlugin, { auth, connectRoute: false })
      await app.ready()
      const hook = scopes === undefined ? app.requirePasscode : app.requirePasscodeWith({ scopes })
      const request = { raw: { headers }, ip, passcodeAuth: null } as never
      hook(request, {} as never, () => through++)
      const callOn = done(variant)
      // A refusal is answered through the reply: named in the run's failure.
      const reply = {
        code: (status: number) => {
          refusals.push(`${variant}: ${status}`)
          return reply
        },
        headers: () => reply,
        send: (body: string) => void refusals.push(`${variant}: ${body}`),
      } as never
      return () => hook(request, reply, callOn)
    },
    async express(variant, auth, headers, scopes) {
      const hook = express.requirePasscode(auth, scopes === undefined ? undefined : { scopes })
      const request = { headers, ip } as never
      hook(request, {} as never, () => through++)
      const callOn = done(variant)
      return () => hook(request, {} as never, callOn)
    },
    async koa(variant, auth, headers, scopes) {
      const hook = koa.requirePasscode(auth, scopes === undefined ? undefined : { scopes })
      // A refusal is set on the context: named in the run's failure.
      const context = {
        req: { headers },
        ip,
        state: {},
        status: 404,
        set(this: { status: number }) {
          refusals.push(`${variant}: ${this.status}`, '')
        },
      } as never
      void hook(context, () => (through++, resolved))
      const callOn = next(variant)
      return () => void hook(context, callOn)
    },
  }
  const noops: Record<Framework, (headers: object) => Call> = {
    fastify: (headers) => {
      const noop = (_request: unknown, _reply: unknown, callOn: () => void) => callOn()
      const request = { raw: { headers }, passcodeAuth: null }
      const callOn = done('noop')
      return () => noop(request, {}, callOn)
    },
    express: (headers) => {
      const noop = (_req: unknown, _res: unknown, callOn: () => void) => callOn()
      const request = { headers }
      const callOn = done('noop')
      return () => noop(request, {}, callOn)
    },
    koa: (headers) => {
      const noop = (_ctx: unknown, callOn: () => Promise<void>) => callOn()
      const context = { req: { headers }, state: {} }
      const callOn = next('noop')
      return () => void noop(context, callOn)
    },
  }

  const plainHeaders = await warmHeaders(plain)
  const observedHeaders = await warmHeaders(observed)
  const limitedHeaders = await warmHeaders(limited)
  const restrictedHeaders = await warmHeaders(restricted)
  const limitsHeaders = await warmHeaders(limitedPasscode)
  const result = []
  for (const framework of ['fastify', 'express', 'koa'] as const) {
    result.push({
      framework,
      hook: await makers[framework]('hook', plain.auth, plainHeaders),
      telemetry: await makers[framework]('telemetry', observed.auth, observedHeaders),
      limiter: await makers[framework]('limiter', limited.auth, limitedHeaders),
      restricted: await makers[framework]('restricted', restricted.auth, restrictedHeaders, SCOPES),
      limits: await makers[framework]('limits', limitedPasscode.auth, limitsHeaders),
      noop: noops[framework](plainHeaders),
    })
  }
  // Each must let the request through, or the figure would be the refusal's cost
  // (a hook that takes the asynchronous path lets it through a few ticks later).
  await new Promise((resolve) => setTimeout(resolve, 50))
  if (through !== 15) throw new Error(`requirePasscode let ${through} of 15 warm requests through`)
  return result
}

const yieldToLeases = () => new Promise((resolve) => setImmediate(resolve))

/** The limited passcode's calls in the current rate window: at most half of its `max`, waiting for the next window when a slice would pass that. */
const pace = { window: 0, calls: 0 }
async function paced(variant: Variant): Promise<void> {
  if (variant !== 'limits') return
  const windowMs = RATE_LIMIT.windowSeconds * 1000
  let window = Math.floor(Date.now() / windowMs)
  if (window === pace.window && pace.calls + CALLS > RATE_LIMIT.max / 2) {
    await new Promise((resolve) => setTimeout(resolve, (window + 1) * windowMs - Date.now() + 1))
    window = Math.floor(Date.now() / windowMs)
  }
  if (window !== pace.window) Object.assign(pace, { window, calls: 0 })
  pace.calls += CALLS
}

/**
 * One slice of `variant`: the ns per call, timed in batches of {@link BATCH} calls with
 * a yield between them (not timed), so that a lease a batch ran out on lands before the
 * next batch, as a lease in flight holds up only the requests that come meanwhile.
 */
async function slice(call: Call, variant: Variant, counts: Counts): Promise<number> {
  await paced(variant)
  let ns = 0
  for (let made = 0; made < CALLS; made += BATCH) {
    await yieldToLeases()
    const start = process.hrtime.bigint()
    for (let i = 0; i < BATCH; i++) call()
    ns += Number(process.hrtime.bigint() - start)
  }
  counts[variant].made += CALLS
  return ns / CALLS
}

async function main(): Promise<HookCost[]> {
  const results: HookCost[] = []
  const counts = Object.fromEntries(VARIANTS.map((variant) => [variant, { through: 0, made: 0 }])) as Counts
  for (const { framework, ...calls } of await hooks(counts)) {
    for (let i = 0; i < WARM_UP_SLICES; i++) for (const variant of VARIANTS) await slice(calls[variant], variant, counts) // warm up the JIT
    const samples = Object.fromEntries(VARIANTS.map((variant) => [variant, [] as number[]])) as Record<Variant, number[]>
    for (let round = 0; round < ROUNDS; round++) {
      // The order turns every round, so that no side always runs first.
      for (let i = 0; i < VARIANTS.length; i++) {
        const variant = VARIANTS[(round + i) % VARIANTS.length]!
        samples[variant].push(await slice(calls[variant], variant, counts))
      }
    }
    const minus = (a: number[], b: number[]) => median(a.map((value, round) => value - b[round]!))
    results.push({
      framework,
      hookNs: median(samples.hook),
      noopNs: median(samples.noop),
      extraNs: minus(samples.hook, samples.noop),
      telemetryNs: median(samples.telemetry),
      telemetryExtraNs: minus(samples.telemetry, samples.hook),
      limiterNs: median(samples.limiter),
      limiterExtraNs: minus(samples.limiter, samples.hook),
      restrictedNs: median(samples.restricted),
      restrictedExtraNs: minus(samples.restricted, samples.hook),
      limitsNs: median(samples.limits),
      limitsExtraNs: minus(samples.limits, samples.hook),
    })
  }
  // Every call let through: a refusal (a 429 of the limited passcode) would make the figure a refusal's cost.
  await new Promise((resolve) => setTimeout(resolve, 100))
  if (refusals.length > 0) throw new Error(`${refusals.length / 2} refusals, the first: ${refusals.slice(0, 4).join('; ')}`)
  for (const variant of VARIANTS) {
    const { through, made } = counts[variant]
    if (through !== made) throw new Error(`${variant}: ${through} of ${made} calls let through`)
  }
  return results
}

runAsChild(main)
