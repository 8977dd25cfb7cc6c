import { canManageUserPasscodes } from '../../core/rules'
import { managementFailure } from '../../protocol/management-errors'
import { auditFilterQuerySchema, auditListQuerySchema, auditPageSchema } from '../../protocol/management-audit'
import { parseQuery } from '../../protocol/query-parameters'
import type { PasscodeAuth } from '../../service/create-passcode-auth'
import { failureAnswer, ndjsonAnswer, schemaAnswer } from './respond'
import type { DashboardRequest, DashboardResponse, DashboardSession } from './types'

/*
 * The audit trail in the management API (SPEC §5.40): admins only, like
 * `auth.audit.list`, which both routes call through. The filters come from the query
 * string, checked by the schemas the OpenAPI document shows.
 */

/** What these handlers use of a route's context (routes.ts `RouteContext`). */
interface AuditRouteContext {
  readonly auth: PasscodeAuth
  readonly session: DashboardSession
  readonly request: DashboardRequest
}

const forbidden = () => failureAnswer(managementFailure('ERR_FORBIDDEN', 'Only admins read the audit trail'))

/** `GET /audit`: one page, newest first, and the cursor of the next. Permission first, so a member learns nothing from a 400. */
export async function listAudit({ auth, session, request }: AuditRouteContext): Promise<DashboardResponse> {
  if (!canManageUserPasscodes(session.actor)) return forbidden()
  const options = parseQuery(auditListQuerySchema, request.query, ['action'])
  const page = await auth.audit.list(session.actor, session.accountId, options)
  return schemaAnswer(200, auditPageSchema, { records: page.records, nextCursor: page.cursor })
}

/**
 * `GET /audit/export`: every matching record, oldest first, as JSON lines (the lines of
 * `auth.audit.export`), as a file to save. The answer is built whole: for a trail of
 * millions of records, `passcode-auth audit export` streams instead.
 */
export async function exportAudit({ auth, session, request }: AuditRouteContext): Promise<DashboardResponse> {
  if (!canManageUserPasscodes(session.actor)) return forbidden()
  const filters = parseQuery(auditFilterQuerySchema, request.query, ['action'])
  const lines: string[] = []
  for await (const line of auth.audit.export(session.actor, session.accountId, filters)) lines.push(line)
  const file = `audit-${session.accountId.replace(/[^A-Za-z0-9._-]/g, '_')}.jsonl`
  return ndjsonAnswer(lines.join(''), file)
}
