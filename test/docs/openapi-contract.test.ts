import { readFileSync } from 'node:fs'
import createClient, { type Middleware } from 'openapi-fetch'
import { describe, expect, it } from 'vitest'
import { CLIENT_TYPES, clientTypesText } from '../../scripts/openapi-client-types'
import { MANAGEMENT_OPENAPI_FILE, SERVER_RULES } from '../../scripts/management-openapi'
import { CONNECT_SERVER_RULES, OPENAPI_FILE } from '../../scripts/openapi'
import { StorageTimeoutError, type PartnerRegistry, type PasscodeAuthOptions, type PasscodeStore } from '../../src/index'
import { memoryStore } from '../../src/memory'
import { connectHandler, dashboard } from '../../src/fetch/index'
import type { DashboardSession } from '../../src/dashboard/index'
import { MAX_WEBHOOK_ENDPOINTS } from '../../src/service/webhooks/webhook-input'
import { setup } from '../helpers/service'
import {
  CONNECT_CASES,
  MANAGEMENT_CASES,
  type Caller,
  type ConnectCase,
  type ConnectFixture,
  type ManagementCase,
  type ManagementFixture,
} from './openapi-cases'
import { documentedOperations, openApiChecker, type OpenApiChecker, type ReceivedAnswer, type SentRequest } from './openapi-checker'
import type { paths as ConnectPaths } from './openapi-types/connect'
import type { components as ManagementComponents, operations as ManagementOperations, paths as ManagementPaths } from './openapi-types/management'

/**
 * The committed OpenAPI documents as an API consumer meets them: a client generated from
 * each (openapi-typescript's types, committed in openapi-types/ and compiled by `npm run
 * typecheck`, with openapi-fetch) drives every operation with the cases of
 * openapi-cases.ts and with the failures any operation can meet; Ajv
 * (openapi-checker.ts) checks every answer against the document (status, the headers that
 * matter, media type, body) and every request against the operation's request schemas:
 * a request refused with 400 must break them unless its case names a rule the document
 * says they cannot state, and a request the server takes must pass them. Every status an
 * operation documents must be met. The handlers run in process (the fetch mounts), so the
 * file is a unit test.
 */

type Json = Record<string, any>

const DAY_MS = 86_400_000

/** One request and what came of it, for the findings of the end. */
interface Exchange {
  readonly operationId: string
  readonly case: string
  readonly expected: number
  readonly request: SentRequest
  readonly answer: ReceivedAnswer
  readonly serverRule?: string
  /** The error code the case is about, when it names one. */
  readonly code?: string
}

/** What is wrong with one exchange: a status other than the case's, or anything the document does not say of it. */
function findings(document: Json, checker: OpenApiChecker, exchange: Exchange, rules: Readonly<Record<string, string>>): string[] {
  const { request, answer } = exchange
  const where = `${exchange.operationId} (${exchange.case}) ${request.method} ${request.url.pathname}${request.url.search}`
  const found: string[] = []
  if (answer.status !== exchange.expected) found.push(`answered ${answer.status}, not ${exchange.expected}: ${answer.body.slice(0, 300)}`)
  if (exchange.code !== undefined && !answer.body.includes(`"code":"${exchange.code}"`))
    found.push(`answered without the code ${exchange.code}: ${answer.body.slice(0, 300)}`)
  found.push(...checker.answerMismatches(request, answer))
  const violations = checker.requestViolations(request)
  if (answer.status >= 200 && answer.status < 300 && violations.length > 0)
    found.push(`taken, but the request schemas refuse it: ${violations.join('; ')}`)
  if (answer.status === 400) {
    if (exchange.serverRule === undefined) {
      if (violations.length === 0) found.push('refused with 400, but the request schemas accept it and the case names no rule of the server')
    } else {
      if (violations.length > 0) found.push(`names the rule ${exchange.serverRule}, but breaks the request schemas: ${violations.join('; ')}`)
      const operation = documentedOperations(document).find((candidate) => candidate.operationId === exchange.operationId)!
      const described = JSON.stringify(operation.operation.responses['400'] ?? {})
      if (!described.includes(JSON.stringify(rules[exchange.serverRule]).slice(1, -1)))
        found.push(`the 400 of the document does not name the rule ${exchange.serverRule}`)
    }
  }
  return found.map((finding) => `${where}: ${finding}`)
}

