import type { PasscodeAuth } from '../../service/create-passcode-auth'
import { canManageAccountPasscodes, canManageUserPasscodes } from '../../core/rules'
import { managementFailure } from '../../protocol/management-errors'
import {
  accountAnswerSchema,
  accountPolicyAnswerSchema,
  issuedPasscodeSchema,
  issuedUserPasscodeSchema,
  partnerListSchema,
  passcodeAnswerSchema,
  passcodeListSchema,
  scopeListSchema,
  userListSchema,
  userPasscodeAnswerSchema,
  usageAnswerSchema,
  type AnswerValue,
} from '../../protocol/management-schemas'
import { parseQuery } from '../../protocol/query-parameters'
import { parseInput, passcodeListQuerySchema } from '../../service/input'
import { exportAudit, listAudit } from './audit-routes'
import { readJsonObject } from './read-json'
import {
  createWebhook,
  deleteWebhook,
  listWebhookDeliveries,
  listWebhooks,
  replayWebhookDelivery,
  rotateWebhookSecret,
  sendTestWebhook,
  updateWebhook,
} from './webhook-routes'
import { failureAnswer, noContent, schemaAnswer } from './respond'
import type { DashboardRequest, DashboardResponse, DashboardSession, DirectoryUser } from './types'

/** What a route handler gets. */
export interface RouteContext {
  readonly auth: PasscodeAuth
  readonly session: DashboardSession
  readonly params: Readonly<Record<string, string>>
  readonly request: DashboardRequest
  readonly users: ((accountId: string) => readonly DirectoryUser[] | Promise<readonly DirectoryUser[]>) | undefined
}

type Handler = (context: RouteContext) => Promise<DashboardResponse>

/** One route of the management API: method, path pattern (`:name` segments), handler. */
export interface Route {
  readonly method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'
  readonly pattern: readonly string[]
  readonly handler: Handler
  /** Field names of the service that the API calls differently (`''`: the name is dropped from the path). */
  readonly rename?: Readonly<Record<string, string>>
}

// A value-carrying answer: `IssuedPasscode` hides `value` from JSON.stringify on
// purpose, so it is copied out explicitly, here and nowhere else.
const issued = <Schema extends typeof issuedPasscodeSchema | typeof issuedUserPasscodeSchema>(
  statusCode: number,
  schema: Schema,
  result: AnswerValue<Schema>,
) => schemaAnswer(statusCode, schema, { passcode: result.passcode, value: result.value })

const withBody =
  (handler: (context: RouteContext, body: Record<string, unknown>) => Promise<DashboardResponse>): Handler =>
  async (context) => {
    const body = await readJsonObject(context.request)
    return body.ok ? handler(context, body.value) : failureAnswer(body.failure)
  }

const route = (method: Route['method'], path: string, handler: Handler, rename?: Route['rename']): Route => ({
  method,
  pattern: path.split('/').filter((segment) => segment !== ''),
  handler,
  ...(rename === undefined ? {} : { rename }),
})

async function listUsers({ auth, session, users }: RouteContext): Promise<DashboardResponse> {
  const [views, directory] = await Promise.all([auth.userPasscodes.list(session.actor, session.accountId), users?.(session.accountId)])
  const byUser = new Map(views.map((view) => [view.userId, view]))
  const listed = (directory ?? []).map((user) => ({
    id: user.id,
    ...(user.name === undefined ? {} : { name: user.name }),
    ...(user.email === undefined ? {} : { email: user.email }),
    inDirectory: true,
    passcode: byUser.get(user.id) ?? null,
  }))
  const known = new Set(listed.map((user) => user.id))
  // Holders the directory no longer lists (they left, or there is no directory) stay visible, so they can be revoked.
  for (const view of views) if (!known.has(view.userId)) listed.push({ id: view.userId, inDirectory: false, passcode: view })
  return schemaAnswer(200, userListSchema, { users: listed, directory: directory !== undefined })
}

async function assertInDirectory({ session, params, users }: RouteContext): Promise<DashboardResponse | undefined> {
  if (users === undefined) return undefined
  const directory = await users(session.accountId)
  if (directory.some((user) => user.id === params.userId)) return undefined
  return failureAnswer(managementFailure('ERR_NOT_FOUND', 'No such user in this account'))
}

/**
 * `GET /passcodes`'s filters (SPEC §5.51): `tags` (repeatable) and `search`; any other
 * parameter is ignored, as it was before the filters (an account is never taken from the URL).
 */
function passcodeFilters(query: string | undefined) {
  const known = new URLSearchParams()
  for (const [name, value] of new URLSearchParams(query ?? '')) if (Object.hasOwn(passcodeListQuerySchema.shape, name)) known.append(name, value)
  return parseQuery(passcodeListQuerySchema, known.toString(), ['tags'])
}

