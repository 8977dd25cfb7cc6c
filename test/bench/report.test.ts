import { describe, expect, it } from 'vitest'
import { checkGoals, renderMarkdown, RESULTS_END, RESULTS_START, spliceResults, type BenchResults } from '../../bench/report'
import { median, percentile } from '../../bench/stats'

// The benchmark's report, on made-up figures: structure only, never speed.
const results: BenchResults = {
  command: 'npm run bench',
  date: '2026-01-01T00:00:00Z',
  quick: false,
  machine: [['CPU', '2 × test']],
  versions: [['Node.js', 'v20']],
  skipped: [],
  settings: '{}',
  http: [
    {
      framework: 'fastify',
      version: '5.0.0',
      variants: [
        {
          variant: 'bare',
          requestsPerSecond: 50_000,
          p99Ms: 3,
          requestsPerCpuSecond: 52_000,
          runs: [{ requestsPerSecond: 50_000, p99Ms: 3, requestsPerCpuSecond: 52_000 }],
        },
        {
          variant: 'auth',
          requestsPerSecond: 47_000,
          p99Ms: 3,
          requestsPerCpuSecond: 49_000,
          runs: [{ requestsPerSecond: 47_000, p99Ms: 3, requestsPerCpuSecond: 49_000 }],
        },
        {
          variant: 'better-auth',
          requestsPerSecond: 3_000,
          p99Ms: 30,
          requestsPerCpuSecond: 3_100,
          runs: [{ requestsPerSecond: 3_000, p99Ms: 30, requestsPerCpuSecond: 3_100 }],
        },
      ],
      ratios: { auth: 0.94, 'better-auth': 0.06 },
      cpuRatios: { auth: 0.942, 'better-auth': 0.06 },
      authOverPeer: 15.7,
      authOverPeerCpu: 14.9,
    },
    {
      framework: 'express',
      version: '5.0.0',
      variants: [{ variant: 'bare', requestsPerSecond: 9_000, p99Ms: 9, requestsPerCpuSecond: 9_500, runs: [] }],
      ratios: { auth: 0.9 },
      cpuRatios: { auth: 0.96 },
    },
  ],
  hookCost: [
    { framework: 'fastify', hookNs: 155, noopNs: 5, extraNs: 150 },
    { framework: 'koa', hookNs: 205, noopNs: 5, extraNs: 200 },
  ],
  inProcess: {
    postgres: false,
    scenarios: [
      { name: 'cache hit', callsPerSecond: 1_000_000, p50Us: 1, p99Us: 2 },
      { name: 'cache miss, PGlite', callsPerSecond: 4_000, p50Us: 200, p99Us: 400 },
      { name: 'cache miss, memory', callsPerSecond: 40_000, p50Us: 20, p99Us: 40 },
      { name: 'cache miss, memory, wrong passcode', callsPerSecond: 40_000, p50Us: 21, p99Us: 40 },
    ],
    timing: [{ store: 'memory', right: { p50Us: 20, p99Us: 40 }, wrongPasscode: { p50Us: 21, p99Us: 41 }, wrongAccount: { p50Us: 20, p99Us: 39 } }],
  },
  cacheMemory: { entries: 100_000, bytesPerEntry: 270, heapDeltaBytes: 27_000_000, sizeAfterOverflow: 100_000 },
  usageCost: {
    recorderNs: 9.4,
    frameworks: [{ framework: 'fastify', withUsageNs: 160, withoutUsageNs: 150, usageNs: 10 }],
  },
}