/** The statuses each operation documents that no exchange met. */
function unmet(document: Json, exchanges: readonly Exchange[]): string[] {
  return documentedOperations(document).flatMap(({ operationId, operation }) =>
    Object.keys(operation.responses as Json)
      .filter((status) => !exchanges.some((exchange) => exchange.operationId === operationId && String(exchange.answer.status) === status))
      .map((status) => `${operationId} ${status}`),
  )
}

/** Operations of the document without cases, or without a case that succeeds. */
function uncovered(document: Json, cases: Readonly<Record<string, readonly { status: number }[]>>): string[] {
  return documentedOperations(document)
    .filter(({ operationId }) => !(cases[operationId] ?? []).some((one) => one.status >= 200 && one.status < 300))
    .map(({ operationId }) => operationId)
}

/** A `fetch` for a generated client: the request goes to `handler` in process, and the exchange is kept. */
function recording(handler: (request: Request) => Promise<Response>) {
  let last: { request: SentRequest; answer: ReceivedAnswer } | undefined
  return {
    async fetch(input: Request): Promise<Response> {
      const request: SentRequest = {
        method: input.method,
        url: new URL(input.url),
        headers: new Headers(input.headers),
        body: await input.clone().text(),
      }
      const response = await handler(input)
      last = { request, answer: { status: response.status, headers: response.headers, body: await response.clone().text() } }
      return response
    },
    /** The exchange of the request just sent. */
    take() {
      const taken = last!
      last = undefined
      return taken
    },
  }
}

/**
 * A store (and a partner registry) that answers nothing: each call fails, reports its own
 * timeout (as a store that bounds its calls does), or never settles.
 */
function broken(mode: 'fail' | 'timeout' | 'hang'): { store: PasscodeStore; partners: PartnerRegistry } {
  const answer = () =>
    mode === 'hang' ? new Promise<never>(() => {}) : Promise.reject(mode === 'fail' ? new Error('connection refused') : new StorageTimeoutError(2000))
  const wrap = <Target extends object>(target: Target): Target =>
    new Proxy(target, {
      get(object, property, receiver) {
        const value: unknown = Reflect.get(object, property, receiver)
        if (typeof value === 'object' && value !== null) return wrap(value)
        if (typeof value !== 'function') return value
        return (...args: unknown[]) => {
          const result: unknown = (value as (...a: unknown[]) => unknown).apply(object, args)
          if (!(result instanceof Promise)) return result
          result.catch(() => {})
          return answer()
        }
      },
    })
  return { store: wrap(memoryStore()), partners: { isWhitelisted: answer, list: answer } }
}

// --- the management API ------------------------------------------------------------

const SESSION_COOKIE = 'passcode_auth_dashboard'
const SESSIONS: Readonly<Record<Exclude<Caller, 'nobody'>, DashboardSession>> = {
  admin: { accountId: 'acc_1', actor: { userId: 'u_admin', role: 'admin' } },
  member: { accountId: 'acc_1', actor: { userId: 'u_member', role: 'member' } },
}
const DIRECTORY = ['u_amy', 'u_bo', 'u_cy', 'u_dee', 'u_admin', 'u_member'].map((id) => ({ id, name: id.slice(2) }))

/** The session in the request's cookie, as a host resolves its own; `throw` is a resolver that fails. */
function sessionOf(request: Request): DashboardSession | undefined {
  const name = /(?:^|;\s*)passcode_auth_dashboard=([^;]*)/.exec(request.headers.get('cookie') ?? '')?.[1]
  if (name === 'throw') throw new Error('session store down')
  return SESSIONS[name as keyof typeof SESSIONS]
}