const notFound = (message: string) => failureAnswer(managementFailure('ERR_NOT_FOUND', message))

/**
 * The management API (SPEC §5.29), relative to where it is mounted. Each handler
 * passes the session's account and actor to the service, which checks permissions;
 * an id of another account is simply not found in this one (404).
 */
export const ROUTES: readonly Route[] = [
  route(
    'GET',
    '/passcodes',
    async ({ auth, session, request }) =>
      schemaAnswer(200, passcodeListSchema, {
        passcodes: await auth.passcodes.list(session.actor, session.accountId, passcodeFilters(request.query)),
      }),
    // The service checks the filters as its `options`; here they are the query's parameters.
    { options: '' },
  ),
  route(
    'POST',
    '/passcodes',
    withBody(async ({ auth, session }, body) =>
      issued(201, issuedPasscodeSchema, await auth.passcodes.create(session.actor, session.accountId, body as never)),
    ),
  ),
  route(
    'PATCH',
    '/passcodes/:id',
    withBody(async ({ auth, session, params }, body) =>
      schemaAnswer(200, passcodeAnswerSchema, { passcode: await auth.passcodes.update(session.actor, session.accountId, params.id!, body as never) }),
    ),
  ),
  route(
    'POST',
    '/passcodes/:id/rotate',
    withBody(async ({ auth, session, params }, body) =>
      issued(201, issuedPasscodeSchema, await auth.passcodes.rotate(session.actor, session.accountId, params.id!, body as never)),
    ),
  ),
  // SPEC §5.38: no body; asking for the state a passcode is in already answers 200 as well.
  route('POST', '/passcodes/:id/disable', async ({ auth, session, params }) =>
    schemaAnswer(200, passcodeAnswerSchema, { passcode: await auth.passcodes.disable(session.actor, session.accountId, params.id!) }),
  ),
  route('POST', '/passcodes/:id/enable', async ({ auth, session, params }) =>
    schemaAnswer(200, passcodeAnswerSchema, { passcode: await auth.passcodes.enable(session.actor, session.accountId, params.id!) }),
  ),
  route('GET', '/passcodes/:id/usage', async ({ auth, session, params }) =>
    schemaAnswer(200, usageAnswerSchema, { usage: await auth.passcodes.usage(session.actor, session.accountId, params.id!) }),
  ),
  route('DELETE', '/passcodes/:id', async ({ auth, session, params }) => {
    await auth.passcodes.delete(session.actor, session.accountId, params.id!)
    return noContent()
  }),
  route('GET', '/users', listUsers),
  route('GET', '/users/:userId/passcode', async ({ auth, session, params }) => {
    const view = await auth.userPasscodes.get(session.actor, session.accountId, params.userId!)
    return view === null ? notFound('The user has no user passcode') : schemaAnswer(200, userPasscodeAnswerSchema, { passcode: view })
  }),
  route(
    'PUT',
    '/users/:userId/passcode',
    withBody(async (context, body) => {
      const { auth, session, params } = context
      // Permission first, so that a member cannot probe the directory through 404s.
      if (!canManageUserPasscodes(session.actor)) {
        return failureAnswer(managementFailure('ERR_FORBIDDEN', 'Only admins grant, reset or revoke user passcodes'))
      }
      // Then the ID's form, as the service checks it: an empty or malformed ID is a 400 on `userId`, not "no such user".
      parseInput('userId', 'userId', params.userId)
      const refused = await assertInDirectory(context)
      if (refused !== undefined) return refused
      return schemaAnswer(201, userPasscodeAnswerSchema, {
        passcode: await auth.userPasscodes.grant(session.actor, session.accountId, params.userId!, body as never),
      })
    }),
  ),
  route('GET', '/users/:userId/passcode/usage', async ({ auth, session, params }) =>
    schemaAnswer(200, usageAnswerSchema, { usage: await auth.userPasscodes.usage(session.actor, session.accountId, params.userId!) }),
  ),
  route('POST', '/users/:userId/passcode/reset', async ({ auth, session, params }) =>
    schemaAnswer(200, userPasscodeAnswerSchema, { passcode: await auth.userPasscodes.reset(session.actor, session.accountId, params.userId!) }),
  ),
  route('DELETE', '/users/:userId/passcode', async ({ auth, session, params }) => {
    await auth.userPasscodes.revoke(session.actor, session.accountId, params.userId!)
    return noContent()
  }),
  route('GET', '/me/passcode', async ({ auth, session }) =>
    issued(200, issuedUserPasscodeSchema, await auth.userPasscodes.reveal(session.actor, session.accountId)),
  ),
  route('GET', '/account', async ({ auth, session }) => schemaAnswer(200, accountAnswerSchema, await accountBody(auth, session))),
  route(
    'PUT',
    '/account',
    withBody(async ({ auth, session }, body) => {
      // The body holds the setting and nothing else: an unknown field is a 400 naming it, as on POST.
      const { acceptedPasscodes } = parseInput('accountSettings', '', body)
      await auth.accounts.setAcceptedPasscodes(session.actor, session.accountId, acceptedPasscodes)
      return schemaAnswer(200, accountAnswerSchema, await accountBody(auth, session))
    }),
    { accepted: 'acceptedPasscodes' },
  ),
  // SPEC §5.52: every member reads the policy; the service lets only admins change it (403 otherwise).
  route('GET', '/account/policy', async ({ auth, session }) =>
    schemaAnswer(200, accountPolicyAnswerSchema, { policy: await auth.accounts.getPolicy(session.accountId) }),
  ),
  route(
    'PUT',
    '/account/policy',
    withBody(async ({ auth, session }, body) =>
      schemaAnswer(200, accountPolicyAnswerSchema, {
        policy: await auth.accounts.setPolicy(session.actor, session.accountId, parseInput('policy', '', body)),
      }),
    ),
  ),
  route('DELETE', '/account/policy', async ({ auth, session }) =>
    schemaAnswer(200, accountPolicyAnswerSchema, { policy: await auth.accounts.setPolicy(session.actor, session.accountId, null) }),
  ),
  route('GET', '/audit', listAudit),
  route('GET', '/audit/export', exportAudit),
  route('GET', '/webhooks', listWebhooks),
  route('POST', '/webhooks', withBody(createWebhook)),
  route('PATCH', '/webhooks/:endpointId', withBody(updateWebhook)),
  route('DELETE', '/webhooks/:endpointId', deleteWebhook),
  route('POST', '/webhooks/:endpointId/rotate-secret', rotateWebhookSecret),
  route('POST', '/webhooks/:endpointId/test', sendTestWebhook),
  route('GET', '/webhook-deliveries', listWebhookDeliveries),
  route('POST', '/webhook-deliveries/:deliveryId/replay', replayWebhookDelivery),
  route('GET', '/partners', async ({ auth }) => {
    const partners = await auth.partners.list()
    return schemaAnswer(200, partnerListSchema, { partners: partners ?? [], listed: partners !== null })
  }),
  route('GET', '/scopes', async ({ auth }) => schemaAnswer(200, scopeListSchema, { scopes: auth.scopes.list() })),
]

