/**
 * `npm run bench`: every benchmark of issue 8 in one process tree, then the report,
 * printed and written to docs/benchmarks.md (a full run only).
 *
 *   npm run bench                 # full run, about 14 minutes on 2 cores
 *   npm run bench -- --quick      # smoke run, about 3 minutes; writes nothing
 *   npm run bench -- --only=http,in-process,cold-path,refusals,scale,memory --frameworks=fastify,koa --write
 *   npm run bench -- --only=hook-cost   # requirePasscode's own cost, with and without telemetry (a minute)
 *   npm run bench -- --only=http,hook-cost --frameworks=fastify   # …and the ratios to the bare route (restricted, limited passcodes)
 *   npm run bench -- --only=limit-statements   # store statements per 1 000 requests of a limited passcode on PostgreSQL (half a minute)
 *   npm run bench -- --only=connect     # GET /v1/connect on PGlite's stored whitelist next to a static one, per framework (3 minutes)
 *   npm run bench -- --only=cold-path --pgbouncer   # the cache miss also through PgBouncer in transaction mode (pgbouncer installed)
 *   npm run bench -- --only=cold-path --pgbouncer --pin   # …and again with PostgreSQL and PgBouncer on core 0, the bench on core 1 (taskset)
 *
 * Servers, the in-process loops and the memory probe each run in a child process of
 * their own; autocannon runs here, so load generator and server never share an event
 * loop. PostgreSQL parts use DATABASE_URL or a temporary cluster, and are skipped
 * with a line saying why when neither is there.
 */
import { execFileSync, spawnSync } from 'node:child_process'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import { fileURLToPath } from 'node:url'
import { runChild } from './child'

const BENCH_DIR = fileURLToPath(new URL('.', import.meta.url))
const ROOT = fileURLToPath(new URL('..', import.meta.url))
const SECTIONS = [
  'http',
  'connect',
  'hook-cost',
  'in-process',
  'cold-path',
  'refusals',
  'scale',
  'memory',
  'startup',
  'fleet',
  'limit-statements',
] as const
type Section = (typeof SECTIONS)[number]

interface Options {
  readonly quick: boolean
  readonly write: boolean
  readonly sections: readonly Section[]
  readonly frameworks: readonly ('fastify' | 'express' | 'koa')[]
  /** The cold path also through PgBouncer in transaction mode. */
  readonly pgbouncer: boolean
  /** With `pgbouncer`: that part again with the database side and the bench pinned to cores of their own. */
  readonly pin: boolean
}

function parseOptions(argv: readonly string[]): Options {
  const value = (name: string) => argv.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3)
  const quick = argv.includes('--quick')
  const sections = (value('only')?.split(',') ?? SECTIONS) as Section[]
  const frameworks = (value('frameworks')?.split(',') ?? ['fastify', 'express', 'koa']) as Options['frameworks']
  for (const section of sections) if (!SECTIONS.includes(section)) throw new Error(`unknown section ${section}; known: ${SECTIONS.join(', ')}`)
  for (const argument of argv) {
    if (!/^--(quick|write|pgbouncer|pin|only=.+|frameworks=.+)$/.test(argument)) throw new Error(`unknown argument ${argument}`)
  }
  const pgbouncer = argv.includes('--pgbouncer')
  const pin = argv.includes('--pin')
  if (pin && !pgbouncer) throw new Error('--pin pins the cold path through PgBouncer: pass --pgbouncer too')
  return { quick, write: argv.includes('--write') || (!quick && sections.length === SECTIONS.length), sections, frameworks, pgbouncer, pin }
}

/** Installs bench/package.json's dependencies (autocannon and the peers) when missing. */
function ensureBenchDependencies(): void {
  const needed = ['autocannon', 'better-auth', '@better-auth/api-key']
  if (needed.every((name) => existsSync(`${BENCH_DIR}node_modules/${name}/package.json`))) return
  console.log('Installing the benchmark dependencies: npm --prefix bench ci')
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm'
  const result = spawnSync(npm, ['--prefix', BENCH_DIR, existsSync(`${BENCH_DIR}package-lock.json`) ? 'ci' : 'install', '--no-audit', '--no-fund'], {
    stdio: 'inherit',
  })
  if (result.status !== 0) throw new Error('npm --prefix bench install failed')
}

const packageVersion = (path: string): string => {
  try {
    return (JSON.parse(readFileSync(path, 'utf8')) as { version: string }).version
  } catch {
    return 'not installed'
  }
}

function gitRevision(): string {
  try {
    const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim()
    const dirty = execFileSync('git', ['status', '--porcelain', '--', 'src'], { cwd: ROOT, encoding: 'utf8' }).trim() !== ''
    return dirty ? `${commit} + uncommitted changes in src/` : commit
  } catch {
    return 'unknown'
  }
}

