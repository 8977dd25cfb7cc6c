/**
 * Section 1: HTTP throughput and p99 latency with autocannon on 127.0.0.1. Every
 * variant of one framework runs in its own child process; the runs are interleaved
 * (bare, auth, …, bare, auth, …) so that machine noise hits every variant alike, and
 * each ratio is the median of the per-round ratios.
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
}

/**
 * One framework's variants; `ratios[v]` is the median over rounds of v / bare in
 * req/s, `cpuRatios[v]` the same in requests per server CPU-second.
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
}

/** Which variants run on which framework. */
export const VARIANTS_OF: Readonly<Record<Framework, readonly Variant[]>> = {
  fastify: ['bare', 'noop-hook', 'auth', 'nocache-pglite', 'connect', 'better-auth'],
  express: ['bare', 'noop-hook', 'auth', 'nocache-pglite', 'connect'],
  koa: ['bare', 'noop-hook', 'auth', 'nocache-pglite', 'connect'],
}

interface Target {
  readonly variant: Variant
  readonly child: RunningChild
  readonly url: string
  readonly headers: Record<string, string>
}

async function startTargets(framework: Framework): Promise<Target[]> {
  const targets: Target[] = []
  try {
    for (const variant of VARIANTS_OF[framework]) {
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

/** Runs the interleaved rounds for one framework and returns the medians. */
export async function benchmarkFramework(framework: Framework, settings: HttpSettings, log: (line: string) => void): Promise<FrameworkResult> {
  const targets = await startTargets(framework)
  try {
    for (const target of targets) await load(target, settings.warmupSeconds, settings.connections)
    const runs = new Map<Variant, Run[]>(targets.map((t) => [t.variant, []]))
    for (let round = 0; round < settings.rounds; round++) {
      // Rotate the starting variant so that no variant always runs first or last.
      const order = targets.map((_, i) => targets[(i + round) % targets.length]!)
      const line: string[] = []
      for (const target of order) {
        const run = await load(target, settings.seconds, settings.connections)
        runs.get(target.variant)!.push(run)
        line.push(`${target.variant} ${Math.round(run.requestsPerSecond)} (${Math.round(run.requestsPerCpuSecond)}/cpu-s)`)
      }
      log(`  ${framework} round ${round + 1}/${settings.rounds}: ${line.join(', ')}`)
    }
    const perRound = (variant: Variant, over: Variant, of: (run: Run) => number = (run) => run.requestsPerSecond): number =>
      median(runs.get(variant)!.map((run, i) => of(run) / of(runs.get(over)![i]!)))
    const perCpu = (run: Run) => run.requestsPerCpuSecond
    const ratios: Partial<Record<Variant, number>> = {}
    const cpuRatios: Partial<Record<Variant, number>> = {}
    for (const { variant } of targets) {
      if (variant === 'bare') continue
      ratios[variant] = perRound(variant, 'bare')
      cpuRatios[variant] = perRound(variant, 'bare', perCpu)
    }
    return {
      framework,
      version: await frameworkVersion(framework),
      variants: targets.map(({ variant }) => ({
        variant,
        requestsPerSecond: median(runs.get(variant)!.map((run) => run.requestsPerSecond)),
        p99Ms: median(runs.get(variant)!.map((run) => run.p99Ms)),
        requestsPerCpuSecond: median(runs.get(variant)!.map(perCpu)),
        runs: runs.get(variant)!,
      })),
      ratios,
      cpuRatios,
      ...(runs.has('better-auth') ? { authOverPeer: perRound('auth', 'better-auth'), authOverPeerCpu: perRound('auth', 'better-auth', perCpu) } : {}),
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
