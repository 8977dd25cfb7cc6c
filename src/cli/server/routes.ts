import type { IncomingMessage } from 'node:http'
import { createConnectRequest } from '../../http/connect-request'
import { nodeRequestReader } from '../../http/node/node-request'
import { writeNodeResponse } from '../../http/node/write-response'
import { settleWithin } from '../../service/deadline'
import type { Runtime } from '../runtime'
import { clientAddress, trustedProxies } from './client-address'
import { noteRefusal } from './request-log'
import { sendJson, type Route } from './route'

/** Options of {@link referenceRoutes}. */
export interface ReferenceRouteOptions {
  /** How long `/healthz` waits for the database, in ms. @default 2000 */
  readonly healthTimeoutMs?: number
  /** Origins whose pages may call `/v1/connect` from a browser (SPEC §5.30). @default none */
  readonly corsOrigins?: readonly string[]
  /**
   * Proxies whose `X-Forwarded-For` gives the client address the limiter counts
   * (`--trust-proxy`; see {@link clientAddress}). @default none: the socket's address
   */
  readonly trustProxy?: readonly string[]
}


/**
 * The routes a newcomer tries first, on the library's framework-neutral `http/` layer:
 * `/v1/connect` (every method, so that the SPEC §5.20 405 comes from the library),
 * `GET /1/events.json`, which stands for any protected route of the service and answers
 * with who called, and `GET /healthz`, which checks the database for load balancers.
 */
export function referenceRoutes(runtime: Runtime, options: ReferenceRouteOptions = {}): Route[] {
  const origins = options.corsOrigins ?? []
  const proxies = options.trustProxy === undefined || options.trustProxy.length === 0 ? undefined : trustedProxies(options.trustProxy)
  // Read only when the limiter counts per address.
  const reader = nodeRequestReader(
    (request: IncomingMessage) => request,
    (request) => clientAddress(request.socket.remoteAddress, request.headers['x-forwarded-for'], proxies),
  )
  const connectRequest = createConnectRequest(runtime.auth, reader, origins.length > 0 ? { cors: { origins } } : {})
  const healthTimeoutMs = options.healthTimeoutMs ?? 2_000

  const connect: Route = {
    path: '/v1/connect',
    methods: '*',
    async handle(request, response) {
      const answer = await connectRequest(request)
      // The reason rides on the library's answer (a preflight has none): the log reads it from there.
      if ('reason' in answer && answer.reason !== undefined) noteRefusal(response, answer.reason)
      writeNodeResponse(response, answer)
    },
  }

  const events: Route = {
    path: '/1/events.json',
    methods: ['GET', 'HEAD'],
    async handle(request, response) {
      const answer = runtime.auth.verifyRequest(request, reader)
      // A warm verification cache answers the principal itself, synchronously (never
      // for a passcode in its last days: those take the full path, for their `Sunset`).
      if (!(answer instanceof Promise)) return sendJson(response, 200, { events: [], calledBy: answer })
      const outcome = await answer
      if (outcome.ok) sendJson(response, 200, { events: [], calledBy: outcome.principal }, outcome.headers)
      else {
        noteRefusal(response, outcome.reason)
        writeNodeResponse(response, outcome)
      }
    },
  }

  const health: Route = {
    path: '/healthz',
    methods: ['GET', 'HEAD'],
    async handle(_request, response) {
      const healthy = await settleWithin(
        runtime.ping().then(() => true),
        healthTimeoutMs,
        () => false,
      ).catch(() => false)
      if (healthy) sendJson(response, 200, { status: 'ok' }, { 'cache-control': 'no-store' })
      else sendJson(response, 503, { status: 'unavailable' }, { 'cache-control': 'no-store' })
    },
  }

  return [connect, events, health]
}
