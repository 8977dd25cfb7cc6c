/**
 * Startup: how long `node dist/cli.js serve` takes to print its address on an existing
 * data folder, next to PGlite's own cold start on the same folder (a fresh Node
 * process that imports PGlite, opens the folder and answers `SELECT 1`) and an empty
 * Node process, measured in turns in the same run. Needs `npm run build` first.
 *
 *   npx tsx bench/startup.ts '{"rounds":5}'
 *   node --cpu-prof --cpu-prof-dir=/tmp/prof dist/cli.js serve --data-dir … # where the rest goes
 */
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { runAsChild } from './child'
import { median } from './stats'

/** Settings passed as JSON in argv[2]. */
export interface StartupSettings {
  readonly rounds?: number
}

/** Medians over rounds, in ms from spawn to ready. */
export interface StartupReport {
  readonly rounds: number
  /** `serve` on a fresh data folder (creates it, migrates, seeds the demo): one run. */
  readonly firstServeMs: number
  readonly serveMs: number
  readonly pgliteMs: number
  readonly nodeMs: number
  /** Median of per-round serve / PGlite. */
  readonly ratio: number
}

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const CLI = join(ROOT, 'dist', 'cli.js')

/** Spawns `node args…`, resolves with the ms until a stdout or stderr line matches `ready`, then stops it. */
function timeUntil(args: readonly string[], ready: RegExp, env: NodeJS.ProcessEnv = {}): Promise<number> {
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
      child.once('exit', () => resolve(elapsed))
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
  const rounds = settings.rounds ?? 5
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
    const firstServeMs = await timeUntil(serveArgs, /listening on/, env)
    const databaseDir = join(dataDir, 'pgdata')
    if (!existsSync(databaseDir)) throw new Error(`the data folder has no database at ${databaseDir}`)
    const serve: number[] = []
    const pglite: number[] = []
    const node: number[] = []
    const ratios: number[] = []
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 === 0 ? (['serve', 'pglite'] as const) : (['pglite', 'serve'] as const)
      const times: Record<string, number> = {}
      for (const which of order) {
        times[which] =
          which === 'serve'
            ? await timeUntil(serveArgs, /listening on/, env)
            : await timeUntil(['--input-type=module', '-e', pgliteScript], /ready/, env)
      }
      node.push(await timeUntil(['-e', 'console.log("ready"); setInterval(() => {}, 1000)'], /ready/))
      serve.push(times.serve!)
      pglite.push(times.pglite!)
      ratios.push(times.serve! / times.pglite!)
    }
    return { rounds, firstServeMs, serveMs: median(serve), pgliteMs: median(pglite), nodeMs: median(node), ratio: median(ratios) }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

runAsChild(() => runStartup(JSON.parse(process.argv[2] ?? '{}') as StartupSettings))
