import type { DashboardRequest, DashboardSession } from './types'

// As the reference server's request log accepts it: anything else is not kept.
const REQUEST_ID = /^[A-Za-z0-9._:+/=@-]{1,128}$/

/**
 * The session with the request's `X-Request-Id` on its actor, so that the audit record
 * of what the request changes names it (SPEC §5.40). A missing or odd ID adds nothing.
 */
export function withRequestContext(session: DashboardSession, request: DashboardRequest): DashboardSession {
  const requestId = request.header('x-request-id')
  if (requestId === undefined || !REQUEST_ID.test(requestId)) return session
  return { ...session, actor: { ...session.actor, requestId } }
}
