import { once } from 'node:events'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import express5 from 'express'
import express4 from 'express4'
import fastify5, { type FastifyInstance } from 'fastify'
import fastify4 from 'fastify4'
import Koa3 from 'koa'
import Koa2 from 'koa2'
import { nodeConnectHandler, nodeRequirePasscode, type CorsOptions, type PasscodeAuth } from '../../src/index'
import { connectHandler, requirePasscode as expressRequirePasscode } from '../../src/express/index'
import { passcodeAuthPlugin } from '../../src/fastify/index'
import { connectHandler as koaConnectHandler, requirePasscode as koaRequirePasscode } from '../../src/koa/index'
import type { HttpTarget, RunningApp } from '../conformance/http'

/** The suite's route that needs a scope (SPEC §5.48), and the scopes it needs, as every host of the suite serves it. */
export const WRITE_ROUTE = '/1/events/write.json'
export const WRITE_SCOPES = ['events:write']

/** Adapter options the conformance suite varies: CORS on `/v1/connect`. */
interface AdapterOptions {
  readonly cors?: CorsOptions
}

/** The Express app of the suite: `GET /v1/connect` and the protected example route. */
export function expressApp(express: typeof express5, auth: PasscodeAuth, options?: AdapterOptions) {
  const app = express()
  app.all('/v1/connect', connectHandler(auth, options))
  app.get('/1/events.json', expressRequirePasscode(auth), (req, res) => {
    res.json(req.passcodeAuth)
  })
  // Each app makes its scoped guard at the first request to the write route: a suite whose auth declares no scopes still serves the rest.
  let writeGuard: ReturnType<typeof expressRequirePasscode> | undefined
  app.get(
    WRITE_ROUTE,
    (req, res, next) => (writeGuard ??= expressRequirePasscode(auth, { scopes: WRITE_SCOPES }))(req, res, next),
    (req, res) => {
      res.json(req.passcodeAuth)
    },
  )
  return app
}

/** The Koa app of the suite, routed with plain path checks (Koa has no router of its own). */
export function koaApp(Koa: typeof Koa3, auth: PasscodeAuth, options?: AdapterOptions) {
  const app = new Koa()
  app.silent = true
  const connect = koaConnectHandler(auth, options)
  const guard = koaRequirePasscode(auth)
  let writeGuard: ReturnType<typeof koaRequirePasscode> | undefined
  app.use((ctx, next) => {
    if (ctx.path === '/v1/connect') return connect(ctx, next)
    if ((ctx.method === 'GET' || ctx.method === 'HEAD') && (ctx.path === '/1/events.json' || ctx.path === WRITE_ROUTE)) {
      return (ctx.path === WRITE_ROUTE ? (writeGuard ??= koaRequirePasscode(auth, { scopes: WRITE_SCOPES })) : guard)(ctx, async () => {
        ctx.body = ctx.state.passcodeAuth
      })
    }
    return next()
  })
  return app
}

/** The suite's app on Node's own `http` server, no framework: `nodeConnectHandler` and `nodeRequirePasscode`. */
export function nodeApp(auth: PasscodeAuth, options?: AdapterOptions): (request: IncomingMessage, response: ServerResponse) => Promise<unknown> {
  const connect = nodeConnectHandler(auth, options)
  const guard = nodeRequirePasscode(auth)
  let writeGuard: ReturnType<typeof nodeRequirePasscode> | undefined
  return async (request, response) => {
    const path = (request.url ?? '/').split('?', 1)[0]
    if (path === '/v1/connect') return connect(request, response)
    if ((request.method === 'GET' || request.method === 'HEAD') && (path === '/1/events.json' || path === WRITE_ROUTE)) {
      const answer = (path === WRITE_ROUTE ? (writeGuard ??= nodeRequirePasscode(auth, { scopes: WRITE_SCOPES })) : guard)(request, response)
      const principal = answer instanceof Promise ? await answer : answer
      if (principal === undefined) return
      const body = JSON.stringify(principal)
      response.setHeader('content-type', 'application/json; charset=utf-8')
      response.setHeader('content-length', Buffer.byteLength(body))
      return void response.end(body)
    }
    response.statusCode = 404
    response.end('Not Found')
  }
}

/** The Fastify app of the suite: the plugin plus the protected example route; `configure` runs before `ready()`. */
export async function fastifyApp(
  fastify: typeof fastify5,
  auth: PasscodeAuth,
  configure?: (app: FastifyInstance) => void,
  options?: AdapterOptions,
): Promise<FastifyInstance> {
  const app = fastify()
  await app.register(passcodeAuthPlugin, { auth, ...options })
  app.get('/1/events.json', { onRequest: app.requirePasscode }, async (request) => request.passcodeAuth)
  let writeHook: ReturnType<typeof app.requirePasscodeWith> | undefined
  app.get(
    WRITE_ROUTE,
    { onRequest: (request, reply, done) => (writeHook ??= app.requirePasscodeWith({ scopes: WRITE_SCOPES }))(request, reply, done) },
    async (request) => request.passcodeAuth,
  )
  configure?.(app)
  await app.ready()
  return app
}

/**
 * Serves a Node request listener on 127.0.0.1, port 0. The listener may return a promise
 * (Koa's `app.callback()`, a Fetch adapter's): it answers its own errors, and Node ignores
 * what a listener returns.
 */
export async function listen(listener: (request: IncomingMessage, response: ServerResponse) => unknown): Promise<RunningApp> {
  const server = createServer(listener)
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  return {
    port: (server.address() as AddressInfo).port,
    close: async () => {
      server.closeAllConnections()
      server.close()
      await once(server, 'close')
    },
  }
}

/** Starts a Fastify app on 127.0.0.1, port 0. */
export async function listenFastify(app: FastifyInstance): Promise<RunningApp> {
  await app.listen({ port: 0, host: '127.0.0.1' })
  return { port: (app.server.address() as AddressInfo).port, close: () => app.close() }
}

// fastify4's instance type is its own package's; at run time the plugin works on both.
const asFastify = (factory: unknown) => factory as typeof fastify5

/** Express 4 and 5, Fastify 4 and 5, Koa 2 and 3, and Node's own `http` with no framework. */
export const FRAMEWORKS: readonly HttpTarget[] = [
  { name: 'express 4', start: (auth, options) => listen(expressApp(express4, auth, options)) },
  { name: 'express 5', start: (auth, options) => listen(expressApp(express5, auth, options)) },
  {
    name: 'fastify 4',
    start: async (auth, options) => listenFastify(await fastifyApp(asFastify(fastify4), auth, undefined, options)),
    unroutableMethods: { methods: ['QUERY'], because: "Fastify 4's router predates QUERY: it answers 404 before any hook or plugin runs" },
  },
  { name: 'fastify 5', start: async (auth, options) => listenFastify(await fastifyApp(fastify5, auth, undefined, options)) },
  { name: 'koa 2', start: (auth, options) => listen(koaApp(Koa2, auth, options).callback()) },
  { name: 'koa 3', start: (auth, options) => listen(koaApp(Koa3, auth, options).callback()) },
  { name: 'node http', start: (auth, options) => listen(nodeApp(auth, options)) },
]