function managementHost(
  options: { store?: PasscodeStore; partners?: PartnerRegistry | string[]; timeoutMs?: number; auditKeys?: PasscodeAuthOptions['auditKeys'] } = {},
) {
  const store = options.store ?? memoryStore()
  const { auth, clock } = setup({
    store,
    partners: options.partners ?? ['Acme', 'Globex'],
    // SPEC §5.48: what a passcode's `scopes` may name.
    scopes: { 'events:read': 'Read events', 'events:write': 'Send events' },
    ...(options.timeoutMs && { timeoutMs: options.timeoutMs }),
    ...(options.auditKeys && { auditKeys: options.auditKeys }),
  })
  const recorder = recording(dashboard(auth, { basePath: '/settings', session: sessionOf, users: () => DIRECTORY }))
  const client = createClient<ManagementPaths>({ baseUrl: 'http://app.example/settings/api', fetch: recorder.fetch })
  return { auth, clock, store, recorder, client }
}

type ManagementClient = ReturnType<typeof managementHost>['client']

/**
 * A host whose account's audit trail it cannot vouch for (SPEC §5.44): another service on
 * its store wrote a record keyed under an audit key this one was not given.
 */
async function unvouchedTrailHost(): Promise<ReturnType<typeof managementHost>> {
  const keyed = managementHost({ auditKeys: [{ id: 'contract', key: new Uint8Array(32).fill(3) }] })
  const { response } = await keyed.client.POST('/passcodes', { headers: cookie('admin'), body: { name: 'Keyed', expiry: 30 } })
  if (response.status !== 201) throw new Error(`fixture: keyed create: ${response.status}`)
  return managementHost({ store: keyed.store })
}

/** A host whose account already has the maximum of webhook endpoints. */
async function webhooksFullHost(): Promise<ReturnType<typeof managementHost>> {
  const full = managementHost()
  for (let i = 0; i < MAX_WEBHOOK_ENDPOINTS; i++) {
    const { response } = await full.client.POST('/webhooks', {
      headers: cookie('admin'),
      body: { url: `https://93.184.215.14/hooks/${i}`, events: 'all' },
    })
    if (response.status !== 201) throw new Error(`fixture: endpoint ${i}: ${response.status}`)
  }
  return full
}

/** The generated client's `request`, for the cases of any operation (their values are typed in the table). */
type AnyRequest = (method: string, path: string, init: Record<string, unknown>) => Promise<unknown>

const cookie = (caller: string) => ({ cookie: `${SESSION_COOKIE}=${caller}` })

/** The fixture, made as a consumer would: with the generated client's typed calls. */
async function managementFixture(host: ReturnType<typeof managementHost>): Promise<ManagementFixture> {
  const { client, clock, store } = host
  const headers = cookie('admin')
  const create = async (name: string, expiry: number | 'forever', partners?: string[]) => {
    const { data, error } = await client.POST('/passcodes', { headers, body: { name, expiry, ...(partners && { partners }) } })
    if (data === undefined) throw new Error(`fixture: ${JSON.stringify(error)}`)
    return data.passcode.id
  }
  const expired = await create('Expired', 1)
  clock.advance(2 * DAY_MS)
  const acme = await create('Acme sync', 90, ['Acme'])
  const doomed = await create('Doomed', 'forever')
  for (const [userId, days] of [
    ['u_amy', 30],
    ['u_bo', undefined],
    ['u_admin', undefined],
  ] as const) {
    const validity = days === undefined ? ({ type: 'infinite' } as const) : ({ type: 'finite', days } as const)
    const { response } = await client.PUT('/users/{userId}/passcode', { headers, params: { path: { userId } }, body: { validity } })
    if (response.status !== 201) throw new Error(`fixture: grant ${userId}: ${response.status}`)
  }
  const day = new Date(clock.ms).toISOString().slice(0, 10)
  await store.recordUsageCounts!([
    { kind: 'account', accountId: 'acc_1', key: acme, day, partner: 'acme', outcome: 'succeeded', n: 3 },
    { kind: 'account', accountId: 'acc_1', key: acme, day, partner: '', outcome: 'expired', n: 1 },
  ])
  const { data: page } = await client.GET('/audit', { headers, params: { query: { limit: 2 } } })
  if (typeof page?.nextCursor !== 'string') throw new Error('fixture: no second page of the audit trail')
  const hook = async () => {
    const { data, error } = await client.POST('/webhooks', { headers, body: { url: 'https://93.184.215.14/hooks', events: 'all' } })
    if (data === undefined) throw new Error(`fixture: ${JSON.stringify(error)}`)
    return data.endpoint.id
  }
  const [endpoint, doomedEndpoint] = [await hook(), await hook()]
  for (let i = 0; i < 2; i++) await client.POST('/webhooks/{endpointId}/test', { headers, params: { path: { endpointId: endpoint } } })
  const { data: deliveries } = await client.GET('/webhook-deliveries', { headers, params: { query: { limit: 1 } } })
  if (typeof deliveries?.nextCursor !== 'string') throw new Error('fixture: no second page of deliveries')
  return {
    acme,
    doomed,
    expired,
    cursor: page.nextCursor,
    endpoint,
    doomedEndpoint,
    delivery: deliveries.deliveries[0]!.id,
    deliveryCursor: deliveries.nextCursor,
  }
}

