/**
 * Section 1: HTTP throughput and p99 latency with autocannon on 127.0.0.1. Every
 * variant of one framework runs in its own child process; each round loads every
 * variant right next to the bare route (and passcode-auth right next to the peer),
 * so that machine noise hits both sides of a ratio alike, and each ratio is the
 * median of its per-round ratios.
 */
import { startChild, type RunningChild } from './child'
import type { Framework, ServerInfo, Variant } from './http-server'
import { loadAutocannon, type AutocannonResult } from './peers'
import { median } from './stats'

/** How long and how often to load each variant. */
export interface HttpSettings {
  readonly rounds: number
  readonly seconds: number
  readonly warmupSeconds: number
  readonly connections: number
}

/** One load run of one variant. */
export interface Run {
  readonly requestsPerSecond: number
  readonly p99Ms: number
  /**
   * Requests answered per second of the server process's CPU time (user + system):
   * its capacity on one core, which other load on the machine barely moves.
   */
  readonly requestsPerCpuSecond: number
}

/** Medians of one variant, and the raw runs. */
export interface VariantResult extends Run {
  readonly variant: Variant
  readonly runs: readonly Run[]
  /** Each round's variant / bare in req/s, from two runs made back to back (absent for bare). */
  readonly roundRatios?: readonly number[]
}

/**
 * One framework's variants; `ratios[v]` is the median over rounds of v / bare in
 * req/s, each from two runs made back to back, `cpuRatios[v]` the same in requests
 * per server CPU-second.
 */
export interface FrameworkResult {
  readonly framework: Framework
  readonly version: string
  readonly variants: readonly VariantResult[]
  readonly ratios: Readonly<Partial<Record<Variant, number>>>
  readonly cpuRatios: Readonly<Partial<Record<Variant, number>>>
  /** Median over rounds of passcode-auth (`auth`) / the better-auth peer (Fastify only), req/s. */
  readonly authOverPeer?: number
  /** The same in requests per server CPU-second. */
  readonly authOverPeerCpu?: number
  /** Median over rounds of connect on PGlite with its stored whitelist / connect with a static list, req/s. */
  readonly connectPgliteOverStatic?: number
  /** The same in requests per server CPU-second. */
  readonly connectPgliteOverStaticCpu?: number
  /** Each round's connect on PGlite / connect with a static list, req/s. */
  readonly connectPgliteRoundRatios?: readonly number[]
}

/** Which variants run on which framework. */
export const VARIANTS_OF: Readonly<Record<Framework, readonly Variant[]>> = {
  fastify: ['bare', 'noop-hook', 'auth', 'nocache-pglite', 'connect', 'connect-pglite', 'better-auth'],
  express: ['bare', 'noop-hook', 'auth', 'nocache-pglite', 'connect', 'connect-pglite'],
  koa: ['bare', 'noop-hook', 'auth', 'nocache-pglite', 'connect', 'connect-pglite'],
}

interface Target {
  readonly variant: Variant
  readonly child: RunningChild
  readonly url: string
  readonly headers: Record<string, string>
}

async function startTargets(framework: Framework, only: readonly Variant[] | undefined): Promise<Target[]> {
  const targets: Target[] = []
  try {
    for (const variant of VARIANTS_OF[framework].filter((v) => only === undefined || only.includes(v))) {
      const child = startChild('http-server.ts', { args: [framework, variant] })
      // Pushed before waiting, so that a failed start still stops what did start.
      targets.push({ variant, child, url: '', headers: {} })
      const { port, info } = await child.ready
      const { path, headers } = info as ServerInfo
      targets[targets.length - 1] = { variant, child, url: `http://127.0.0.1:${port}${path}`, headers }
    }
    // The bare route gets the very requests the protected one gets (the two credential
    // headers included), so that a ratio measures the middleware, not request size.
    const credentials = targets.find((target) => target.variant === 'auth')?.headers ?? {}
    return targets.map((target) => (target.variant === 'bare' || target.variant === 'noop-hook' ? { ...target, headers: credentials } : target))
  } catch (error) {
    await Promise.all(targets.map((target) => target.child.stop()))
    throw error
  }
}

async function load(target: Target, seconds: number, connections: number): Promise<Run> {
  const autocannon = await loadAutocannon()
  const cpuBefore = await target.child.cpuMicros()
  const result: AutocannonResult = await autocannon({ url: target.url, headers: target.headers, connections, duration: seconds, pipelining: 1 })
  const cpuSeconds = ((await target.child.cpuMicros()) - cpuBefore) / 1e6
  if (result.non2xx > 0 || result.errors > 0 || result['2xx'] === 0) {
    throw new Error(`${target.variant}: ${result.non2xx} non-2xx answers and ${result.errors} errors of ${result.requests.total}`)
  }
  return { requestsPerSecond: result.requests.average, p99Ms: result.latency.p99, requestsPerCpuSecond: result['2xx'] / cpuSeconds }
}

/** Two variants loaded back to back; `over` is the denominator of the ratio. */
interface Pair {
  readonly over: Target
  readonly variant: Target
}

/**
 * Runs the interleaved rounds for one framework and returns the medians: every
 * variant, or only those of `only` (without `bare`, only the pairs of its variants).
 */
