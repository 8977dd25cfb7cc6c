import type { IncomingMessage, ServerResponse } from 'node:http'
import { nodeConnectHandler, nodeRequirePasscode } from '../../index'
import type { Runtime } from '../runtime'
import { clientAddress, trustedProxies } from './client-address'
import { noteRefusal } from './request-log'
import { favicon } from './favicon'
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
 * The routes a newcomer tries first, on the package's own mounts for Node's `http`
 * server (`nodeConnectHandler`, `nodeRequirePasscode`), as any host without a framework
 * would write them: `/v1/connect` (every method, so that the SPEC §5.20 405 comes from
 * the library), `GET /1/events.json`, which stands for any protected route of the
 * service and answers with who called, `GET /healthz`, which checks the database for
 * load balancers, and `GET /favicon.ico`, so that a browser's first request is not a 404.
 */
export function referenceRoutes(runtime: Runtime, options: ReferenceRouteOptions = {}): Route[] {
  const origins = options.corsOrigins ?? []
  const proxies = options.trustProxy === undefined || options.trustProxy.length === 0 ? undefined : trustedProxies(options.trustProxy)
  const mountOptions = {
    // Read only when the limiter counts per address.
    clientAddress: (request: IncomingMessage) => clientAddress(request.socket.remoteAddress, request.headers['x-forwarded-for'], proxies),
    // The reason rides on the library's answer: the log reads it from there.
    onRefusal: (reason: string, _request: IncomingMessage, response: ServerResponse) => noteRefusal(response, reason),
  }
  const connectHandler = nodeConnectHandler(runtime.auth, origins.length > 0 ? { ...mountOptions, cors: { origins } } : mountOptions)
  const guard = nodeRequirePasscode(runtime.auth, mountOptions)
  const healthTimeoutMs = options.healthTimeoutMs ?? 2_000

  const connect: Route = { path: '/v1/connect', methods: '*', handle: connectHandler }

  const events: Route = {
    path: '/1/events.json',
    methods: ['GET', 'HEAD'],
    async handle(request, response) {
      const answer = guard(request, response)
      // A warm verification cache answers the principal itself, synchronously (never
      // for a passcode in its last days: those take the full path, for their `Sunset`).
      const principal = answer instanceof Promise ? await answer : answer
      if (principal !== undefined) sendJson(response, 200, { events: [], calledBy: principal })
    },
  }

  const health: Route = {
    path: '/healthz',
    methods: ['GET', 'HEAD'],
    async handle(_request, response) {
      const healthy = await within(
        runtime.ping().then(() => true),
        healthTimeoutMs,
      ).catch(() => false)
      if (healthy) sendJson(response, 200, { status: 'ok' }, { 'cache-control': 'no-store' })
      else sendJson(response, 503, { status: 'unavailable' }, { 'cache-control': 'no-store' })
    },
  }

  return [connect, events, health, favicon]
}

/** `check`'s answer, or `false` once `ms` have passed first; the timer never holds the process open. */
function within(check: Promise<boolean>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(resolve, ms, false)
    timer.unref()
  })
  return Promise.race([check, late]).finally(() => clearTimeout(timer))
}
