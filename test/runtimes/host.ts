/**
 * The host that test/runtimes/runtimes.test.ts runs under Bun and under Deno, bundled
 * by esbuild into one ES module: the HTTP suite's fixture served over a real socket by
 * the runtime's own server (`Bun.serve`, `Deno.serve`), through passcode-auth/fetch
 * (HOST_APP=fetch) or passcode-auth/hono (HOST_APP=hono), on the memory store or on
 * PostgreSQL through `pg` (HOST_STORE=postgres, DATABASE_URL, HOST_SCHEMA).
 *
 * It prints ONE line on stdout, `{ runtime, port, fixture }`: the fixture's IDs and its
 * passcode values, made up at start, so that the test can send the suite's requests.
 * `POST /__fixture?storage=<mode>&partners=<mode>` sets the fixture's failure modes.
 * It runs until its stdin closes, which is how the test (or its end) stops it.
 */
import type { Context } from 'hono'
import pg from 'pg'
import type { PasscodeStore } from '../../src/index'
import { memoryStore } from '../../src/memory'
import { migrate, postgresStore } from '../../src/stores/postgres/index'
import { createHttpFixture, type FailureMode } from '../http/fixture'
import { fetchHost, honoHost, type FetchHost } from '../fetch/hosts'

declare const Bun: {
  version: string
  serve(options: { port: number; hostname: string; fetch(request: Request, server: BunServer): Promise<Response> }): {
    port: number
    stop(force?: boolean): void
  }
  stdin: { stream(): ReadableStream<Uint8Array> }
}
interface BunServer {
  requestIP(request: Request): { address: string } | null
}
declare const Deno: {
  version: { deno: string }
  env: { get(name: string): string | undefined }
  serve(
    options: { port: number; hostname: string; onListen(address: { port: number }): void },
    handler: (request: Request, info: { remoteAddr: { hostname: string } }) => Promise<Response>,
  ): { shutdown(): Promise<void> }
  stdin: { readable: ReadableStream<Uint8Array> }
  exit(code: number): never
}

const runtime = typeof Bun !== 'undefined' ? `bun ${Bun.version}` : typeof Deno !== 'undefined' ? `deno ${Deno.version.deno}` : 'unknown'
const env = (name: string): string | undefined => (typeof Deno !== 'undefined' ? Deno.env.get(name) : process.env[name])

/**
 * The storage deadline on PostgreSQL. The fixture's 200 ms is passed by a real lookup
 * over a socket when the machine is starved (bun on PostgreSQL answered 504 with two
 * busy loops beside the suite). The cases on this deadline make the store hang, which
 * answers 504 whatever its length; every other case must not meet it. No case here
 * measures the deadline's length: a bound on the machine, not on the library.
 */
const POSTGRES_TIMEOUT_MS = 1_000

async function openStore(): Promise<{ store: PasscodeStore; timeoutMs?: number; close(): Promise<void> }> {
  if (env('HOST_STORE') !== 'postgres') return { store: memoryStore(), close: async () => {} }
  const pool = new pg.Pool({ connectionString: env('DATABASE_URL'), max: 4, connectionTimeoutMillis: 10_000 })
  const options = { schema: env('HOST_SCHEMA') ?? 'passcode_auth' }
  await migrate(pool, options)
  const store = postgresStore(pool, options)
  return {
    store,
    timeoutMs: POSTGRES_TIMEOUT_MS,
    close: async () => {
      await store.close()
      await pool.end()
    },
  }
}

const { store, timeoutMs, close } = await openStore()
const fixture = await createHttpFixture(timeoutMs === undefined ? { store } : { store, timeoutMs })
const app = env('HOST_APP') === 'hono' ? 'hono' : 'fetch'
const modes = new Set<string>(['normal', 'throws', 'hangs'])

function control(request: Request): Response {
  const query = new URL(request.url).searchParams
  const storage = query.get('storage') ?? 'normal'
  const partners = query.get('partners') ?? 'normal'
  if (!modes.has(storage) || !modes.has(partners)) return new Response('unknown mode', { status: 400 })
  fixture.setStorage(storage as FailureMode)
  fixture.setPartners(partners as FailureMode)
  return new Response(null, { status: 204 })
}

type Serve = (request: Request, clientAddress: string | undefined, runtimeEnv: unknown) => Promise<Response>
// Hono's helper of each runtime reads that runtime's globals when loaded: load only the one that runs.
const { getConnInfo: connInfo } = typeof Bun !== 'undefined' ? await import('hono/bun') : await import('hono/deno')
const handler: Serve = (() => {
  if (app === 'hono') {
    const hono = honoHost(fixture.auth, (c: Context) => connInfo(c).remote.address)
    return async (request, _address, runtimeEnv) => hono.fetch(request, runtimeEnv)
  }
  const host: FetchHost = fetchHost(fixture.auth)
  return (request, address) => host(request, address)
})()
const serve: Serve = async (request, address, runtimeEnv) =>
  request.method === 'POST' && new URL(request.url).pathname === '/__fixture' ? control(request) : handler(request, address, runtimeEnv)

const { auth: _auth, setStorage: _s, setPartners: _p, close: _c, ...data } = fixture
const ready = (port: number) => console.log(JSON.stringify({ runtime, app, store: env('HOST_STORE') ?? 'memory', port, fixture: data }))

let stop: () => Promise<void>
let stdin: ReadableStream<Uint8Array>
if (typeof Bun !== 'undefined') {
  const server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: (request, bun) => serve(request, bun.requestIP(request)?.address, bun) })
  stop = async () => server.stop(true)
  stdin = Bun.stdin.stream()
  ready(server.port)
} else {
  const server = Deno.serve({ port: 0, hostname: '127.0.0.1', onListen: ({ port }) => ready(port) }, (request, info) =>
    serve(request, info.remoteAddr.hostname, info),
  )
  stop = () => server.shutdown()
  stdin = Deno.stdin.readable
}

// Runs until stdin ends: the test closes it, and so does the test process ending.
const reader = stdin.getReader()
while (!(await reader.read()).done) {
  // Nothing is sent on stdin; it only tells when to stop.
}
await stop()
await fixture.close()
await close()
if (typeof Deno !== 'undefined') Deno.exit(0)
