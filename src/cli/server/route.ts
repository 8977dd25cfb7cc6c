import type { IncomingMessage, ServerResponse } from 'node:http'

/**
 * One route of the reference server: a path, the methods it answers, and a handler
 * over Node's own request and response. Extra routes (the dashboard, say) are given to
 * `buildServer` as `mounts` and take the same shape.
 *
 * @example
 * ```ts
 * const hello: Route = { path: '/hello', methods: ['GET', 'HEAD'], handle: (_request, response) => sendJson(response, 200, { hello: 'world' }) }
 * ```
 */
export interface Route {
  /** The path it answers (the query aside). With `prefix`, every path under it. */
  readonly path: string
  /** Answer every path that starts with `path` (which should then end with `/`), for a mounted app. @default false */
  readonly prefix?: boolean
  /** The methods it answers; any other gets 405 with `Allow`. `'*'` takes every method and answers them itself. */
  readonly methods: readonly string[] | '*'
  /** Writes the answer. A throw or a rejection becomes a 500 with no detail. */
  handle(request: IncomingMessage, response: ServerResponse): void | Promise<void>
}

/** Writes a JSON answer with `Content-Length` (no body on HEAD: Node drops it). */
export function sendJson(response: ServerResponse, statusCode: number, body: unknown, headers: Readonly<Record<string, string>> = {}): void {
  const text = JSON.stringify(body)
  response.statusCode = statusCode
  for (const name in headers) response.setHeader(name, headers[name]!)
  response.setHeader('content-type', 'application/json; charset=utf-8')
  response.setHeader('content-length', Buffer.byteLength(text))
  response.end(text)
}

/** The path of a request target: origin-form (`/v1/connect?partner=x`) or absolute-form. */
export function requestPath(target: string | undefined): string {
  const path = (target ?? '/').split('?', 1)[0]!
  if (path.startsWith('/')) return path
  try {
    return new URL(path).pathname
  } catch {
    return path
  }
}

const matches = (route: Route, path: string): boolean => (route.prefix === true ? path.startsWith(route.path) : path === route.path)

/**
 * Finds the route for a request and runs it: 404 when no path matches, 405 with
 * `Allow` when the path does but not the method, 500 (and nothing more) when the
 * handler fails. Routes are tried in order; the first whose path matches answers.
 */
export async function dispatch(routes: readonly Route[], request: IncomingMessage, response: ServerResponse): Promise<void> {
  const path = requestPath(request.url)
  const route = routes.find((candidate) => matches(candidate, path))
  if (route === undefined) {
    sendJson(response, 404, { error: 'Not Found' })
    return
  }
  const method = request.method ?? 'GET'
  if (route.methods !== '*' && !route.methods.includes(method)) {
    sendJson(response, 405, { error: 'Method Not Allowed' }, { allow: route.methods.join(', ') })
    return
  }
  try {
    await route.handle(request, response)
  } catch {
    if (!response.headersSent) sendJson(response, 500, { error: 'Internal Server Error' })
    else response.destroy()
  }
}
