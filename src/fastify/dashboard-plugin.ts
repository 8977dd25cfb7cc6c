import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import { assertPasscodeAuth, assertSessionOption } from '../http/adapter-options'
import { createDashboard, type DashboardOptions } from '../http/dashboard/create-dashboard'
import { queryOf } from '../http/management/query'
import type { DashboardResponse, SessionResult } from '../http/management/types'
import type { PasscodeAuth } from '../service/create-passcode-auth'

/**
 * Options of {@link dashboardPlugin}.
 *
 * @example
 * ```ts
 * await app.register(dashboardPlugin, { prefix: '/settings', auth, session: (request) => sessionOf(request) } satisfies DashboardMountOptions & { prefix: string })
 * ```
 */
export interface DashboardMountOptions extends DashboardOptions {
  /** What `createPasscodeAuth` returned. */
  readonly auth: PasscodeAuth
  /**
   * Resolves the request's session, from the host's own login, to
   * `{ accountId, actor }`, or `undefined` (answered 401). The only source of the
   * account and the actor: never the URL or the body.
   */
  readonly session: (request: FastifyRequest) => SessionResult | Promise<SessionResult>
}

const send = (reply: FastifyReply, answer: DashboardResponse): FastifyReply =>
  reply
    .code(answer.statusCode)
    .headers(answer.headers)
    .send(answer.statusCode === 204 ? undefined : answer.body)

/**
 * The dashboard for Fastify 4 and 5: the management API under `/api` and the Settings
 * pages. Register it with the `prefix` where it should live. It is an encapsulated
 * plugin (no fastify-plugin): its body parsing (raw text, read by the management API
 * so that every error has its `{"error":…}` shape) stays inside it.
 *
 * @example
 * ```ts
 * import { dashboardPlugin } from 'passcode-auth/fastify'
 *
 * await app.register(dashboardPlugin, {
 *   prefix: '/settings',
 *   auth,
 *   session: (request) => sessionOf(request), // { accountId, actor } or undefined
 * })
 * ```
 */
export const dashboardPlugin: FastifyPluginAsync<DashboardMountOptions> = async (app, options) => {
  assertPasscodeAuth(options.auth, 'dashboardPlugin')
  assertSessionOption(options, '(request) => { accountId, actor } | undefined')
  const dashboard = createDashboard(options.auth, options)
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => done(null, body))

  const base = app.prefix
  const handler = async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
    const rest = (request.params as { '*'?: string })['*']
    const text = request.body
    const answer = await dashboard.handle(
      {
        method: request.method.toUpperCase(),
        base,
        path: rest === undefined ? '/' : `/${rest}`,
        query: queryOf(request.url),
        header: (name) => {
          const value = request.headers[name]
          return Array.isArray(value) ? value.join(', ') : value
        },
        body: async () => (typeof text === 'string' && text !== '' ? { text } : undefined),
      },
      () => options.session(request),
    )
    return send(reply, answer)
  }
  const methods = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']
  app.route({ method: methods, url: '/', handler, exposeHeadRoute: false })
  app.route({ method: methods, url: '/*', handler, exposeHeadRoute: false })
}