export async function benchmarkFramework(
  framework: Framework,
  settings: HttpSettings,
  log: (line: string) => void,
  only?: readonly Variant[],
): Promise<FrameworkResult> {
  const targets = await startTargets(framework, only)
  try {
    for (const target of targets) await load(target, settings.warmupSeconds, settings.connections)
    const byVariant = new Map(targets.map((target) => [target.variant, target]))
    const bare = byVariant.get('bare')
    // Every ratio comes from two runs made back to back, so that the machine's noise,
    // which swings throughput by up to 2× from one few-second stretch to the next on
    // 2 shared cores, hits both sides of a ratio alike: each variant against the bare
    // route, and passcode-auth against the peer.
    const pairs: Pair[] = bare === undefined ? [] : targets.filter((target) => target !== bare).map((target) => ({ over: bare, variant: target }))
    const auth = byVariant.get('auth')
    const peer = byVariant.get('better-auth')
    if (auth !== undefined && peer !== undefined) pairs.push({ over: peer, variant: auth })
    const connect = byVariant.get('connect')
    const connectPglite = byVariant.get('connect-pglite')
    if (connect !== undefined && connectPglite !== undefined) pairs.push({ over: connect, variant: connectPglite })

    const runs = new Map<Variant, Run[]>(targets.map((t) => [t.variant, []]))
    const pairRatios = new Map<Pair, { perSecond: number[]; perCpu: number[] }>(pairs.map((pair) => [pair, { perSecond: [], perCpu: [] }]))
    for (let round = 0; round < settings.rounds; round++) {
      // Rotate the starting pair, and swap which side of a pair runs first every round.
      const order = pairs.map((_, i) => pairs[(i + round) % pairs.length]!)
      const line: string[] = []
      for (const pair of order) {
        const sides = round % 2 === 0 ? [pair.over, pair.variant] : [pair.variant, pair.over]
        const measured = new Map<Target, Run>()
        for (const target of sides) {
          const run = await load(target, settings.seconds, settings.connections)
          runs.get(target.variant)!.push(run)
          measured.set(target, run)
        }
        const over = measured.get(pair.over)!
        const variant = measured.get(pair.variant)!
        const ratios = pairRatios.get(pair)!
        ratios.perSecond.push(variant.requestsPerSecond / over.requestsPerSecond)
        ratios.perCpu.push(variant.requestsPerCpuSecond / over.requestsPerCpuSecond)
        line.push(
          `${pair.variant.variant}/${pair.over.variant} ${ratios.perSecond.at(-1)!.toFixed(2)} (${Math.round(variant.requestsPerSecond)}/${Math.round(over.requestsPerSecond)})`,
        )
      }
      log(`  ${framework} round ${round + 1}/${settings.rounds}: ${line.join(', ')}`)
    }
    const ratioOf = (variant: Variant, over: Variant) =>
      pairRatios.get(pairs.find((pair) => pair.variant.variant === variant && pair.over.variant === over)!)!
    const ratios: Partial<Record<Variant, number>> = {}
    const cpuRatios: Partial<Record<Variant, number>> = {}
    for (const pair of pairs) {
      if (bare === undefined || pair.over !== bare) continue
      ratios[pair.variant.variant] = median(ratioOf(pair.variant.variant, 'bare').perSecond)
      cpuRatios[pair.variant.variant] = median(ratioOf(pair.variant.variant, 'bare').perCpu)
    }
    const perCpu = (run: Run) => run.requestsPerCpuSecond
    return {
      framework,
      version: await frameworkVersion(framework),
      variants: targets.map(({ variant }) => ({
        variant,
        requestsPerSecond: median(runs.get(variant)!.map((run) => run.requestsPerSecond)),
        p99Ms: median(runs.get(variant)!.map((run) => run.p99Ms)),
        requestsPerCpuSecond: median(runs.get(variant)!.map(perCpu)),
        runs: runs.get(variant)!,
        ...(variant === 'bare' || bare === undefined ? {} : { roundRatios: ratioOf(variant, 'bare').perSecond }),
      })),
      ratios,
      cpuRatios,
      ...(auth !== undefined && peer !== undefined
        ? { authOverPeer: median(ratioOf('auth', 'better-auth').perSecond), authOverPeerCpu: median(ratioOf('auth', 'better-auth').perCpu) }
        : {}),
      ...(connect !== undefined && connectPglite !== undefined
        ? {
            connectPgliteOverStatic: median(ratioOf('connect-pglite', 'connect').perSecond),
            connectPgliteOverStaticCpu: median(ratioOf('connect-pglite', 'connect').perCpu),
            connectPgliteRoundRatios: ratioOf('connect-pglite', 'connect').perSecond,
          }
        : {}),
    }
  } finally {
    await Promise.all(targets.map((target) => target.child.stop()))
  }
}

async function frameworkVersion(framework: Framework): Promise<string> {
  const { readFile } = await import('node:fs/promises')
  const url = new URL(`../node_modules/${framework}/package.json`, import.meta.url)
  return (JSON.parse(await readFile(url, 'utf8')) as { version: string }).version
}
