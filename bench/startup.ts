/**
 * Startup: how long `node dist/cli.js serve` takes to print its address on an existing
 * data folder (the second start and every later one), next to PGlite's own cold start
 * on the same folder (a fresh Node process that imports PGlite, opens the folder and
 * answers `SELECT 1`) and an empty Node process, measured in turns in the same run
 * (the order of the two swapped every round). Each round gives a ratio of wall times
 * and, on Linux, of the processes' CPU time until ready (read from /proc as the ready
 * line arrives), which a busy machine disturbs far less. Needs `npm run build` first.
 *
 *   npx tsx bench/startup.ts '{"rounds":7}'
 *   node --cpu-prof --cpu-prof-dir=/tmp/prof dist/cli.js serve --data-dir … # where the rest goes
 */
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { runAsChild } from './child'
import { median } from './stats'

/** Settings passed as JSON in argv[2]. */
export interface StartupSettings {
  readonly rounds?: number
}

/** One round: `serve` and PGlite alone, one after the other. */
export interface StartupRound {
  readonly serveMs: number
  readonly pgliteMs: number
  /** serve / PGlite, wall time from spawn to ready. */
  readonly ratio: number
  /** CPU time (user + system) of each process until ready; absent off Linux. */
  readonly serveCpuMs?: number
  readonly pgliteCpuMs?: number
  readonly cpuRatio?: number
}

/** Medians over rounds, in ms from spawn to ready. */
export interface StartupReport {
  readonly rounds: number
  /** `serve` on a fresh data folder (creates it, migrates, seeds the demo): one run. */
  readonly firstServeMs: number
  readonly serveMs: number
  readonly pgliteMs: number
  readonly nodeMs: number
  /** Median of per-round serve / PGlite (wall time): the goal's figure. */
  readonly ratio: number
  /** Median of per-round serve / PGlite CPU time until ready; absent off Linux. */
  readonly cpuRatio?: number
  readonly serveCpuMs?: number
  readonly pgliteCpuMs?: number
  readonly perRound: readonly StartupRound[]
}

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const CLI = join(ROOT, 'dist', 'cli.js')

const TICKS_PER_SECOND = 100

/** User + system CPU ms of a live process, from /proc (Linux); undefined elsewhere. */
function cpuMsOf(pid: number | undefined): number | undefined {
  if (pid === undefined || process.platform !== 'linux') return undefined
  try {
    // Fields after the command name, which is in parentheses and may hold spaces.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND
  } catch {
    return undefined
  }
}

interface Timing {
  readonly ms: number
  readonly cpuMs?: number
}

/**
 * Spawns `node args…`, resolves with the ms (and CPU ms) until a stdout or stderr line
 * matches `ready`, then stops it.
 */
function timeUntil(args: readonly string[], ready: RegExp, env: NodeJS.ProcessEnv = {}): Promise<Timing> {
  return new Promise((resolve, reject) => {
    const started = performance.now()
    const child = spawn(process.execPath, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
    let output = ''
    let done = false
    const onData = (chunk: Buffer) => {
      output += chunk.toString()
      if (done || !ready.test(output)) return
      done = true
      const elapsed = performance.now() - started
      const cpuMs = cpuMsOf(child.pid)
      child.once('exit', () => resolve({ ms: elapsed, ...(cpuMs !== undefined && { cpuMs }) }))
      child.kill('SIGTERM')
    }
    child.stdout.on('data', onData)
    child.stderr.on('data', onData)
    child.once('exit', (code) => {
      if (!done) reject(new Error(`${args.join(' ')} exited with ${code} before it was ready:\n${output}`))
    })
  })
}

/** Runs the startup comparison. */
export async function runStartup(settings: StartupSettings = {}): Promise<StartupReport> {
  if (!existsSync(CLI)) throw new Error('dist/cli.js is missing: run npm run build first')
  const rounds = settings.rounds ?? 7
  const dir = mkdtempSync(join(tmpdir(), 'passcode-auth-startup-'))
  const dataDir = join(dir, 'data')
  const serveArgs = [CLI, 'serve', '--data-dir', dataDir, '--port', '0', '--host', '127.0.0.1', '--quiet']
  const env = { NODE_ENV: 'production' }
  const pgliteScript = `
    const { PGlite } = await import('@electric-sql/pglite')
    const db = await PGlite.create(${JSON.stringify(join(dataDir, 'pgdata'))})
    await db.query('SELECT 1')
    console.log('ready')
    process.on('SIGTERM', async () => { await db.close(); process.exit(0) })`
  try {
    const firstServeMs = (await timeUntil(serveArgs, /listening on/, env)).ms
    const databaseDir = join(dataDir, 'pgdata')
    if (!existsSync(databaseDir)) throw new Error(`the data folder has no database at ${databaseDir}`)
    const perRound: StartupRound[] = []
    const node: number[] = []
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 === 0 ? (['serve', 'pglite'] as const) : (['pglite', 'serve'] as const)
      const times: Partial<Record<'serve' | 'pglite', Timing>> = {}
      for (const which of order) {
        times[which] =
          which === 'serve'
            ? await timeUntil(serveArgs, /listening on/, env)
            : await timeUntil(['--input-type=module', '-e', pgliteScript], /ready/, env)
      }
      node.push((await timeUntil(['-e', 'console.log("ready"); setInterval(() => {}, 1000)'], /ready/)).ms)
      const serve = times.serve!
      const pglite = times.pglite!
      const cpu =
        serve.cpuMs !== undefined && pglite.cpuMs !== undefined && pglite.cpuMs > 0
          ? { serveCpuMs: serve.cpuMs, pgliteCpuMs: pglite.cpuMs, cpuRatio: serve.cpuMs / pglite.cpuMs }
          : {}
      perRound.push({ serveMs: serve.ms, pgliteMs: pglite.ms, ratio: serve.ms / pglite.ms, ...cpu })
    }
    const cpuRounds = perRound.filter((r) => r.cpuRatio !== undefined)
    const cpu =
      cpuRounds.length === perRound.length
        ? {
            cpuRatio: median(cpuRounds.map((r) => r.cpuRatio!)),
            serveCpuMs: median(cpuRounds.map((r) => r.serveCpuMs!)),
            pgliteCpuMs: median(cpuRounds.map((r) => r.pgliteCpuMs!)),
          }
        : {}
    return {
      rounds,
      firstServeMs,
      serveMs: median(perRound.map((r) => r.serveMs)),
      pgliteMs: median(perRound.map((r) => r.pgliteMs)),
      nodeMs: median(node),
      ratio: median(perRound.map((r) => r.ratio)),
      ...cpu,
      perRound,
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

runAsChild(() => runStartup(JSON.parse(process.argv[2] ?? '{}') as StartupSettings))