interface ManagementRequest {
  readonly operationId: string
  readonly method: string
  readonly path: string
  readonly name: string
  readonly status: number
  readonly init: Record<string, unknown>
  readonly serverRule?: string
  readonly code?: string
  /** Sent to {@link unvouchedTrailHost}'s host. */
  readonly unvouchedTrail?: true
  /** Sent to {@link webhooksFullHost}'s host. */
  readonly webhooksFull?: true
}

/** The request of a case, as the generated client's options. */
function managementRequest(
  operation: { operationId: string; method: string; path: string; lines: boolean },
  one: ManagementCase<unknown>,
  fixture: ManagementFixture,
): ManagementRequest {
  const init: Record<string, unknown> = {
    headers: one.as === 'nobody' ? {} : cookie(one.as ?? 'admin'),
    params: { ...(one.path && { path: one.path(fixture) }), ...(one.query && { query: one.query(fixture) }) },
    // JSON lines are no JSON value: the document says to read them as text.
    ...(operation.lines && { parseAs: 'text' }),
    ...(one.rawQuery !== undefined && { querySerializer: () => one.rawQuery }),
  }
  if (one.body !== undefined || one.invalidBody !== undefined) init.body = one.body ?? one.invalidBody
  return {
    ...operation,
    name: one.name,
    status: one.status,
    init,
    ...(one.serverRule && { serverRule: one.serverRule }),
    ...(one.code && { code: one.code }),
    ...(one.unvouchedTrail && { unvouchedTrail: one.unvouchedTrail }),
    ...(one.webhooksFull && { webhooksFull: one.webhooksFull }),
  }
}

/**
 * The failures any operation can meet, from its first case that succeeds, changed as each
 * needs: sent whether or not the operation documents them, so a status it leaves out is found.
 */
function commonFailures(request: ManagementRequest, operation: Json): ManagementRequest[] {
  const { serverRule: _none, code: _code, unvouchedTrail: _trail, webhooksFull: _full, ...success } = request
  const failure = (status: number, name: string, init: Record<string, unknown>): ManagementRequest => ({
    ...success,
    name,
    status,
    init: { ...success.init, ...init },
  })
  const headers = success.init.headers as Record<string, string>
  const failures = [failure(401, 'no session', { headers: {} }), failure(500, 'the session resolver throws', { headers: cookie('throw') })]
  if (request.method !== 'GET') failures.push(failure(403, 'a cross-site request', { headers: { ...headers, 'Sec-Fetch-Site': 'cross-site' } }))
  if (operation.requestBody !== undefined) {
    failures.push(
      failure(413, 'a body over 16 KiB', { body: { name: 'x'.repeat(20_000) } }),
      failure(415, 'a form body', {
        bodySerializer: () => 'name=Form',
        headers: { ...headers, 'Content-Type': 'application/x-www-form-urlencoded' },
      }),
      failure(400, 'a body that is not JSON', { bodySerializer: () => '{not json' }),
    )
  }
  return failures
}

async function sendManagement(
  host: { client: ManagementClient; recorder: ReturnType<typeof recording> },
  request: ManagementRequest,
): Promise<Exchange> {
  await (host.client.request as unknown as AnyRequest)(request.method.toLowerCase(), request.path, request.init)
  const { request: sent, answer } = host.recorder.take()
  return {
    operationId: request.operationId,
    case: request.name,
    expected: request.status,
    request: sent,
    answer,
    ...(request.serverRule && { serverRule: request.serverRule }),
    ...(request.code && { code: request.code }),
  }
}