const load = () =>
  os
    .loadavg()
    .map((value) => value.toFixed(2))
    .join(' / ')

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2))
  ensureBenchDependencies()
  // After the install: these modules load autocannon and better-auth lazily.
  const { benchmarkFramework } = await import('./http-throughput')
  const { checkGoals, renderMarkdown, spliceResults } = await import('./report')
  const { postgresAvailability, startTestPostgres } = await import('../test/helpers/postgres')
  const { pgbouncerAvailability } = await import('../test/helpers/pgbouncer')
  const started = Date.now()
  const loadBefore = load()
  const log = (line: string) => console.log(line)
  const skipped: string[] = []
  const results: Record<string, unknown> = {}

  const wantsPostgres = ['scale', 'in-process', 'cold-path', 'fleet', 'limit-statements'].some((section) =>
    options.sections.includes(section as Section),
  )
  const availability = postgresAvailability()
  let postgres: Awaited<ReturnType<typeof startTestPostgres>> | undefined
  if (wantsPostgres && !availability.available) {
    skipped.push(`PostgreSQL parts (cache miss on PostgreSQL, the 1k/1M scale test): ${availability.reason}`)
    console.log(`PostgreSQL parts skipped: ${availability.reason}`)
  } else if (wantsPostgres) {
    postgres = await startTestPostgres()
  }

  const coldPathStores = (): string[] => {
    if (postgres === undefined) return ['pglite']
    if (!options.pgbouncer) return ['postgres', 'pglite']
    const bouncer = pgbouncerAvailability()
    if (bouncer.available) return ['postgres', 'pgbouncer', 'pglite']
    skipped.push(`the cache miss through PgBouncer: ${bouncer.reason}`)
    return ['postgres', 'pglite']
  }

  const settings = options.quick
    ? {
        http: { rounds: 2, seconds: 1, warmupSeconds: 1, connections: 50 },
        inProcess: { rounds: 2, sliceMs: 150, timingCalls: 300 },
        coldPath: { rounds: 2, sliceMs: 200 },
        refusals: { rounds: 2, sliceMs: 150, flood: 100_000 },
        startup: { rounds: 2 },
        fleet: { instances: 3, passcodes: 300, ratePerInstance: 60, seconds: 8, ttlMs: 4_000, revocations: 3 },
        scale: { sizes: [1_000, 20_000], rounds: 2, calls: 300 },
        limitStatements: { rate: 1_000, requests: 5_000, warmUp: 1_000 },
      }
    : {
        http: { rounds: 10, seconds: 2, warmupSeconds: 2, connections: 50 },
        inProcess: { rounds: 6, sliceMs: 500, timingCalls: 3_000 },
        coldPath: { rounds: 6, sliceMs: 500 },
        refusals: { rounds: 6, sliceMs: 300, flood: 1_000_000 },
        startup: { rounds: 7 },
        fleet: { instances: 8, passcodes: 1_000, ratePerInstance: 150, seconds: 40, ttlMs: 10_000, revocations: 10 },
        scale: { sizes: [1_000, 1_000_000], rounds: 6, calls: 3_000 },
        limitStatements: { rate: 1_000, requests: 20_000, warmUp: 2_000 },
      }

  try {
    if (options.sections.includes('http')) {
      const http = []
      for (const framework of options.frameworks) {
        log(
          `HTTP: ${framework} (${settings.http.rounds} interleaved rounds of ${settings.http.seconds} s per variant, ${settings.http.connections} connections)`,
        )
        http.push(await benchmarkFramework(framework, settings.http, log))
      }
      results.http = http
    }
    if (options.sections.includes('connect') && !options.sections.includes('http')) {
      // The connect pair alone (the http section runs it among its other pairs).
      const connect = []
      for (const framework of options.frameworks) {
        log(
          `HTTP: ${framework}, connect on PGlite next to connect with a static whitelist (${settings.http.rounds} paired rounds of ${settings.http.seconds} s per side)`,
        )
        connect.push(await benchmarkFramework(framework, settings.http, log, ['connect', 'connect-pglite']))
      }
      results.connect = connect
    }
    if (options.sections.includes('http') || options.sections.includes('hook-cost')) {
      log("requirePasscode's own cost next to a no-op hook, in process, with and without telemetry")
      results.hookCost = await runChild('hook-cost.ts')
      log("HTTP: last-use recording's cost on the warm path, in process")
      results.usageCost = await runChild('usage-cost.ts')
    }
    if (options.sections.includes('in-process')) {
      log(`In process: authenticate() (${settings.inProcess.rounds} interleaved rounds of ${settings.inProcess.sliceMs} ms per scenario)`)
      results.inProcess = await runChild('in-process.ts', {
        args: [JSON.stringify({ ...settings.inProcess, connectionString: postgres?.connectionString })],
      })
    }
    if (options.sections.includes('cold-path')) {
      log(
        `Cold path: cache-miss authenticate() next to the bare lookup read (${settings.coldPath.rounds} interleaved rounds of ${settings.coldPath.sliceMs} ms per scenario)`,
      )
      results.coldPath = await runChild('cold-path.ts', {
        args: [
          JSON.stringify({
            ...settings.coldPath,
            stores: coldPathStores(),
            connectionString: postgres?.connectionString,
            ...(options.pin ? { pin: true } : {}),
          }),
        ],
      })
    }
    if (options.sections.includes('refusals')) {
      log(`Refusals: repeated known-bad credentials, ${settings.refusals.flood.toLocaleString('en')} distinct values, a cold burst`)
      results.refusals = await runChild('refusals.ts', { args: [JSON.stringify(settings.refusals)], nodeFlags: ['--expose-gc'] })
    }
    if (options.sections.includes('scale') && postgres !== undefined) {
      log(`Scale: ${settings.scale.sizes.map((size) => size.toLocaleString('en')).join(' vs ')} passcodes in PostgreSQL (seeding takes a while)`)
      results.scale = await runChild('postgres-lookup.ts', {
        args: [JSON.stringify({ ...settings.scale, connectionString: postgres.connectionString })],
      })
    }
    if (options.sections.includes('startup')) {
      log('Startup: building dist/ (npm run build), then serve on an existing data folder next to PGlite alone')
      const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm'
      const build = spawnSync(npm, ['run', 'build'], { cwd: ROOT, stdio: 'ignore' })
      if (build.status !== 0) throw new Error('npm run build failed')
      results.startup = await runChild('startup.ts', { args: [JSON.stringify(settings.startup)] })
    }
    if (options.sections.includes('fleet') && postgres !== undefined) {
      const { instances, seconds } = settings.fleet
      log(`Fleet: ${instances} instance processes on one PostgreSQL, ${seconds} s of load, then revocations`)
      results.fleet = await runChild('fleet.ts', { args: [JSON.stringify({ ...settings.fleet, connectionString: postgres.connectionString })] })
    }
    if (options.sections.includes('limit-statements') && postgres !== undefined) {
      const { rate, requests } = settings.limitStatements
      log(
        `Limits: store statements of one passcode with a rate limit and credits, ${requests.toLocaleString('en')} requests at ${rate}/s on PostgreSQL`,
      )
      results.limitStatements = await runChild('limit-statements.ts', {
        args: [JSON.stringify({ ...settings.limitStatements, connectionString: postgres.connectionString })],
      })
    }
    if (options.sections.includes('memory')) {
      log('Verification cache memory at 100,000 entries')
      results.cacheMemory = await runChild('cache-memory.ts', { nodeFlags: ['--expose-gc'] })
    }
  } finally {
    await postgres?.stop()
  }

  const cpus = os.cpus()
  const benchResults = {
    command: `npm run bench${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}`,
    date: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
    quick: options.quick,
    machine: [
      ['CPU', `${cpus.length} × ${cpus[0]?.model ?? 'unknown'}`],
      ['memory', `${(os.totalmem() / 2 ** 30).toFixed(0)} GiB`],
      ['OS', `${os.type()} ${os.release()} (${os.arch()})`],
      ['load average (1/5/15 min) before, after', `${loadBefore}; ${load()}`],
      ['duration', `${((Date.now() - started) / 60_000).toFixed(1)} min`],
    ],
    versions: [
      ['passcode-auth', `${packageVersion(`${ROOT}package.json`)} (${gitRevision()})`],
      ['Node.js', process.version],
      [
        'fastify / express / koa',
        ['fastify', 'express', 'koa'].map((name) => packageVersion(`${ROOT}node_modules/${name}/package.json`)).join(' / '),
      ],
      ['@electric-sql/pglite', packageVersion(`${ROOT}node_modules/@electric-sql/pglite/package.json`)],
      ['autocannon', packageVersion(`${BENCH_DIR}node_modules/autocannon/package.json`)],
      [
        'better-auth / @better-auth/api-key',
        ['better-auth', '@better-auth/api-key'].map((name) => packageVersion(`${BENCH_DIR}node_modules/${name}/package.json`)).join(' / '),
      ],
    ],
    skipped,
    settings: JSON.stringify(settings),
    ...results,
  } as Parameters<typeof renderMarkdown>[0]

  const markdown = renderMarkdown(benchResults)
  console.log(`\n${markdown}`)
  const missed = checkGoals(benchResults).filter((goal) => goal.met === false)
  console.log(missed.length === 0 ? '\nEvery goal measured in this run is met.' : `\nGoals missed: ${missed.map((goal) => goal.goal).join('; ')}`)
  if (options.write) {
    const path = `${ROOT}docs/benchmarks.md`
    const document = existsSync(path) ? readFileSync(path, 'utf8') : '# Benchmarks\n'
    writeFileSync(path, spliceResults(document, markdown))
    console.log(`Written to docs/benchmarks.md`)
  }
}

main().catch((error: unknown) => {
  console.error(error)
  process.exitCode = 1
})
