import { once } from 'node:events'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Runtime } from '../runtime'
import { CLIENT_CLOSED, refusalOf, requestIdOf, type RequestLogEntry } from './request-log'
import { dispatch, requestPath, type Route } from './route'
import { referenceRoutes } from './routes'

/** Options of {@link buildServer}. */
export interface ServerOptions {
  /**
   * The request log: called once per request, when its answer is finished or its
   * connection closed, whichever comes first (see `createRequestLog` in request-log.ts).
   */
  readonly log?: (entry: RequestLogEntry) => void
  /** How long `/healthz` waits for the database, in ms. @default 2000 */
  readonly healthTimeoutMs?: number
  /** Origins whose pages may call `/v1/connect` from a browser (`--cors-origin`). @default none */
  readonly corsOrigins?: readonly string[]
  /** Proxies whose `X-Forwarded-For` gives the client address (`--trust-proxy`). @default none: the socket's */
  readonly trustProxy?: readonly string[]
  /**
   * Extra routes (the dashboard, say), tried before the built-in ones. A route with
   * `prefix: true` takes every path under its own.
   */
  readonly mounts?: readonly Route[]
}

/** The reference server: a `node:http` server and how to start and stop it. */
export interface ReferenceServer {
  readonly server: Server
  /** Listens; resolves the address once bound, rejects (`EADDRINUSE`…) when it cannot. */
  listen(host: string, port: number): Promise<AddressInfo>
  /**
   * Stops accepting connections, lets the requests in flight finish, then resolves.
   * With `graceMs`, connections still busy after that long are cut.
   */
  close(graceMs?: number): Promise<void>
}

/**
 * The reference server of `passcode-auth serve`: Node's own `http` server over the
 * library's framework-neutral `http/` layer, so `npx passcode-auth serve` needs no web
 * framework. Routes: `mounts` first, then `/v1/connect`, `GET /1/events.json` and
 * `GET /healthz` (see {@link referenceRoutes}); anything else is 404. Every answer
 * carries `X-Request-Id`: the request's own when well-formed, else a new UUID.
 *
 * @example
 * ```ts
 * const app = buildServer(runtime, { log: (entry) => console.log(entry.method, entry.path, entry.status, entry.requestId) })
 * const address = await app.listen('127.0.0.1', 3000)
 * ```
 */
export function buildServer(runtime: Runtime, options: ServerOptions = {}): ReferenceServer {
  const routes = [...(options.mounts ?? []), ...referenceRoutes(runtime, options)]
  const { log } = options
  const server = createServer((request, response) => {
    const started = performance.now()
    const requestId = requestIdOf(request.headers['x-request-id'])
    response.setHeader('x-request-id', requestId)
    if (log !== undefined) {
      let logged = false
      // 'finish' once the answer is handed to the connection; 'close' alone when the
      // connection closed first (the client went away, or a handler destroyed it).
      const done = (finished: boolean) => {
        if (logged) return
        logged = true
        const reason = refusalOf(response)
        log({
          method: request.method ?? 'GET',
          path: requestPath(request.url),
          status: finished || response.headersSent ? response.statusCode : CLIENT_CLOSED,
          durationMs: performance.now() - started,
          ...(reason !== undefined && { reason }),
          requestId,
          ...(!finished && { aborted: true }),
        })
      }
      response.once('finish', () => done(true)).once('close', () => done(false))
    }
    void dispatch(routes, request, response)
  })
  return {
    server,
    async listen(host, port) {
      server.listen(port, host)
      await once(server, 'listening')
      return server.address() as AddressInfo
    },
    close(graceMs) {
      return new Promise((resolve, reject) => {
        if (!server.listening) return resolve()
        // Keep-alive connections with no request in flight would hold close() open; one
        // whose request ends meanwhile goes idle and is closed at the next tick.
        const idle = setInterval(() => server.closeIdleConnections(), 50)
        const cut = graceMs === undefined ? undefined : setTimeout(() => server.closeAllConnections(), graceMs)
        server.close((error) => {
          clearInterval(idle)
          clearTimeout(cut)
          if (error === undefined) resolve()
          else reject(error)
        })
        server.closeIdleConnections()
      })
    },
  }
}
