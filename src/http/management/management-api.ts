import { InvalidOptionsError } from '../../core/errors'
import { managementErrorAnswer, managementFailure } from '../../protocol/management-errors'
import type { PasscodeAuth } from '../../service/create-passcode-auth'
import { isCrossSite } from './cross-site'
import { failureAnswer } from './respond'
import { isValidSession } from './session'
import { withRequestContext } from './audit-context'
import { matchRoute } from './routes'
import type { DashboardRequest, DashboardResponse, DirectoryUser, SessionResult } from './types'

/**
 * Options of {@link createManagementApi}.
 *
 * @example
 * ```ts
 * const options: ManagementApiOptions = { trustedOrigins: ['https://admin.example.com'] }
 * ```
 */
export interface ManagementApiOptions {
  /**
   * The host's user directory: the people of an account, so the Users page lists
   * those without a passcode too and a grant is refused (404) for anyone else.
   * Without it, admins grant by user ID.
   * @default undefined
   */
  readonly users?: (accountId: string) => readonly DirectoryUser[] | Promise<readonly DirectoryUser[]>
  /**
   * Origins besides the request's own host that may change state (a separate admin
   * front end, or a proxy that rewrites `Host`), such as `https://admin.example.com`.
   * @default []
   */
  readonly trustedOrigins?: readonly string[]
}

/**
 * The framework-neutral management API; mounts call {@link ManagementApi.handle}.
 *
 * @example
 * ```ts
 * const answer = await createManagementApi(auth).handle(request, () => session)
 * ```
 */
export interface ManagementApi {
  /**
   * Answers one request. `path` is relative to the API's root (`/passcodes`).
   * `resolveSession` is the host's resolver bound to this request; it is called only
   * after the route and the cross-site check pass.
   */
  handle(request: DashboardRequest, resolveSession: () => SessionResult | Promise<SessionResult>): Promise<DashboardResponse>
}

/**
 * Creates the management API (SPEC §5.29): JSON routes over `auth` for one account
 * at a time, the account and actor taken from the host's session only. Errors go
 * through one table (`MANAGEMENT_ERROR_STATUS`) as `{"error":{"code","message","field"?}}`;
 * state-changing requests from another site are refused with 403 `ERR_CROSS_SITE`.
 *
 * @param auth - what `createPasscodeAuth` returned
 * @param options - see {@link ManagementApiOptions}
 * @example
 * ```ts
 * const api = createManagementApi(auth)
 * const response = await api.handle(request, () => ({ accountId: 'acc_1', actor: { userId: 'u_1', role: 'admin' } }))
 * ```
 */
export function createManagementApi(auth: PasscodeAuth, options: ManagementApiOptions = {}): ManagementApi {
  if (options.users !== undefined && typeof options.users !== 'function') {
    throw new InvalidOptionsError('users', 'must be a function (accountId) => users')
  }
  const trusted = new Set<string>()
  for (const origin of options.trustedOrigins ?? []) {
    let parsed: URL
    try {
      parsed = new URL(origin)
    } catch {
      throw new InvalidOptionsError('trustedOrigins', `${JSON.stringify(origin)} is not an origin such as https://admin.example.com`)
    }
    if (parsed.origin !== origin)
      throw new InvalidOptionsError('trustedOrigins', `${JSON.stringify(origin)} must be exactly an origin: ${parsed.origin}`)
    trusted.add(origin)
  }
  const users = options.users

  return {
    async handle(request, resolveSession) {
      const match = matchRoute(request.method, request.path)
      if (match.route === undefined) {
        if (match.allowed.length === 0) return failureAnswer(managementFailure('ERR_NOT_FOUND', 'No such route'))
        return failureAnswer(managementFailure('ERR_METHOD_NOT_ALLOWED', 'Method not allowed'), { allow: match.allowed.join(', ') })
      }
      if (isCrossSite(request, trusted)) {
        return failureAnswer(managementFailure('ERR_CROSS_SITE', 'Cross-site request refused'))
      }
      let session: SessionResult
      try {
        session = await resolveSession()
      } catch {
        return failureAnswer(managementFailure('ERR_INTERNAL', 'Internal error'))
      }
      if (session === undefined || session === null) return failureAnswer(managementFailure('ERR_UNAUTHENTICATED', 'Sign in first'))
      if (!isValidSession(session)) {
        return failureAnswer(managementFailure('ERR_CONFIGURATION', 'The session resolver returned no valid { accountId, actor }'))
      }
      try {
        return await match.route.handler({ auth, session: withRequestContext(session, request), params: match.params, request, users })
      } catch (error) {
        return failureAnswer(managementErrorAnswer(error, match.route.rename))
      }
    },
  }
}