describe('docs/management-openapi.json, through a client generated from it', () => {
  const document = JSON.parse(readFileSync(MANAGEMENT_OPENAPI_FILE, 'utf8')) as Json

  it('has cases, a success among them, for every operation', () => {
    expect(uncovered(document, MANAGEMENT_CASES)).toEqual([])
    expect(documentedOperations(document).length).toBeGreaterThanOrEqual(20)
  })

  it('describes every answer to every operation, and its request schemas refuse every request refused with 400 (but on the rules they name)', async () => {
    const checker = openApiChecker(document, '/settings/api')
    const host = managementHost()
    const fixture = await managementFixture(host)
    const failing = managementHost(broken('fail'))
    // The management API has no deadline of its own (the document says so): its 504 is a store's own timeout.
    const timingOut = managementHost(broken('timeout'))
    const unvouched = await unvouchedTrailHost()
    const webhooksFull = await webhooksFullHost()
    const exchanges: Exchange[] = []

    for (const { operationId, method, path, operation } of documentedOperations(document)) {
      const lines = Object.keys((operation.responses as Json)['200']?.content ?? {}).includes('application/x-ndjson')
      const cases = (MANAGEMENT_CASES as Readonly<Record<string, readonly ManagementCase<unknown>[]>>)[operationId] ?? []
      const requests = cases.map((one) => managementRequest({ operationId, method, path, lines }, one, fixture))
      const first = requests.find((request) => request.status < 300 && request.unvouchedTrail === undefined)
      if (first === undefined) continue
      const failures = commonFailures(first, operation)
      // The failures change nothing, so they go first, while every ID of the cases is still there.
      for (const request of failures) exchanges.push(await sendManagement(host, request))
      // A route that reads no store (GET /scopes) documents no 503 or 504.
      if ((operation.responses as Json)['503'] !== undefined) {
        exchanges.push(await sendManagement(failing, { ...first, name: 'the store fails', status: 503 }))
        exchanges.push(await sendManagement(timingOut, { ...first, name: 'the store reports a timeout', status: 504 }))
      }
      for (const request of requests)
        exchanges.push(await sendManagement(request.unvouchedTrail ? unvouched : request.webhooksFull ? webhooksFull : host, request))
    }

    const problems = exchanges.flatMap((exchange) => findings(document, checker, exchange, SERVER_RULES))
    expect(problems).toEqual([])
    expect(unmet(document, exchanges)).toEqual([])
    expect(exchanges.length).toBeGreaterThan(200)
  })

  it('types the answers: a status narrows the error codes, the export is read as text or as the array of its lines', async () => {
    const host = managementHost()
    const headers = cookie('admin')
    const { data, error } = await host.client.POST('/passcodes', { headers, body: { name: 'Typed', expiry: 7 } })
    expect(error).toBeUndefined()
    expect(data?.passcode.name).toBe('Typed')
    const duplicate = await host.client.POST('/passcodes', { headers, body: { name: 'typed', expiry: 7 } })
    // The error of a status has that status's codes only.
    type ConflictCode = ManagementOperations['createPasscode']['responses'][409]['content']['application/json']['error']['code']
    // @ts-expect-error ERR_FORBIDDEN is a 403's code, not a 409's
    const forbidden: ConflictCode = 'ERR_FORBIDDEN'
    expect(forbidden).toBe('ERR_FORBIDDEN')
    expect(duplicate.response.status).toBe(409)
    const conflict: ConflictCode | undefined = duplicate.response.status === 409 ? (duplicate.error?.error.code as ConflictCode) : undefined
    expect(conflict).toBe('ERR_DUPLICATE_NAME')
    await host.client.POST('/passcodes', { headers, body: { name: 'Typed too', expiry: 7 } })
    // openapi-fetch parses a body as one JSON value unless told otherwise: JSON lines are not one.
    await expect(host.client.GET('/audit/export', { headers })).rejects.toThrow(SyntaxError)
    const exported = await host.client.GET('/audit/export', { headers, parseAs: 'text' })
    const text: string | undefined = exported.data
    expect(
      text
        ?.split('\n')
        .filter(Boolean)
        .map((line) => (JSON.parse(line) as { action: string }).action),
    ).toEqual(['passcode.created', 'passcode.created'])
    // Or the client reads JSON lines as the array the document's schema describes, and its data is typed so.
    host.client.use(jsonLinesAsArray)
    const { data: lines } = await host.client.GET('/audit/export', { headers })
    const records: ManagementComponents['schemas']['AuditExportLine'][] | undefined = lines
    expect(records?.map((record) => [record.action, record.target.type])).toEqual([
      ['passcode.created', 'passcode'],
      ['passcode.created', 'passcode'],
    ])
  })
})

