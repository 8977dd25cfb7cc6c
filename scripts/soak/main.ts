import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { arch, cpus, loadavg, platform } from 'node:os'
import { parseArgs } from 'node:util'
import {
  DELIVERY_FAULT_KINDS,
  FAULT_KINDS,
  fleetSoakOptions,
  InstanceRefusedError,
  POOL_SETTINGS,
  runFleetSoak,
  type FaultKind,
  type FleetSoakResult,
  type PoolSettings,
} from './fleet'
import { fleetMarkdown, fleetRefusalMarkdown, mergeReport } from './fleet-report'
import { MAX_GROWTH, runSoak, SHORT, soakOptions, USAGE_FLUSH_INTERVAL_MS, type SoakResult } from './soak'
import { MIX } from './traffic'

/*
 * `npm run soak [-- --duration=<seconds>] [--concurrency=<n>] [--short] [--report=<file>]`
 * (or SOAK_DURATION_S=<seconds>): a bounded load run against `passcode-auth serve` on
 * loopback. Prints a Markdown summary; `--report` also writes it to a file
 * (docs/soak.md keeps the last published run). Exits 1 when the run failed.
 *
 * `npm run soak -- --fleet [--duration=<seconds>] [--pool=documented|pg-defaults]
 * [--seed=<n>] [--faults=<kind>,…] [--cut=<min>-<max>] [--report=<file>]`: the chaos soak
 * of a fleet (scripts/soak/fleet.ts), ten minutes by default; exits 1 when a count is not
 * 0. `--pool=pg-defaults` gives the instances a `pg` Pool as pg's README makes it (no
 * connection timeout); `postgresStore` refuses it, and the run reports the refusal (exit
 * 0: nothing ran, nothing broke). `--seed` repeats the faults' draws; `--faults` runs
 * these first, in order (then draws); `--cut` sets how long a silent cut or a hung
 * balancer lasts, in seconds (default 3-15); `--credits` the metered passcode's credits
 * (default 3 per second of the run, at least 30). `--delivery` adds the chaos mode for delivery
 * (scripts/soak/fleet-delivery.ts): webhooks to receivers that fail, expiry and leak
 * emails through an SMTP server that goes down, and the faults `kill-delivering` and
 * `smtp-down`; it exits 1 when an event or email is lost or doubled, or an audit record lost.
 */

const { values } = parseArgs({
  options: {
    duration: { type: 'string' },
    concurrency: { type: 'string' },
    short: { type: 'boolean', default: false },
    report: { type: 'string' },
    fleet: { type: 'boolean', default: false },
    pool: { type: 'string', default: 'documented' },
    seed: { type: 'string' },
    faults: { type: 'string' },
    cut: { type: 'string' },
    delivery: { type: 'boolean', default: false },
    credits: { type: 'string' },
  },
})

const seconds = Number(values.duration ?? process.env.SOAK_DURATION_S ?? (values.fleet ? 600 : 60))
const concurrency = Number(values.concurrency ?? 16)
const pool = values.pool as PoolSettings
const seed = values.seed === undefined ? undefined : Number(values.seed)
const faults = values.faults === undefined ? undefined : (values.faults.split(',') as FaultKind[])
const cut = values.cut === undefined ? undefined : values.cut.split('-').map((part) => Number(part) * 1_000)
const credits = values.credits === undefined ? undefined : Number(values.credits)
if (
  !(seconds > 0) ||
  !Number.isInteger(concurrency) ||
  concurrency < 1 ||
  !POOL_SETTINGS.includes(pool) ||
  (seed !== undefined && !Number.isSafeInteger(seed)) ||
  (credits !== undefined && !(Number.isSafeInteger(credits) && credits > 0)) ||
  (faults !== undefined && !faults.every((kind) => [...FAULT_KINDS, ...(values.delivery ? DELIVERY_FAULT_KINDS : [])].includes(kind))) ||
  (cut !== undefined && (cut.length !== 2 || !(cut[0]! > 0) || !(cut[1]! >= cut[0]!)))
) {
  console.error(
    'usage: npm run soak -- [--fleet [--delivery] [--pool=documented|pg-defaults] [--seed=<n>] [--faults=<kind>,…] [--cut=<min>-<max>] [--credits=<n>]] [--duration=<seconds>] [--concurrency=<n>] [--short] [--report=<file>]',
  )
  console.error(`fault kinds: ${FAULT_KINDS.join(', ')}; with --delivery also ${DELIVERY_FAULT_KINDS.join(', ')}`)
  process.exit(2)
}
/** The report file's text: each run rewrites its own section of it (docs/soak.md holds both). */
function existingReport(file: string): string {
  return existsSync(file) ? readFileSync(file, 'utf8') : ''
}