async function accountBody(auth: PasscodeAuth, session: DashboardSession) {
  const { actor } = session
  return {
    account: { id: session.accountId, acceptedPasscodes: await auth.accounts.getAcceptedPasscodes(session.accountId) },
    actor: {
      userId: actor.userId,
      role: actor.role,
      canManagePasscodes: canManageAccountPasscodes(actor),
      canManageUsers: canManageUserPasscodes(actor),
    },
  }
}

/** The route for a method and path, or why there is none (404, or 405 with the methods allowed). */
export function matchRoute(
  method: string,
  path: string,
): { readonly route: Route; readonly params: Record<string, string> } | { readonly route: undefined; readonly allowed: string[] } {
  let readings: string[][]
  try {
    readings = pathReadings(path.split('/').map(decodeURIComponent))
  } catch {
    return { route: undefined, allowed: [] }
  }
  const allowed = new Set<string>()
  for (const segments of readings) {
    for (const candidate of ROUTES) {
      const params = matchPattern(candidate.pattern, segments)
      if (params === undefined) continue
      if (candidate.method === method) return { route: candidate, params }
      allowed.add(candidate.method)
    }
  }
  return { route: undefined, allowed: [...allowed] }
}

/**
 * The ways to read a path's segments, in the order they are tried. The leading slash is
 * not a segment, and an empty segment between two slashes is one: `/users//passcode` is
 * the grant route with an empty user ID, which the service refuses with 400 `field:
 * userId`, not an unknown route. A trailing slash is first read as no segment (`GET
 * /passcodes/` is the list), then as an empty last segment, so `PATCH /passcodes/` is the
 * edit of an empty passcode ID (400 on `passcodeId`), as the OpenAPI document says, not a
 * 405 of the list.
 */
function pathReadings(segments: string[]): string[][] {
  if (segments[0] === '') segments.shift()
  if (segments.at(-1) !== '') return [segments]
  return [segments.slice(0, -1), segments]
}

function matchPattern(pattern: readonly string[], segments: readonly string[]): Record<string, string> | undefined {
  if (pattern.length !== segments.length) return undefined
  const params: Record<string, string> = {}
  for (let i = 0; i < pattern.length; i++) {
    const part = pattern[i]!
    if (part.startsWith(':')) params[part.slice(1)] = segments[i]!
    else if (part !== segments[i]) return undefined
  }
  return params
}
