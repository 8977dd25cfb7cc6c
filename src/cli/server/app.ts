import { once } from 'node:events'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Runtime } from '../runtime'
import { dispatch, type Route } from './route'
import { referenceRoutes } from './routes'

/** One answered request, for the request log. Never a header: they carry the passcode. */
export interface RequestLogEntry {
  readonly method: string
  /** The request target as received: path and query (the partner name included). */
  readonly url: string
  readonly statusCode: number
  /** From the request's arrival to the end of the answer, in milliseconds. */
  readonly durationMs: number
}

/** Options of {@link buildServer}. */
export interface ServerOptions {
  /** The request log: called once per answered request. */
  readonly log?: (entry: RequestLogEntry) => void
  /** How long `/healthz` waits for the database, in ms. @default 2000 */
  readonly healthTimeoutMs?: number
  /** Origins whose pages may call `/v1/connect` from a browser (`--cors-origin`). @default none */
  readonly corsOrigins?: readonly string[]
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
  /** Stops accepting connections, lets the requests in flight finish, then resolves. */
  close(): Promise<void>
}

/**
 * The reference server of `passcode-auth serve`: Node's own `http` server over the
 * library's framework-neutral `http/` layer, so `npx passcode-auth serve` needs no web
 * framework. Routes: `mounts` first, then `/v1/connect`, `GET /1/events.json` and
 * `GET /healthz` (see {@link referenceRoutes}); anything else is 404.
 *
 * @example
 * ```ts
 * const app = buildServer(runtime, { log: (entry) => console.log(entry.method, entry.url, entry.statusCode) })
 * const address = await app.listen('127.0.0.1', 3000)
 * ```
 */
export function buildServer(runtime: Runtime, options: ServerOptions = {}): ReferenceServer {
  const routes = [...(options.mounts ?? []), ...referenceRoutes(runtime, options)]
  const { log } = options
  const server = createServer((request, response) => {
    const started = performance.now()
    if (log !== undefined) {
      response.once('finish', () => {
        log({
          method: request.method ?? 'GET',
          url: request.url ?? '/',
          statusCode: response.statusCode,
          durationMs: performance.now() - started,
        })
      })
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
    close() {
      return new Promise((resolve, reject) => {
        if (!server.listening) return resolve()
        server.close((error) => (error === undefined ? resolve() : reject(error)))
        // Keep-alive connections with no request in flight would hold close() open.
        server.closeIdleConnections()
      })
    },
  }
}
