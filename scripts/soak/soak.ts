import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { seedDataFolder, soakSecrets, startReferenceServer } from './reference-server'
import { runTraffic, type TrafficTally } from './traffic'
import { readUsageWrites, type UsageWrites } from './usage-writes'

/** The reference server's usage flush interval (the library's default). */
export const USAGE_FLUSH_INTERVAL_MS = 60_000

/** How long and how hard a soak run goes. */
export interface SoakOptions {
  readonly durationMs: number
  /** Requests in flight at once (keep-alive connections). */
  readonly concurrency: number
  /** How often the server's heap is sampled after a forced GC. */
  readonly sampleEveryMs: number
  /** The sample every later one is compared with: after warm-up, at most the first minute. */
  readonly baselineAtMs: number
  /** How many valid account passcodes and user passcodes the seed creates. */
  readonly valid: number
  readonly users: number
  /**
   * A migrated, empty PGlite database folder to copy and seed, instead of the one made
   * (by initdb, seconds of CPU) once per machine in the temp folder.
   */
  readonly databaseTemplate?: string
}

/** The defaults of `npm run soak`: one minute. */
export function soakOptions(durationMs = 60_000, concurrency = 16): SoakOptions {
  return {
    durationMs,
    concurrency,
    sampleEveryMs: Math.min(5_000, Math.max(250, Math.floor(durationMs / 12))),
    // Warm-up (JIT, caches, pools) takes the first third; past a minute, the first minute.
    baselineAtMs: Math.min(60_000, Math.floor(durationMs / 3)),
    valid: 50,
    users: 20,
  }
}

/**
 * The short run of the harness's own smoke test: one second (still at least one whole
 * round of the mix, and three heap samples) from four connections. The load saturates
 * the machine, so its cost grows with duration and connections, not the checks.
 */
export const SHORT: SoakOptions = { durationMs: 1_000, concurrency: 4, sampleEveryMs: 250, baselineAtMs: 250, valid: 8, users: 3 }

/** The fewest heap samples a verdict is drawn from: a run goes on until it has them. */
const MIN_HEAP_SAMPLES = 3

/** One heap sample: heap in use right after a full GC. */
export interface HeapSample {
  readonly atMs: number
  readonly heapUsed: number
  readonly rss: number
}

/** Everything a soak run measured, and its verdict. */
export interface SoakResult {
  readonly options: SoakOptions
  readonly traffic: TrafficTally
  readonly elapsedMs: number
  readonly heap: {
    readonly samples: readonly HeapSample[]
    readonly baseline: HeapSample
    readonly last: HeapSample
    /** (last − baseline) / baseline. */
    readonly growth: number
  }
  /**
   * Usage writes counted in the database (SPEC §5.27), and the most one passcode may
   * get: one per started flush interval of the run, plus the flush at shutdown.
   */
  readonly usage: UsageWrites & { readonly limitPerPasscode: number }
  /** Set when the server process ended during the run. */
  readonly serverExit: { code: number | null; signal: string | null } | undefined
  /** No unexpected answer, the server alive throughout, the heap within 10 % of the baseline. */
  readonly passed: boolean
  readonly failures: readonly string[]
}

/** Maximum heap growth over the run, relative to the baseline sample. */
export const MAX_GROWTH = 0.1

/**
 * Seeds a temporary data folder, starts the reference server on it (loopback only),
 * sends the request mix for `durationMs` while sampling the server's heap after forced
 * GCs, stops the server and removes the folder.
 */
export async function runSoak(options: SoakOptions, log: (line: string) => void = () => {}): Promise<SoakResult> {
  const dir = mkdtempSync(join(tmpdir(), 'passcode-auth-soak-'))
  const secrets = soakSecrets()
  try {
    log(`seeding ${dir} …`)
    const credentials = await seedDataFolder(dir, secrets, options, options.databaseTemplate)
    log('starting passcode-auth serve …')
    const server = await startReferenceServer(dir, secrets)
    try {
      log(`serving on 127.0.0.1:${server.port}; load for ${options.durationMs / 1000} s with ${options.concurrency} connections`)
      const started = performance.now()
      const elapsed = () => performance.now() - started
      const samples: HeapSample[] = []
      // The run lasts its duration and until the heap was sampled often enough to judge
      // (a loaded machine can make one sample take longer than the interval).
      const stop = () => (elapsed() >= options.durationMs && samples.length >= MIN_HEAP_SAMPLES) || server.exited !== undefined
      const sampling = (async () => {
        while (!stop()) {
          const at = elapsed()
          const { heapUsed, rss } = await server.heapAfterGc()
          samples.push({ atMs: Math.round(at), heapUsed, rss })
          log(`  ${(at / 1000).toFixed(1)} s: heap ${(heapUsed / 2 ** 20).toFixed(2)} MiB after GC`)
          const wait = options.sampleEveryMs - (elapsed() - at)
          if (wait > 0) await new Promise((resolve) => setTimeout(resolve, Math.min(wait, Math.max(0, options.durationMs - elapsed()))))
        }
      })()
      const traffic = await runTraffic(server.port, credentials, options.concurrency, stop)
      await sampling
      // The last sample is taken under load too: the run ends right after it.
      const elapsedMs = elapsed()
      const serverExit = server.exited
      await server.stop()
      const served = elapsed()
      const usage = { ...(await readUsageWrites(dir)), limitPerPasscode: Math.floor(served / USAGE_FLUSH_INTERVAL_MS) + 1 }
      return verdict(options, traffic, samples, elapsedMs, serverExit, usage)
    } finally {
      await server.stop()
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

function verdict(
  options: SoakOptions,
  traffic: TrafficTally,
  samples: HeapSample[],
  elapsedMs: number,
  serverExit: SoakResult['serverExit'],
  usage: SoakResult['usage'],
): SoakResult {
  const failures: string[] = []
  if (usage.maxPerPasscode > usage.limitPerPasscode) {
    failures.push(`a passcode got ${usage.maxPerPasscode} usage writes (at most ${usage.limitPerPasscode} in this run)`)
  }
  if (traffic.requests > 0 && usage.writes === 0) failures.push('no usage was written (not even at shutdown)')
  if (serverExit !== undefined) failures.push(`the server exited during the run (code ${serverExit.code}, signal ${serverExit.signal})`)
  if (traffic.requests === 0) failures.push('no request was answered')
  if (traffic.unexpected > 0) failures.push(`${traffic.unexpected} unexpected answers`)
  const baseline = samples.find((sample) => sample.atMs >= options.baselineAtMs) ?? samples[0]
  const last = samples.at(-1)
  if (baseline === undefined || last === undefined || samples.length < MIN_HEAP_SAMPLES) {
    failures.push(`too few heap samples (${samples.length})`)
    const none = { atMs: 0, heapUsed: 0, rss: 0 }
    return { options, traffic, elapsedMs, heap: { samples, baseline: none, last: none, growth: 0 }, usage, serverExit, passed: false, failures }
  }
  const growth = (last.heapUsed - baseline.heapUsed) / baseline.heapUsed
  if (growth > MAX_GROWTH) failures.push(`heap grew ${(growth * 100).toFixed(1)} % after the baseline (limit ${MAX_GROWTH * 100} %)`)
  return { options, traffic, elapsedMs, heap: { samples, baseline, last, growth }, usage, serverExit, passed: failures.length === 0, failures }
}