/** An openapi-fetch middleware that turns a JSON-lines answer into the JSON array of its lines (OpenAPI 3.2's reading of them). */
const jsonLinesAsArray: Middleware = {
  async onResponse({ response }) {
    if (response.headers.get('content-type')?.startsWith('application/x-ndjson') !== true) return undefined
    const lines = (await response.text())
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as unknown)
    const headers = new Headers(response.headers)
    headers.set('content-type', 'application/json')
    return new Response(JSON.stringify(lines), { status: response.status, headers })
  },
}

// --- GET /v1/connect -----------------------------------------------------------------

const PAGE = 'https://partner.example'

function connectHost(options: { store?: PasscodeStore; partners?: PartnerRegistry; timeoutMs?: number } = {}) {
  const { auth, clock } = setup({
    partners: options.partners ?? ['Acme'],
    rateLimit: { maxFailuresPerAddress: 3, maxFailuresPerAccount: false },
    ...(options.store && { store: options.store }),
    ...(options.timeoutMs && { timeoutMs: options.timeoutMs }),
  })
  let address = 0
  let limited = false
  const plain = connectHandler(auth)
  const cors = connectHandler(auth, { cors: { origins: [PAGE] } })
  // Each request from its own address, so the limiter stops only the one the fixture made it stop.
  const recorder = recording((request) => {
    address++
    const from = limited ? '198.18.255.255' : `198.18.${address >> 8}.${address & 255}`
    return (request.headers.has('origin') ? cors : plain)(request, from)
  })
  const client = createClient<ConnectPaths>({ baseUrl: 'http://api.example', fetch: recorder.fetch })
  return {
    auth,
    clock,
    client,
    recorder,
    plain,
    /** Sends the next requests from the address the limiter stops. */
    fromLimited(on: boolean) {
      limited = on
    },
  }
}

async function connectFixture(host: ReturnType<typeof connectHost>): Promise<ConnectFixture> {
  const { auth, clock } = host
  const admin = { userId: 'u_admin', role: 'admin' } as const
  const credentials = (value: string) => ({ 'X-Service-Account-Id': 'acc_1', 'X-Service-Passcode': value })
  const { value: expired } = await auth.passcodes.create(admin, 'acc_1', { name: 'Expired', expiry: 1 })
  clock.advance(2 * DAY_MS)
  const { value } = await auth.passcodes.create(admin, 'acc_1', { name: 'Valid', expiry: 90 })
  const { value: expiring } = await auth.passcodes.create(admin, 'acc_1', { name: 'Expiring', expiry: 20 })
  const wrong = `${value.slice(0, -1)}${value.endsWith('x') ? 'y' : 'x'}`
  return { valid: credentials(value), expiring: credentials(expiring), expired: credentials(expired), wrong: credentials(wrong) }
}

async function sendConnect(
  host: ReturnType<typeof connectHost>,
  operationId: string,
  method: string,
  one: ConnectCase,
  fixture: ConnectFixture,
): Promise<Exchange> {
  const header = {
    ...one.credentials?.(fixture),
    ...(one.origin !== undefined && { Origin: one.origin }),
    ...(one.requestMethod !== undefined && { 'Access-Control-Request-Method': one.requestMethod }),
  }
  const init = {
    params: { header, ...(one.partner !== undefined && { query: { partner: one.partner } }) },
    ...(one.rawQuery !== undefined && { querySerializer: () => one.rawQuery }),
  }
  host.fromLimited(one.limited === true)
  await (host.client.request as unknown as AnyRequest)(method.toLowerCase(), '/v1/connect', init)
  host.fromLimited(false)
  const { request, answer } = host.recorder.take()
  return { operationId, case: one.name, expected: one.status, request, answer, ...(one.serverRule && { serverRule: one.serverRule }) }
}

