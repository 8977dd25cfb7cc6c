import { Hono, type Context } from 'hono'
import type { PasscodeAuth } from '../../src/index'
import type { CorsOptions } from '../../src/fetch/index'
import { connectHandler, requirePasscode } from '../../src/fetch/index'
import { connectHandler as honoConnectHandler, requirePasscode as honoRequirePasscode } from '../../src/hono/index'

/** The suite's route that needs a scope (SPEC §5.48), as test/http/frameworks.ts serves it (not imported: Bun and Deno load this file alone). */
const WRITE_ROUTE = '/1/events/write.json'
const WRITE_SCOPES = ['events:write']

/**
 * The hosts of the HTTP suites over web-standard Request/Response, free of any
 * runtime's own API so that Node (through @hono/node-server), Bun and Deno serve the
 * very same code: `GET /v1/connect` and the protected example route `/1/events.json`.
 * The principal route answers `application/json; charset=utf-8`, as Express, Fastify
 * and Koa do by default, so the suites compare the library and not the host's choice.
 */

/** A fetch handler taking the client address the way Bun's and Deno's servers give it. */
export type FetchHost = (request: Request, clientAddress?: string) => Promise<Response>

const json = (value: unknown, headers: Readonly<Record<string, string>>): Response =>
  new Response(JSON.stringify(value), { headers: { ...headers, 'content-type': 'application/json; charset=utf-8' } })

/** A plain fetch host: routes by path, then hands over to passcode-auth/fetch. */
export function fetchHost(auth: PasscodeAuth, options?: { readonly cors?: CorsOptions }): FetchHost {
  const connect = connectHandler(auth, options?.cors === undefined ? undefined : { cors: options.cors })
  const guard = requirePasscode(auth)
  // Made at the first request to the write route: a host whose auth declares no scopes still serves the rest.
  let writeGuard: ReturnType<typeof requirePasscode> | undefined
  return async (request, clientAddress) => {
    const url = request.url
    const path = url.slice(url.indexOf('/', url.indexOf('//') + 2)).split(/[?#]/, 1)[0]
    if (path === '/v1/connect') return connect(request, clientAddress)
    if ((path === '/1/events.json' || path === WRITE_ROUTE) && (request.method === 'GET' || request.method === 'HEAD')) {
      const check = await (path === WRITE_ROUTE ? (writeGuard ??= requirePasscode(auth, { scopes: WRITE_SCOPES })) : guard)(request, clientAddress)
      if (!check.ok) return check.response
      return json(check.principal, check.headers)
    }
    return new Response('Not Found', { status: 404 })
  }
}

/** A Hono host; `clientAddress` is the runtime's `getConnInfo` (Hono has one per runtime). */
export function honoHost(auth: PasscodeAuth, clientAddress?: (c: Context) => string | undefined, cors?: CorsOptions): Hono {
  const options = clientAddress === undefined ? undefined : { clientAddress }
  const app = new Hono()
  app.all('/v1/connect', honoConnectHandler(auth, { ...options, ...(cors === undefined ? {} : { cors }) }))
  app.get('/1/events.json', honoRequirePasscode(auth, options), (c) => {
    return c.body(JSON.stringify(c.var.passcodeAuth), 200, { 'content-type': 'application/json; charset=utf-8' })
  })
  // Made at the first request, as in fetchHost.
  let writeGuard: ReturnType<typeof honoRequirePasscode> | undefined
  app.get(
    WRITE_ROUTE,
    (c, next) => (writeGuard ??= honoRequirePasscode(auth, { ...options, scopes: WRITE_SCOPES }))(c, next),
    (c) => {
      return c.body(JSON.stringify(c.var.passcodeAuth), 200, { 'content-type': 'application/json; charset=utf-8' })
    },
  )
  return app
}