describe('the benchmark report', () => {
  it('checks each goal against its target, and leaves unmeasured goals open', () => {
    const goals = Object.fromEntries(checkGoals(results).map((goal) => [goal.goal.split(':')[0]!.split(' ')[0]! + goal.target, goal.met]))
    expect(goals['fastify≥ 0.90']).toBe(true)
    expect(goals['express≥ 0.95']).toBe(false)
    expect(goals['koa≥ 0.90']).toBeUndefined()
    expect(checkGoals(results).find((goal) => goal.target === '≥ 15×')?.met).toBe(true)
    expect(checkGoals(results).find((goal) => goal.target === '≥ 5k auth/s')?.met).toBe(false)
    expect(checkGoals(results).find((goal) => goal.target === '≤ 1.5×')?.met).toBeUndefined()
    expect(checkGoals(results).find((goal) => goal.target.startsWith('≤ 300'))?.met).toBe(true)
    expect(checkGoals(results).find((goal) => goal.target === '≤ 25 ns')?.met).toBe(true)
    expect(checkGoals({ ...results, usageCost: { recorderNs: 31, frameworks: [] } }).find((goal) => goal.target === '≤ 25 ns')?.met).toBe(false)
    // Usage over time: the recorder's call set against fastify's warm path from its own cost (19.4 µs here).
    const usageGoal = (recorderNs: number) =>
      checkGoals({ ...results, usageCost: { recorderNs, countingNs: 1, frameworks: [] } }).find((goal) => goal.goal.startsWith('usage counting'))
    expect(usageGoal(9.4)).toMatchObject({ target: '≥ 0.99', met: true })
    expect(usageGoal(500)?.met).toBe(false)
    expect(checkGoals({ ...results, http: undefined }).find((goal) => goal.goal.startsWith('usage counting'))).toMatchObject({
      measured: 'not run',
      met: undefined,
    })
  })

  it('renders the goals and every measured section as Markdown tables', () => {
    const markdown = renderMarkdown(results)
    expect(markdown).toContain('Run `npm run bench` on 2026-01-01T00:00:00Z')
    expect(markdown).toContain('### Goals')
    expect(markdown).toContain('| fastify: requirePasscode (warm cache) / bare route | ≥ 0.90 | 0.940 | met | 0.942 | met |')
    expect(markdown).toContain('| fastify: requirePasscode / better-auth API-key plugin | ≥ 15× | 15.7× | met | 14.9× | **missed** |')
    expect(markdown).toContain('**missed**')
    // From the hook's own cost: 52 000 req per CPU-s is 19 231 ns a request; + 150 ns → 0.992; over a peer at 0.06 of bare → 16.5×.
    expect(markdown).toContain('| fastify: requirePasscode (warm cache) / bare route | ≥ 0.90 | 0.940 | met | 0.942 | met | 0.992 | met |')
    expect(markdown).toContain('| fastify: requirePasscode / better-auth API-key plugin | ≥ 15× | 15.7× | met | 14.9× | **missed** | 16.5× | met |')
    expect(markdown).toContain('| fastify | 155 ns | 5 ns | 150 ns | 19 µs | 0.78 % |')
    expect(markdown).toContain('| fastify | 160 ns | 150 ns | 10 ns |')
    expect(markdown).toContain('| koa | 205 ns | 5 ns | 200 ns | not run |  |')
    expect(markdown).toContain('### HTTP: fastify 5.0.0')
    expect(markdown).toContain('passcode-auth / better-auth on the same route: **15.7×** in req/s, **14.9×** in requests per server CPU-second.')
    expect(markdown).toContain('The bare route itself is 16.7× and 16.7× the peer')
    expect(markdown).toContain('| memory | 20 µs / 40 µs | 21 µs / 41 µs | 20 µs / 39 µs | 1.05× | 1.00× |')
    expect(markdown).toContain('**270 bytes/entry**')
    expect(markdown).not.toContain('### Scale')
  })

  it('checks and renders the connect section run alone, and the cold path with its per-round ratios', () => {
    const connect = {
      framework: 'koa' as const,
      version: '3.0.0',
      variants: [
        { variant: 'connect' as const, requestsPerSecond: 20_000, p99Ms: 4, requestsPerCpuSecond: 21_000, runs: [] },
        { variant: 'connect-pglite' as const, requestsPerSecond: 19_000, p99Ms: 4, requestsPerCpuSecond: 20_500, runs: [] },
      ],
      ratios: {},
      cpuRatios: {},
      connectPgliteOverStatic: 0.95,
      connectPgliteOverStaticCpu: 0.976,
      connectPgliteRoundRatios: [0.9, 0.95, 1.01],
    }
    const coldPath = {
      passcodes: 100,
      poolSize: 10,
      stores: [
        {
          store: 'postgres' as const,
          scenarios: [],
          ratios: [
            { concurrency: 16, against: "the store's lookup SQL, prepared", goal: true, ratio: 0.82, rounds: [0.8, 0.82, 0.9] },
            { concurrency: 16, against: 'one-column prepared indexed read', goal: false, ratio: 0.4 },
            { concurrency: 16, against: 'store lookup alone', goal: false, ratio: 0.7 },
          ],
        },
      ],
    }
    const alone = { ...results, http: undefined, connect: [connect], coldPath }
    const goal = checkGoals(alone).find((g) => g.goal.startsWith('koa: GET /v1/connect on PGlite'))
    expect(goal).toMatchObject({ measured: '0.950', met: true })
    const cold = checkGoals(alone).find((g) => g.goal.includes('PostgreSQL (pg.Pool of 10), 16 in flight'))
    // Each read named for what it is: the goal's read in the goal, the others beside it.
    expect(cold?.goal).toContain("cache-miss authenticate() / the store's lookup SQL, prepared, on PostgreSQL")
    expect(cold).toMatchObject({
      measured: '0.82 (rounds 0.80 0.82 0.90); 0.40 of one-column prepared indexed read, 0.70 of store lookup alone',
      met: true,
    })
    const markdown = renderMarkdown(alone)
    expect(markdown).toContain('### HTTP: connect on PGlite next to connect with a static whitelist')
    expect(markdown).toContain('| koa 3.0.0 | 20.0k | 19.0k | 0.95× | 0.98× | 0.90 0.95 1.01 |')
  })

  it('replaces only the generated part of docs/benchmarks.md', () => {
    const document = `# Benchmarks\n\nHand-written method.\n\n${RESULTS_START}\nold\n${RESULTS_END}\n\n## Analysis\n`
    const updated = spliceResults(document, 'new')
    expect(updated).toContain('Hand-written method.')
    expect(updated).toContain('## Analysis')
    expect(updated).toContain('new')
    expect(updated).not.toContain('old')
    expect(spliceResults('# Benchmarks\n', 'first')).toContain(`## Results\n\n${RESULTS_START}\n\nfirst\n${RESULTS_END}`)
  })

  it('computes medians and nearest-rank percentiles', () => {
    expect(median([3, 1, 2])).toBe(2)
    expect(median([4, 1, 2, 3])).toBe(2.5)
    expect(percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 50)).toBe(5)
    expect(percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 99)).toBe(10)
  })
})
