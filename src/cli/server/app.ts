import Fastify, { type FastifyInstance } from 'fastify'
import { passcodeAuthPlugin } from '../../fastify/index'
import type { Runtime } from '../runtime'

/** Options of {@link buildServer}. */
export interface ServerOptions {
  /** Receives one line per answered request (method, URL, status, time); never headers. */
  readonly log?: (line: string) => void
  /** How long `/healthz` waits for the database, in ms. @default 2000 */
  readonly healthTimeoutMs?: number
}

/**
 * The reference server: a Fastify host of the library with the routes a newcomer
 * tries first. `GET /v1/connect` comes from the plugin; `GET /1/events.json` stands
 * for any protected route of the service and answers with who called; `GET /healthz`
 * checks the database for load balancers.
 *
 * @example
 * ```ts
 * const app = await buildServer(runtime, { log: console.log })
 * await app.listen({ host: '127.0.0.1', port: 3000 })
 * ```
 */
export async function buildServer(runtime: Runtime, options: ServerOptions = {}): Promise<FastifyInstance> {
  const app = Fastify({ logger: false })
  await app.register(passcodeAuthPlugin, { auth: runtime.auth })

  app.get('/1/events.json', { onRequest: app.requirePasscode }, async (request) => ({ events: [], calledBy: request.passcodeAuth }))

  app.get('/healthz', async (_request, reply) => {
    reply.header('cache-control', 'no-store')
    let timer: ReturnType<typeof setTimeout> | undefined
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('timeout')), options.healthTimeoutMs ?? 2_000)
    })
    try {
      await Promise.race([runtime.ping(), deadline])
      return { status: 'ok' }
    } catch {
      return reply.code(503).send({ status: 'unavailable' })
    } finally {
      clearTimeout(timer)
    }
  })

  const log = options.log
  if (log !== undefined) {
    app.addHook('onResponse', async (request, reply) => {
      log(`${request.method} ${request.url} ${reply.statusCode} ${Math.round(reply.elapsedTime)} ms`)
    })
  }
  return app
}