if (values.fleet) {
  const loadAtStart = loadavg()[0]!
  const command = `npm run soak -- ${process.argv.slice(2).join(' ')}`
  let result: FleetSoakResult
  try {
    result = await runFleetSoak(
      {
        ...fleetSoakOptions(seconds * 1_000),
        pool,
        seed,
        delivery: values.delivery,
        ...(faults === undefined ? {} : { faults }),
        ...(cut === undefined ? {} : { cutMs: [cut[0]!, cut[1]!] as const }),
        ...(credits === undefined ? {} : { credits }),
      },
      (line) => console.error(line),
    )
  } catch (error) {
    if (!(error instanceof InstanceRefusedError)) throw error
    const text = fleetRefusalMarkdown(error, { command, pool })
    console.log(text)
    if (values.report !== undefined) writeFileSync(values.report, mergeReport(existingReport(values.report), { fleet: text }))
    process.exit(0)
  }
  const text = fleetMarkdown(result, { command, loadAtStart, loadAtEnd: loadavg()[0]! })
  console.log(text)
  if (values.report !== undefined) writeFileSync(values.report, mergeReport(existingReport(values.report), { fleet: text }))
  process.exit(result.passed ? 0 : 1)
}
const options = values.short ? SHORT : soakOptions(seconds * 1_000, concurrency)
const args = process.argv.slice(2)
const command = `npm run soak${args.length > 0 ? ` -- ${args.join(' ')}` : ''}`
const MIX_TEXT = Object.entries(MIX)
  .map(([kind, weight]) => `${kind} ${weight}`)
  .join(', ')

const mib = (bytes: number) => (bytes / 2 ** 20).toFixed(2)

function markdown(result: SoakResult): string {
  const { traffic, heap, options: used } = result
  const rps = Math.round(traffic.requests / (result.elapsedMs / 1_000))
  const lines = [
    '# Soak run',
    '',
    `Command: \`${command}\`${values.duration === undefined && process.env.SOAK_DURATION_S ? ` (SOAK_DURATION_S=${process.env.SOAK_DURATION_S})` : ''}  `,
    `Date: ${new Date().toISOString()}  `,
    `Machine: ${cpus().length} × ${cpus()[0]?.model.trim() ?? 'CPU'}, ${platform()} ${arch()}, Node ${process.version};  `,
    `load average ${loadAtStart.toFixed(1)} at the start and ${loadavg()[0]!.toFixed(1)} at the end (1 min; other work shares the machine)`,
    '',
    `Verdict: **${result.passed ? 'passed' : 'FAILED'}**${result.failures.length > 0 ? ` (${result.failures.join('; ')})` : ''}`,
    '',
    'The reference server (`passcode-auth serve`, node:http through the library’s http/ layer, its limiter at 10 000 failures a second, PGlite data folder) runs in a child',
    'process on 127.0.0.1 with `--expose-gc`; the runner sends the request mix below from keep-alive',
    'connections and checks every answer, status and body, against the one expected for its kind. Every',
    `${used.sampleEveryMs / 1_000} s the server forces a full GC and reports the heap in use (over IPC, no HTTP route).`,
    `The heap must stay within ${MAX_GROWTH * 100} % of the baseline sample, taken after warm-up at ${used.baselineAtMs / 1_000} s`,
    '(a third of the run, at most the first minute).',
    '',
    `- Duration ${(result.elapsedMs / 1_000).toFixed(1)} s, ${used.concurrency} connections, ${traffic.requests} requests (${rps}/s)`,
    `- Latency p50 ${traffic.latencyMs.p50} ms, p99 ${traffic.latencyMs.p99} ms, max ${traffic.latencyMs.max} ms`,
    `- Unexpected answers: ${traffic.unexpected}`,
    `- Usage writes (SPEC §5.27, counted by triggers in the database): ${result.usage.writes} rows in ${result.usage.flushes} flushes for ${result.usage.passcodes} passcodes, at most ${result.usage.maxPerPasscode} per passcode (limit ${result.usage.limitPerPasscode}: one per started ${USAGE_FLUSH_INTERVAL_MS / 1_000} s interval, plus the flush at shutdown)`,
    `- Heap after GC: baseline ${mib(heap.baseline.heapUsed)} MiB at ${(heap.baseline.atMs / 1_000).toFixed(1)} s, last ${mib(heap.last.heapUsed)} MiB at ${(heap.last.atMs / 1_000).toFixed(1)} s: ${heap.growth >= 0 ? '+' : ''}${(heap.growth * 100).toFixed(1)} %`,
    '',
    '## Answers (kind of request → status; the body was the expected one unless marked)',
    '',
    '| Request | Answer | Count |',
    '| --- | --- | ---: |',
    ...Object.entries(traffic.answers)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([key, count]) => {
        const [kind, answer] = key.split(' → ')
        return `| ${kind} | ${answer?.replaceAll('|', '\\|')} | ${count} |`
      }),
    '',
    `Mix per 100 requests: ${MIX_TEXT}.`,
    '',
    '## Heap samples (after a forced full GC)',
    '',
    '| At | heapUsed | rss |',
    '| ---: | ---: | ---: |',
    ...heap.samples.map((sample) => `| ${(sample.atMs / 1_000).toFixed(1)} s | ${mib(sample.heapUsed)} MiB | ${mib(sample.rss)} MiB |`),
    '',
  ]
  return lines.join('\n')
}

const loadAtStart = loadavg()[0]!
const result = await runSoak(options, (line) => console.error(line))
const text = markdown(result)
console.log(text)
if (values.report !== undefined) writeFileSync(values.report, mergeReport(existingReport(values.report), { single: text }))
process.exitCode = result.passed ? 0 : 1
