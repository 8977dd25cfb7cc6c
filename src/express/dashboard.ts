import type { NextFunction, Request, Response } from 'express'
import { assertPasscodeAuth, assertSessionOption } from '../http/adapter-options'
import { createDashboard, type DashboardOptions } from '../http/dashboard/create-dashboard'
import { queryOf } from '../http/management/query'
import { failureAnswer } from '../http/management/respond'
import type { SessionResult } from '../http/management/types'
import { managementFailure } from '../protocol/management-errors'
import { nodeBody, nodeHeader, writeNodeDashboardResponse } from '../http/node/dashboard-io'
import type { PasscodeAuth } from '../service/create-passcode-auth'

/**
 * Options of the Express {@link dashboard}.
 *
 * @example
 * ```ts
 * const options: DashboardMountOptions = { session: (req) => sessions.get(req.get('cookie') ?? '') }
 * ```
 */
export interface DashboardMountOptions extends DashboardOptions {
  /**
   * Resolves the request's session, from the host's own login, to
   * `{ accountId, actor }`, or `undefined` (answered 401). The only source of the
   * account and the actor: never the URL or the body.
   */
  readonly session: (req: Request) => SessionResult | Promise<SessionResult>
}

/**
 * The dashboard for Express 4 and 5: the management API under `/api` and the Settings
 * pages, wherever the host mounts it. Works with or without `express.json()`.
 *
 * @param auth - what `createPasscodeAuth` returned
 * @param options - `session` (required) and {@link DashboardOptions}
 * @example
 * ```ts
 * import { dashboard } from 'passcode-auth/express'
 *
 * app.use('/settings', dashboard(auth, {
 *   session: (req) => req.user && { accountId: req.user.accountId, actor: { userId: req.user.id, role: req.user.role } },
 * }))
 * ```
 */
export function dashboard(auth: PasscodeAuth, options: DashboardMountOptions): ExpressDashboardHandlers {
  assertPasscodeAuth(auth, 'dashboard')
  assertSessionOption(options, '(req) => { accountId, actor } | undefined')
  const handler = createDashboard(auth, options)
  const handle = (req: Request, res: Response, next: NextFunction): void => {
    const method = req.method.toUpperCase()
    handler
      .handle(
        {
          method,
          base: req.baseUrl,
          path: req.path,
          query: queryOf(req.url),
          header: (name) => nodeHeader(req.headers, name),
          body: () => nodeBody(req, () => req.body as unknown),
        },
        () => options.session(req),
      )
      .then((answer) => writeNodeDashboardResponse(res, answer, method === 'HEAD'), next)
  }
  // A host's express.json() in front fails before the dashboard runs; its parse and
  // size errors are answered here, in the management API's own shape.
  const bodyErrors = (error: unknown, req: Request, res: Response, next: NextFunction): void => {
    const type = (error as { type?: unknown } | null)?.type
    if (req.path !== '/api' && !req.path.startsWith('/api/')) return next(error)
    if (type === 'entity.parse.failed') {
      return writeNodeDashboardResponse(res, failureAnswer(managementFailure('ERR_INVALID_INPUT', 'The body is not valid JSON')), false)
    }
    if (type === 'entity.too.large') {
      return writeNodeDashboardResponse(res, failureAnswer(managementFailure('ERR_PAYLOAD_TOO_LARGE', 'The body is too large')), false)
    }
    next(error)
  }
  return [handle, bodyErrors]
}

/**
 * What the Express {@link dashboard} returns: the handler and an error handler for a
 * host body parser's failures. `app.use(path, …)` takes the pair as it is.
 *
 * @example
 * ```ts
 * app.use('/settings', dashboard(auth, { session }) satisfies ExpressDashboardHandlers)
 * ```
 */
export type ExpressDashboardHandlers = [
  (req: Request, res: Response, next: NextFunction) => void,
  (error: unknown, req: Request, res: Response, next: NextFunction) => void,
]
