import type { FastifyPluginCallback, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify'
import fastifyPlugin from 'fastify-plugin'
import type { Principal } from '../core/entities'
import { InvalidOptionsError } from '../core/errors'
import { assertPasscodeAuth, checkAdapterOptions, checkOnRefusal, checkScopes } from '../http/adapter-options'
import { createConnectRequest } from '../http/connect-request'
import { createLeakReport, type LeakReportOptions as LeakReportHandlerOptions } from '../http/leaks/leak-report'
import type { CorsOptions } from '../http/cors'
import { PasscodeRefusedError } from '../http/refusal-error'
import { fastifyReader } from './reader'
import { sendAnswer } from './send-answer'
import type { PasscodeAuth } from '../service/create-passcode-auth'

/** The hook behind `app.requirePasscode`; fits both `onRequest` and `preHandler`. */
export type RequirePasscodeHook = (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => void

declare module 'fastify' {
  interface FastifyRequest {
    /** Who called (SPEC §5.17); `null` until `app.requirePasscode` has let the request through. */
    passcodeAuth: Principal | null
  }
  interface FastifyInstance {
    /** Refuses requests without valid credentials; use as `onRequest` or `preHandler`. */
    requirePasscode: RequirePasscodeHook
    /**
     * `requirePasscode` for a route that needs scopes (SPEC §5.48): a valid passcode that
     * lacks one is refused with 403 `Missing scope: <name>`. Each scope must be declared by
     * the service's `scopes` option (checked when called: `InvalidOptionsError`). Call it
     * once per route, when the route is declared.
     */
    requirePasscodeWith(options: { readonly scopes: readonly string[] }): RequirePasscodeHook
  }
}

/**
 * Options of {@link passcodeAuthPlugin}.
 *
 * @example
 * ```ts
 * const options: PasscodeAuthPluginOptions = { auth, onRefusal: 'next', leakReport: { publicKeys } }
 * ```
 */
export interface PasscodeAuthPluginOptions {
  /** What `createPasscodeAuth` returned. */
  auth: PasscodeAuth
  /**
   * Whether to register `GET /v1/connect` (and `HEAD`; every other method answers 405
   * with `Allow: GET, HEAD`, except `QUERY` on Fastify 4, whose router does not know
   * that method and answers it with its own 404 before any plugin sees it).
   * @default true
   */
  connectRoute?: boolean
  /** Origins whose pages may call `/v1/connect` from a browser (SPEC §5.30). @default off */
  cors?: CorsOptions
  /**
   * What `app.requirePasscode` does with a refusal. `'respond'` answers it at once with
   * the exact SPEC body and headers. `'next'` hands a `PasscodeRefusedError` to the
   * hook's `done(error)` instead, for hosts whose `setErrorHandler` shapes every error
   * response (Fastify's default handler uses its `statusCode` and `headers`).
   * @default 'respond'
   */
  onRefusal?: 'respond' | 'next'
  /**
   * Registers the leak report endpoint (SPEC §5.42) at `path`: GitHub's signed secret
   * scanning reports, answered as in every entry point (`leakReportHandler`). Its route
   * reads the raw body itself (its own content-type parsers, in its own context).
   * @default off
   */
  leakReport?: LeakReportHandlerOptions & {
    /** Where to register it. @default '/v1/leaks' */
    path?: string
  }
}

// The scopes of `requirePasscodeWith` (`unknown`: JavaScript hosts can pass anything).
function routeScopes(options: unknown): readonly string[] {
  const own = checkAdapterOptions(options, 'requirePasscodeWith', { scopes: checkScopes }) as { readonly scopes?: readonly string[] } | undefined
  if (own?.scopes === undefined)
    throw new InvalidOptionsError('scopes', "must be a non-empty list of the scopes the route needs, like ['events:write']")
  return own.scopes
}

// `unknown`: JavaScript hosts can register the plugin with anything.
function checkOptions(options: unknown): PasscodeAuthPluginOptions {
  if (typeof options === 'object' && options !== null && Object.hasOwn(options, 'prefix')) {
    // Fastify ignores `prefix` for fastify-plugin plugins; failing beats a route at the wrong path.
    throw new InvalidOptionsError('prefix', 'is ignored for this plugin; register passcodeAuthPlugin inside a plugin registered with the prefix')
  }
  const own = checkAdapterOptions(options, 'passcodeAuthPlugin', {
    auth: () => undefined, // checked below, also when absent
    connectRoute: (value) => (value === undefined || typeof value === 'boolean' ? undefined : 'must be a boolean'),
    cors: () => undefined, // checked by createConnectRequest
    onRefusal: checkOnRefusal,
    leakReport: (value) => (value === undefined || (typeof value === 'object' && value !== null) ? undefined : 'must be { publicKeys, path? }'),
  })
  const checked = own as PasscodeAuthPluginOptions
  assertPasscodeAuth(checked.auth, 'passcodeAuthPlugin')
  return checked
}

const plugin: FastifyPluginCallback<PasscodeAuthPluginOptions> = (fastify, options, done) => {
  let connectRequest: ReturnType<typeof createConnectRequest<FastifyRequest>> | undefined
  let leakReport: { path: string; handle: ReturnType<typeof createLeakReport> } | undefined
  try {
    options = checkOptions(options)
    if (options.connectRoute !== false) connectRequest = createConnectRequest(options.auth, fastifyReader, { cors: options.cors })
    if (options.leakReport !== undefined) {
      const { path = '/v1/leaks', ...leakOptions } = options.leakReport
      if (typeof path !== 'string' || !path.startsWith('/')) throw new InvalidOptionsError('leakReport.path', 'must be a path starting with /')
      leakReport = { path, handle: createLeakReport(options.auth, leakOptions, 'passcodeAuthPlugin leakReport') }
    }
  } catch (error) {
    // A callback plugin reports failure through done: a throw would hang app.ready().
    return done(error as Error)
  }
  const { auth } = options
  const passRefusals = options.onRefusal === 'next'

  fastify.decorateRequest('passcodeAuth', null)
  // The hook, for a route that needs the scopes `required` (SPEC §5.48) or none.
  const hook = (required: ReturnType<PasscodeAuth['requiredScopes']> | undefined): RequirePasscodeHook =>
    function requirePasscode(request, reply, next) {
      const answer = auth.verifyRequest(request, fastifyReader, required)
      if (!(answer instanceof Promise)) {
        request.passcodeAuth = answer
        return next()
      }
      answer.then((outcome) => {
        if (!outcome.ok) return passRefusals ? next(new PasscodeRefusedError(outcome)) : void sendAnswer(reply, outcome)
        request.passcodeAuth = outcome.principal
        // `Sunset` while the passcode is in its last days, on the host's own answer.
        if (outcome.headers !== undefined) reply.headers(outcome.headers)
        next()
      }, next)
    }
  fastify.decorate('requirePasscode', hook(undefined))
  fastify.decorate('requirePasscodeWith', function requirePasscodeWith(options: { readonly scopes: readonly string[] }): RequirePasscodeHook {
    return hook(auth.requiredScopes(routeScopes(options)))
  })

  if (connectRequest !== undefined) {
    const answer = connectRequest
    const connect = async (request: FastifyRequest, reply: FastifyReply) => sendAnswer(reply, await answer(request))
    fastify.route({ method: 'GET', url: '/v1/connect', exposeHeadRoute: true, handler: connect })
    fastify.register(otherMethods, { prefix: '/v1/connect', connect })
  }
  if (leakReport !== undefined) fastify.register(leakReportRoute, leakReport)
  done()
}

/**
 * The leak report route, in its own context: its content-type parsers hand the raw
 * request stream on unread, so the handler reads (at most 1 MiB of) the exact bytes
 * the signature covers, whatever parsers the host registered elsewhere.
 */
const leakReportRoute: FastifyPluginCallback<{ path: string; handle: ReturnType<typeof createLeakReport> }> = (fastify, { path, handle }, done) => {
  fastify.removeAllContentTypeParsers()
  fastify.addContentTypeParser('*', (_request, payload, parsed) => parsed(null, payload))
  fastify.route({
    method: 'POST',
    url: path,
    handler: async (request, reply) => {
      const body = request.body ?? request.raw
      const answer = await handle({
        header: (name) => request.headers[name],
        method: request.method,
        body: body as NodeJS.ReadableStream as AsyncIterable<Uint8Array>,
      })
      return reply.code(answer.statusCode).headers(answer.headers).send(answer.body)
    },
  })
  done()
}

/**
 * Every other method on `/v1/connect` (SPEC §5.20). Fastify routes only the methods it
 * knows (Fastify 5 not PROPFIND or TRACE by default) and answers the rest with its own
 * 404, so instead of routes, this encapsulated context under the connect path owns the
 * 404s there: its `onRequest` hook answers them through the shared connect step (the
 * 405 with `Allow: GET, HEAD`) before Fastify would read a body (QUERY), exactly as
 * the Express and Koa adapters do. Being encapsulated, the hook runs for those 404s only,
 * never on the host's routes; other paths under `/v1/connect/` get Fastify's usual 404.
 */
const otherMethods: FastifyPluginCallback<{ connect: (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply> }> = (
  scope,
  { connect },
  done,
) => {
  const path = scope.prefix
  const trailingSlashToo = scope.initialConfig.ignoreTrailingSlash === true
  scope.addHook('onRequest', (request, reply, next) => {
    const url = request.raw.url ?? ''
    const query = url.indexOf('?')
    const target = query === -1 ? url : url.slice(0, query)
    if (target === path || (trailingSlashToo && target === `${path}/`)) return void connect(request, reply).catch(next)
    next()
  })
  scope.setNotFoundHandler((request, reply) => {
    reply.code(404).send({ message: `Route ${request.method}:${request.url} not found`, error: 'Not Found', statusCode: 404 })
  })
  done()
}

/**
 * The Fastify (4 and 5) plugin: decorates `request.passcodeAuth` (who called, SPEC
 * §5.17), adds `app.requirePasscode` for `onRequest` or `preHandler`, and registers
 * `GET /v1/connect` unless `connectRoute: false`. Wrapped with `fastify-plugin`, so
 * the decorations are visible to the whole app. Options are checked at registration.
 *
 * @example
 * ```ts
 * await app.register(passcodeAuthPlugin, { auth })
 * app.get('/1/events.json', { onRequest: app.requirePasscode }, async (request) => ({
 *   calledBy: request.passcodeAuth,
 * }))
 * ```
 */
export const passcodeAuthPlugin = fastifyPlugin(plugin, { fastify: '4.x || 5.x', name: 'passcode-auth' })
