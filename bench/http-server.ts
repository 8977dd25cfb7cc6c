/**
 * Child process: one HTTP server of the throughput benchmark, on 127.0.0.1 and a free
 * port, serving `GET /hello` (a small JSON body) in one of these variants:
 *
 * - `bare`: the framework alone;
 * - `noop-hook`: the same route behind a hook or middleware that does nothing (an
 *   `onRequest` hook on Fastify, a route middleware on Express, an `app.use` on Koa):
 *   what the framework charges for any, the floor under `requirePasscode`;
 * - `auth`: behind passcode-auth's `requirePasscode`, memory store, warm cache;
 * - `nocache-pglite`: the same with the cache off, over an embedded PGlite store;
 * - `connect`: `GET /v1/connect?partner=acme` (memory store, warm cache, a static whitelist);
 * - `connect-pglite`: the same over an embedded PGlite store and its whitelist
 *   (`postgresPartners`), as the reference server runs it;
 * - `better-auth`: behind better-auth's API-key plugin (Fastify only), the peer.
 *
 * It tells the orchestrator its port and the headers to send, then serves until killed.
 *
 *   node --import tsx bench/http-server.ts fastify auth
 */
import type { AddressInfo } from 'node:net'
import type { Server } from 'node:http'
import { answerCpuQuestions, tell } from './child'
import { createBenchService, PARTNER, type BenchService } from './fixtures'
import { createBetterAuthPeer } from './peers'

export const FRAMEWORKS = ['fastify', 'express', 'koa'] as const
export type Framework = (typeof FRAMEWORKS)[number]
export const VARIANTS = ['bare', 'noop-hook', 'auth', 'nocache-pglite', 'connect', 'connect-pglite', 'better-auth'] as const
export type Variant = (typeof VARIANTS)[number]

/** What the orchestrator needs to load a variant. */
export interface ServerInfo {
  readonly path: string
  readonly headers: Record<string, string>
}

const HELLO = { hello: 'world' }

async function serviceFor(variant: Variant): Promise<BenchService | undefined> {
  if (variant === 'auth' || variant === 'connect') return createBenchService({ store: 'memory' })
  if (variant === 'nocache-pglite') return createBenchService({ store: 'pglite', cache: false })
  if (variant === 'connect-pglite') return createBenchService({ store: 'pglite', partners: 'store' })
  return undefined
}

function credentialHeaders(service: BenchService): Record<string, string> {
  const { accountId, passcode } = service.credentials[0]!
  return { 'x-service-account-id': accountId, 'x-service-passcode': passcode }
}

async function fastifyServer(variant: Variant, service: BenchService | undefined): Promise<{ server: Server; info: ServerInfo }> {
  const { default: Fastify } = await import('fastify')
  const { passcodeAuthPlugin } = await import('../src/fastify/index')
  const app = Fastify({ logger: false })
  const handler = async () => HELLO
  let info: ServerInfo = { path: '/hello', headers: {} }
  if (variant === 'better-auth') {
    const peer = await createBetterAuthPeer()
    app.get(
      '/hello',
      {
        onRequest: async (request, reply) => {
          const key = request.headers['x-api-key']
          const result = typeof key === 'string' ? await peer.verify(key) : undefined
          if (result?.valid !== true) return reply.code(401).send({ error: 'invalid api key' })
        },
      },
      handler,
    )
    info = { path: '/hello', headers: { 'x-api-key': peer.key } }
  } else if (variant === 'noop-hook') {
    app.get('/hello', { onRequest: (_request, _reply, done) => done() }, handler)
  } else if (service !== undefined) {
    const connect = isConnect(variant)
    await app.register(passcodeAuthPlugin, { auth: service.auth, connectRoute: connect })
    if (!connect) app.get('/hello', { onRequest: app.requirePasscode }, handler)
    info = serverInfo(variant, service)
  } else {
    app.get('/hello', handler)
  }
  await app.listen({ host: '127.0.0.1', port: 0 })
  return { server: app.server, info }
}

async function expressServer(variant: Variant, service: BenchService | undefined): Promise<{ server: Server; info: ServerInfo }> {
  const { default: express } = await import('express')
  const { requirePasscode, connectHandler } = await import('../src/express/index')
  const app = express()
  const handler: import('express').RequestHandler = (_req, res) => {
    res.json(HELLO)
  }
  if (isConnect(variant)) app.get('/v1/connect', connectHandler(service!.auth))
  else if (variant === 'noop-hook') app.get('/hello', (_req, _res, next) => next(), handler)
  else if (service !== undefined) app.get('/hello', requirePasscode(service.auth), handler)
  else app.get('/hello', handler)
  const server = await new Promise<Server>((resolve) => {
    const listening = app.listen(0, '127.0.0.1', () => resolve(listening))
  })
  return { server, info: serverInfo(variant, service) }
}

async function koaServer(variant: Variant, service: BenchService | undefined): Promise<{ server: Server; info: ServerInfo }> {
  const { default: Koa } = await import('koa')
  const { requirePasscode, connectHandler } = await import('../src/koa/index')
  const app = new Koa()
  if (isConnect(variant)) {
    const connect = connectHandler(service!.auth)
    app.use((ctx, next) => (ctx.path === '/v1/connect' ? connect(ctx, next) : next()))
  } else {
    if (variant === 'noop-hook') app.use((_ctx, next) => next())
    if (service !== undefined) app.use(requirePasscode(service.auth))
    app.use((ctx) => {
      if (ctx.path === '/hello') ctx.body = HELLO
    })
  }
  const server = await new Promise<Server>((resolve) => {
    const listening = app.listen(0, '127.0.0.1', () => resolve(listening))
  })
  return { server, info: serverInfo(variant, service) }
}

const isConnect = (variant: Variant): boolean => variant === 'connect' || variant === 'connect-pglite'

function serverInfo(variant: Variant, service: BenchService | undefined): ServerInfo {
  return {
    path: isConnect(variant) ? `/v1/connect?partner=${PARTNER}` : '/hello',
    headers: service === undefined ? {} : credentialHeaders(service),
  }
}

async function main(): Promise<void> {
  const [framework, variant] = process.argv.slice(2) as [Framework, Variant]
  if (!FRAMEWORKS.includes(framework) || !VARIANTS.includes(variant)) {
    throw new Error(`usage: http-server.ts <${FRAMEWORKS.join('|')}> <${VARIANTS.join('|')}>`)
  }
  if (variant === 'better-auth' && framework !== 'fastify') throw new Error('the better-auth peer runs on Fastify only')
  const service = await serviceFor(variant)
  const start = framework === 'fastify' ? fastifyServer : framework === 'express' ? expressServer : koaServer
  const { server, info } = await start(variant, service)
  const stop = () => {
    server.close()
    server.closeAllConnections()
    void service?.close().finally(() => process.exit(0))
    if (service === undefined) process.exit(0)
  }
  answerCpuQuestions()
  process.once('SIGTERM', stop)
  process.once('disconnect', stop)
  const port = (server.address() as AddressInfo).port
  // Run by hand (for `node --cpu-prof`), it prints where to send the load.
  if (process.send === undefined) console.log(JSON.stringify({ url: `http://127.0.0.1:${port}${info.path}`, headers: info.headers }))
  tell({ type: 'ready', port, info })
}

main().catch((error: unknown) => {
  tell({ type: 'error', message: error instanceof Error ? (error.stack ?? error.message) : String(error) })
  process.exitCode = 1
  setTimeout(() => process.exit(1), 100)
})
