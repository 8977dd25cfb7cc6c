import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { build } from 'esbuild'
import { generatePasscode } from '../../src/index'
import type { FailureMode, HttpFixture } from '../http/fixture'
import type { RuntimeName } from './binaries'

/** What test/runtimes/host.ts serves. */
export interface HostSetup {
  readonly app: 'fetch' | 'hono'
  readonly store: 'memory' | 'postgres'
  readonly databaseUrl?: string
  /** PostgreSQL schema of this host, so hosts sharing a database start empty. */
  readonly schema?: string
}

/** A host running under Bun or Deno. */
export interface RuntimeHost {
  /** What the host printed: the runtime and its version, e.g. `bun 1.4.5`. */
  readonly runtime: string
  readonly port: number
  /** The fixture's IDs and passcode values; `auth` and the failure switches stay in the host. */
  readonly fixture: HttpFixture
  /** Sets the host's storage and partner-registry failure modes. */
  setFailures(storage: FailureMode, partners: FailureMode): Promise<void>
  stop(): Promise<void>
}

/**
 * Bundles test/runtimes/host.ts into one ES module (src/, hono and pg included), so
 * that Bun and Deno run it without resolving TypeScript paths or node_modules.
 * `require` in pg's CommonJS is given through node:module's createRequire, which both
 * runtimes provide. Returns the bundle's path and a function removing it.
 */
export async function bundleHost(): Promise<{ readonly path: string; remove(): void }> {
  const folder = mkdtempSync(join(tmpdir(), 'passcode-auth-runtime-host-'))
  const path = join(folder, 'host.mjs')
  await build({
    entryPoints: [join(import.meta.dirname, 'host.ts')],
    outfile: path,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'es2022',
    external: ['pg-native', 'cloudflare:sockets'],
    banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
    logLevel: 'error',
  })
  return { path, remove: () => rmSync(folder, { recursive: true, force: true }) }
}

function commandFor(runtime: RuntimeName, binary: string, bundle: string): [string, string[]] {
  if (runtime === 'bun') return [binary, ['run', bundle]]
  return [binary, ['run', '--allow-net', '--allow-env', '--allow-read', '--allow-sys', '--no-prompt', bundle]]
}

async function exited(child: ChildProcess, ms: number): Promise<boolean> {
  if (child.exitCode !== null || child.signalCode !== null) return true
  const timer = new Promise<false>((resolve) => setTimeout(() => resolve(false), ms).unref())
  return Promise.race([once(child, 'exit').then(() => true), timer])
}

/**
 * Starts test/runtimes/host.ts (bundled) under `runtime` and waits for its ready line.
 * Its stderr is kept and shown if it fails to start.
 */
export async function startRuntimeHost(runtime: RuntimeName, binary: string, bundle: string, setup: HostSetup): Promise<RuntimeHost> {
  const scratch = mkdtempSync(join(tmpdir(), `passcode-auth-${runtime}-`))
  const [command, args] = commandFor(runtime, binary, bundle)
  const child = spawn(command, args, {
    cwd: scratch,
    stdio: ['pipe', 'pipe', 'pipe'],
    env: {
      PATH: process.env.PATH,
      HOME: scratch,
      DENO_DIR: join(scratch, 'deno'),
      DENO_NO_UPDATE_CHECK: '1',
      NO_COLOR: '1',
      HOST_APP: setup.app,
      HOST_STORE: setup.store,
      ...(setup.databaseUrl === undefined ? {} : { DATABASE_URL: setup.databaseUrl }),
      ...(setup.schema === undefined ? {} : { HOST_SCHEMA: setup.schema }),
    },
  })
  let stderr = ''
  child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString('utf8')).slice(-4_000)))
  const lines = createInterface({ input: child.stdout })
  const stop = async () => {
    lines.close()
    child.stdin.end()
    if (!(await exited(child, 5_000))) {
      child.kill('SIGKILL')
      await exited(child, 5_000)
    }
    rmSync(scratch, { recursive: true, force: true })
  }
  try {
    const first = await Promise.race([
      once(lines, 'line').then(([line]) => line as string),
      once(child, 'exit').then(([code]) => Promise.reject(new Error(`${runtime} host exited with ${code} before it was ready`))),
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`${runtime} host not ready within 60 s`)), 60_000).unref()),
    ])
    const ready = JSON.parse(first) as { runtime: string; port: number; fixture: Omit<HttpFixture, 'auth' | 'setStorage' | 'setPartners' | 'close'> }
    const fixture = {
      ...ready.fixture,
      // A new well-formed, never issued value on every read, as in the fixture itself,
      // so that the host's refusal cache never answers for it.
      passcodes: {
        ...ready.fixture.passcodes,
        get unknown() {
          return generatePasscode()
        },
      },
      get auth(): never {
        throw new Error('the service lives in the runtime host')
      },
      setStorage: () => {},
      setPartners: () => {},
      close: async () => {},
    } satisfies HttpFixture
    return {
      runtime: ready.runtime,
      port: ready.port,
      fixture,
      async setFailures(storage, partners) {
        const response = await fetch(`http://127.0.0.1:${ready.port}/__fixture?storage=${storage}&partners=${partners}`, { method: 'POST' })
        if (response.status !== 204) throw new Error(`the host refused failure modes ${storage}/${partners}: ${response.status}`)
      },
      stop,
    }
  } catch (error) {
    await stop()
    throw new Error(`${(error as Error).message}\n${stderr}`)
  }
}
