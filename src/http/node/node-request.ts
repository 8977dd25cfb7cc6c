import type { IncomingHttpHeaders } from 'node:http'
import type { HeaderValue } from '../../protocol/credentials'
import type { RequestReader } from '../request-reader'

/**
 * The part of a Node `IncomingMessage` the adapters read: Express's `req`, Koa's
 * `ctx.req` and Fastify's `request.raw` all are one.
 */
export interface NodeRequestLike {
  /** Lower-cased names; Node joins a repeated custom header with `", "`. */
  readonly headers: IncomingHttpHeaders
  /** The request target as received, query included. */
  readonly url?: string | undefined
  /** The request method; absent counts as `GET`. */
  readonly method?: string | undefined
}

/**
 * A header of Node's `req.headers` (names lower-cased by Node): one O(1) lookup. A
 * repeated custom header arrives joined with `", "`, which SPEC §5.4 then refuses.
 *
 * @example
 * ```ts
 * const credentials = readCredentials(req.headers, nodeHeader)
 * ```
 */
export function nodeHeader(headers: IncomingHttpHeaders, lowerCaseName: string): HeaderValue {
  return headers[lowerCaseName]
}

/**
 * The {@link RequestReader} of a framework object that holds a Node request: Express's
 * `req` is one, Koa's `ctx` has `ctx.req`, Fastify's `request` has `request.raw`.
 *
 * @param requestOf - the Node request of the framework's object
 * @param clientAddress - the framework's client address (`req.ip`, `ctx.ip`, `request.ip`)
 * @example
 * ```ts
 * const reader = nodeRequestReader((ctx: Context) => ctx.req, (ctx) => ctx.ip)
 * ```
 */
export function nodeRequestReader<Source>(
  requestOf: (request: Source) => NodeRequestLike,
  clientAddress: (request: Source) => string | undefined,
): RequestReader<Source> {
  return {
    header: (request, name) => requestOf(request).headers[name],
    headerRecord: (request) => requestOf(request).headers,
    clientAddress,
    method: (request) => requestOf(request).method,
    target: (request) => requestOf(request).url ?? '',
  }
}