describe('docs/openapi.json, through a client generated from it', () => {
  const document = JSON.parse(readFileSync(OPENAPI_FILE, 'utf8')) as Json

  it('has cases, a success among them, for every operation', () => {
    expect(uncovered(document, CONNECT_CASES)).toEqual([])
  })

  it('describes every answer to GET, HEAD and OPTIONS, and the 405 of every other method', async () => {
    const checker = openApiChecker(document, '')
    const host = connectHost()
    const fixture = await connectFixture(host)
    const failing = connectHost({ ...broken('fail') })
    const hanging = connectHost({ ...broken('hang'), timeoutMs: 50 })
    // The limiter stops an address after 3 failures (400 or 401) in its window.
    for (let attempt = 0; attempt < 3; attempt++) {
      host.fromLimited(true)
      await host.client.GET('/v1/connect', { params: { query: { partner: 'Acme' }, header: fixture.wrong } })
      host.fromLimited(false)
      expect(host.recorder.take().answer.status).toBe(400)
    }
    const exchanges: Exchange[] = []
    for (const { operationId, method } of documentedOperations(document)) {
      const cases = (CONNECT_CASES as Readonly<Record<string, readonly ConnectCase[]>>)[operationId] ?? []
      for (const one of cases) exchanges.push(await sendConnect(host, operationId, method, one, fixture))
      const first = cases[0]
      if (first?.status !== 200) continue
      exchanges.push(await sendConnect(failing, operationId, method, { ...first, status: 503, name: 'the store fails' }, fixture))
      exchanges.push(await sendConnect(hanging, operationId, method, { ...first, status: 504, name: 'the store does not answer' }, fixture))
    }

    const problems = exchanges.flatMap((exchange) => findings(document, checker, exchange, CONNECT_SERVER_RULES))
    // Methods OpenAPI 3.1 has no operation for (or that the document leaves out): the 405 it describes for them.
    for (const method of ['POST', 'PUT', 'DELETE', 'PATCH', 'PROPFIND', 'QUERY']) {
      for (const origin of [undefined, PAGE]) {
        const handler = connectHandler(host.auth, { cors: { origins: [PAGE] } })
        const response = await handler(
          new Request('http://api.example/v1/connect?partner=Acme', { method, headers: { ...fixture.valid, ...(origin && { origin }) } }),
          '198.18.250.1',
        )
        const answer = { status: response.status, headers: response.headers, body: await response.text() }
        problems.push(
          ...checker.responseMismatches({ $ref: '#/components/responses/MethodNotAllowed' }, answer).map((problem) => `${method}: ${problem}`),
        )
        if (answer.status !== 405) problems.push(`${method}: answered ${answer.status}`)
      }
    }
    expect(problems).toEqual([])
    expect(unmet(document, exchanges)).toEqual([])
  })

  it('types the credential headers: a call without them does not compile', async () => {
    const host = connectHost()
    const fixture = await connectFixture(host)
    const { data } = await host.client.GET('/v1/connect', { params: { query: { partner: 'Acme' }, header: fixture.valid } })
    expect(data).toEqual({ status: 'success', message: 'Authorised Successfully.' })
    // @ts-expect-error the generated client requires X-Service-Account-Id and X-Service-Passcode
    const { error } = await host.client.GET('/v1/connect', { params: { query: { partner: 'Acme' } } })
    expect(error).toEqual({ status: 'fail', error: 'Invalid Credentials', code: 400 })
  })
})

describe('the generated client types (test/docs/openapi-types/)', () => {
  it.each(CLIENT_TYPES.map(({ document, types }) => [types.slice(types.lastIndexOf('/test/') + 1), document, types] as const))(
    '%s is what openapi-typescript generates from the committed document (`npm run openapi`)',
    async (_name, document, types) => {
      expect(readFileSync(types, 'utf8')).toBe(await clientTypesText(document))
    },
  )
})
