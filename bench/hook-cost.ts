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
 * restricted passcode costs a cache hit.
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
}

const CALLS = 20_000
const ROUNDS = 60

type Call = () => void
type Framework = HookCost['framework']

const VARIANTS = ['hook', 'telemetry', 'limiter', 'restricted', 'noop'] as const
type Variant = (typeof VARIANTS)[number]

async function hooks(): Promise<({ framework: Framework } & Record<Variant, Call>)[]> {
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
  const done = () => {}
  const resolved = Promise.resolve()
  const next = () => resolved
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
  const makers: Record<Framework, (auth: PasscodeAuth, headers: object, scopes?: string[]) => Promise<Call>> = {
    async fastify(auth, headers, scopes) {
      const app = Fastify({ logger: false })
      await app.register(passcodeAuthPlugin, { auth, connectRoute: false })
      await app.ready()
      const hook = scopes === undefined ? app.requirePasscode : app.requirePasscodeWith({ scopes })
      const request = { raw: { headers }, ip, passcodeAuth: null } as never
      hook(request, {} as never, () => through++)
      return () => hook(request, {} as never, done)
    },
    async express(auth, headers, scopes) {
      const hook = express.requirePasscode(auth, scopes === undefined ? undefined : { scopes })
      const request = { headers, ip } as never
      hook(request, {} as never, () => through++)
      return () => hook(request, {} as never, done)
    },
    async koa(auth, headers, scopes) {
      const hook = koa.requirePasscode(auth, scopes === undefined ? undefined : { scopes })
      const context = { req: { headers }, ip, state: {} } as never
      void hook(context, () => (through++, resolved))
      return () => void hook(context, next)
    },
  }
  const noops: Record<Framework, (headers: object) => Call> = {
    fastify: (headers) => {
      const noop = (_request: unknown, _reply: unknown, callOn: () => void) => callOn()
      const request = { raw: { headers }, passcodeAuth: null }
      return () => noop(request, {}, done)
    },
    express: (headers) => {
      const noop = (_req: unknown, _res: unknown, callOn: () => void) => callOn()
      const request = { headers }
      return () => noop(request, {}, done)
    },
    koa: (headers) => {
      const noop = (_ctx: unknown, callOn: () => Promise<void>) => callOn()
      const context = { req: { headers }, state: {} }
      return () => void noop(context, next)
    },
  }

  const plainHeaders = await warmHeaders(plain)
  const observedHeaders = await warmHeaders(observed)
  const limitedHeaders = await warmHeaders(limited)
  const restrictedHeaders = await warmHeaders(restricted)
  const result = []
  for (const framework of ['fastify', 'express', 'koa'] as const) {
    result.push({
      framework,
      hook: await makers[framework](plain.auth, plainHeaders),
      telemetry: await makers[framework](observed.auth, observedHeaders),
      limiter: await makers[framework](limited.auth, limitedHeaders),
      restricted: await makers[framework](restricted.auth, restrictedHeaders, SCOPES),
      noop: noops[framework](plainHeaders),
    })
  }
  // Each must let the request through, or the figure would be the refusal's cost
  // (a hook that takes the asynchronous path lets it through a few ticks later).
  await new Promise((resolve) => setTimeout(resolve, 50))
  if (through !== 12) throw new Error(`requirePasscode let ${through} of 12 warm requests through`)
  return result
}

function slice(call: Call): number {
  const start = process.hrtime.bigint()
  for (let i = 0; i < CALLS; i++) call()
  return Number(process.hrtime.bigint() - start) / CALLS
}

async function main(): Promise<HookCost[]> {
  const results: HookCost[] = []
  for (const { framework, ...calls } of await hooks()) {
    for (let i = 0; i < 10; i++) for (const variant of VARIANTS) slice(calls[variant]) // warm up the JIT
    const samples = { hook: [] as number[], telemetry: [] as number[], limiter: [] as number[], restricted: [] as number[], noop: [] as number[] }
    for (let round = 0; round < ROUNDS; round++) {
      // The order turns every round, so that no side always runs first.
      for (let i = 0; i < VARIANTS.length; i++) {
        const variant = VARIANTS[(round + i) % VARIANTS.length]!
        samples[variant].push(slice(calls[variant]))
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
    })
  }
  return results
}

runAsChild(main)
