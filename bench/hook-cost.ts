/**
 * What `requirePasscode` itself costs on a warm cache, per request, next to a hook that
 * does nothing, for Fastify, Express and Koa: each hook is called as its framework
 * calls it, on a request object carrying the same credential headers, in slices of
 * 20 000 calls that alternate between the two every few milliseconds. At that grain
 * the machine's noise, which swings HTTP throughput by up to 2× from one few-second
 * stretch to the next, hits both sides alike, so the difference is measured to a few
 * nanoseconds. Set against the bare route's server CPU per request (from the HTTP
 * section), it is the share of a request the middleware takes.
 *
 * Run as a child of `npm run bench`; prints nothing itself.
 */
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
}

const CALLS = 20_000
const ROUNDS = 60

type Call = () => void

async function hooks(): Promise<{ framework: HookCost['framework']; hook: Call; noop: Call }[]> {
  const service = await createBenchService({ store: 'memory' })
  const { accountId, passcode } = service.credentials[0]!
  if (!(await service.auth.authenticate({ accountId, passcode })).ok) throw new Error('the benchmark passcode was refused') // warms the cache
  // Header values as Node's parser makes them: flat strings of their own.
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

  // Each must let the request through, or the figure would be the refusal's cost.
  let through = 0
  fastifyHook(fastifyRequest, {} as never, () => through++)
  expressHook(expressRequest, {} as never, () => through++)
  void koaHook(koaContext, () => (through++, resolved))
  if (through !== 3) throw new Error(`requirePasscode let ${through} of 3 warm requests through`)

  return [
    { framework: 'fastify', hook: () => fastifyHook(fastifyRequest, {} as never, done), noop: () => fastifyNoop(fastifyRequest, {}, done) },
    { framework: 'express', hook: () => expressHook(expressRequest, {} as never, done), noop: () => expressNoop(expressRequest, {}, done) },
    { framework: 'koa', hook: () => void koaHook(koaContext, next), noop: () => void koaNoop(koaContext, next) },
  ]
}

function slice(call: Call): number {
  const start = process.hrtime.bigint()
  for (let i = 0; i < CALLS; i++) call()
  return Number(process.hrtime.bigint() - start) / CALLS
}

async function main(): Promise<HookCost[]> {
  const results: HookCost[] = []
  for (const { framework, hook, noop } of await hooks()) {
    for (let i = 0; i < 10; i++) slice(hook), slice(noop) // warm up the JIT
    const hookNs: number[] = []
    const noopNs: number[] = []
    const extraNs: number[] = []
    for (let round = 0; round < ROUNDS; round++) {
      const [first, second] = round % 2 === 0 ? [hook, noop] : [noop, hook]
      const a = slice(first)
      const b = slice(second)
      const [h, n] = round % 2 === 0 ? [a, b] : [b, a]
      hookNs.push(h)
      noopNs.push(n)
      extraNs.push(h - n)
    }
    results.push({ framework, hookNs: median(hookNs), noopNs: median(noopNs), extraNs: median(extraNs) })
  }
  return results
}

runAsChild(main)
