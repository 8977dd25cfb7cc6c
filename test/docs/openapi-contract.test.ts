import { readFileSync } from 'node:fs'
import { z } from 'zod'
import { describe, expect, it } from 'vitest'
import { MANAGEMENT_OPENAPI_FILE } from '../../scripts/management-openapi'
import { OPENAPI_FILE } from '../../scripts/openapi'
import { createManagementApi, type DashboardSession, type SessionResult } from '../../src/dashboard/index'
import { connectHandler } from '../../src/fetch/index'
import { memoryStore } from '../../src/memory'
import { admin, member, setup } from '../helpers/service'

/**
 * The committed OpenAPI documents as a contract: requests are replayed in process
 * against the management API and `GET /v1/connect`, and every answer must be one the
 * document describes, for that path, method and status, with a body its schema accepts
 * (the document's own JSON Schema, read back with `z.fromJSONSchema`, not the zod
 * schemas it was generated from) and the headers it marks required. Each operation's
 * success is replayed at least once.
 */

type Json = Record<string, any>

interface Answer {
  readonly status: number
  readonly body: string
  readonly header: (lowerCaseName: string) => string | null | undefined
}

function contract(file: string) {
  const document = JSON.parse(readFileSync(file, 'utf8')) as Json
  // fromJSONSchema resolves references under $defs only.
  const local = (schema: unknown) => JSON.parse(JSON.stringify(schema).replaceAll('"#/components/schemas/', '"#/$defs/'))
  const $defs = local(document.components.schemas)
  const templates = Object.keys(document.paths as Json).map((path) => ({
    path,
    pattern: new RegExp(`^${path.replace(/\{[^}]+\}/g, '[^/]*')}$`),
  }))
  const replayed = new Set<string>()

  return {
    /** Checks one answer against the document. */
    check(method: string, path: string, answer: Answer): void {
      const template = templates.find(({ pattern }) => pattern.test(path))?.path
      expect(template, `${path} is a documented path`).toBeDefined()
      const operation = document.paths[template!][method.toLowerCase()] as Json | undefined
      expect(operation, `${method} ${template} is documented`).toBeDefined()
      const response = operation!.responses[String(answer.status)] as Json | undefined
      expect(response, `${method} ${template} documents ${answer.status}: ${answer.body}`).toBeDefined()
      replayed.add(`${method} ${template} ${answer.status}`)
      for (const [name, header] of Object.entries((response!.headers ?? {}) as Json)) {
        if (header.required === true) expect(answer.header(name.toLowerCase()), `${method} ${template} ${answer.status} header ${name}`).toBeTruthy()
      }
      const content = response!.content as Json | undefined
      if (content === undefined) {
        expect(answer.body, `${method} ${template} ${answer.status} has no body`).toBe('')
        return
      }
      const media = content['application/json'] as Json | undefined
      if (media === undefined) {
        // A body that is not JSON (JSON lines): its media type is the documented one.
        expect(Object.keys(content).map((type) => answer.header('content-type')?.startsWith(`${type};`))).toContain(true)
        return
      }
      const result = z.fromJSONSchema({ ...local(media.schema), $defs }).safeParse(JSON.parse(answer.body))
      expect(result.success, `${method} ${path} ${answer.status} ${answer.body}\n${result.error?.message}`).toBe(true)
    },
    /** Operations whose 2xx answer no replay has produced. */
    untriedSuccesses(): string[] {
      return Object.entries(document.paths as Json).flatMap(([path, item]) =>
        Object.entries(item as Json)
          .filter(([method]) => method !== 'parameters')
          .flatMap(([method, operation]) =>
            Object.keys((operation as Json).responses)
              .filter((status) => status.startsWith('2'))
              .map((status) => `${method.toUpperCase()} ${path} ${status}`)
              .filter((key) => !replayed.has(key)),
          ),
      )
    },
  }
}

describe('docs/management-openapi.json as a contract', () => {
  it('describes every answer of a replayed session, success and failure', async () => {
    const documented = contract(MANAGEMENT_OPENAPI_FILE)
    let failing = false
    const base = memoryStore()
    // A store whose calls can be made to fail, for the 503.
    const store = new Proxy(base, {
      get(target, property, receiver) {
        const value = Reflect.get(target, property, receiver)
        if (typeof value !== 'function') return value
        return (...args: unknown[]) =>
          failing ? Promise.reject(new Error('connection refused')) : (value as (...a: unknown[]) => unknown).apply(target, args)
      },
    })
    const { auth } = setup({ store, partners: ['acme', 'globex'] })
    const api = createManagementApi(auth, { users: () => [{ id: 'u_amy', name: 'Amy Example', email: 'amy@example.test' }, { id: 'u_admin' }] })
    const sessions: Readonly<Record<string, DashboardSession>> = {
      admin: { accountId: 'acc_1', actor: admin },
      member: { accountId: 'acc_1', actor: member },
    }

    async function send(
      expected: number,
      method: string,
      path: string,
      options: { session?: string | null; body?: unknown; raw?: string; type?: string; throwing?: boolean } = {},
    ): Promise<Json | undefined> {
      const text = options.raw ?? (options.body === undefined ? undefined : JSON.stringify(options.body))
      const headers: Record<string, string> = {
        host: 'app.example',
        ...(text === undefined ? {} : { 'content-type': options.type ?? 'application/json' }),
      }
      const [route = path, query] = path.split('?', 2)
      const answer = await api.handle(
        {
          method,
          path: route,
          ...(query !== undefined && { query }),
          header: (name) => headers[name],
          body: async () => (text === undefined ? undefined : { text }),
        },
        (): SessionResult => {
          if (options.throwing === true) throw new Error('session store down')
          return options.session === null ? undefined : sessions[options.session ?? 'admin']
        },
      )
      expect(answer.statusCode, `${method} ${path}: ${answer.body}`).toBe(expected)
      documented.check(method, route, { status: answer.statusCode, body: answer.body, header: (name) => answer.headers[name] })
      return answer.body === '' || !answer.headers['content-type']!.startsWith('application/json') ? undefined : (JSON.parse(answer.body) as Json)
    }

    const created = await send(201, 'POST', '/passcodes', { body: { name: 'Acme', expiry: 90, partners: ['Acme'] } })
    const id = created!.passcode.id as string
    await send(201, 'POST', '/passcodes', { body: { name: 'Forever', expiry: 'forever' } })
    await send(200, 'GET', '/passcodes')
    await send(200, 'PATCH', `/passcodes/${id}`, { body: { name: 'Acme Corp', partners: null } })
    await send(201, 'POST', `/passcodes/${id}/rotate`, { body: { overlapMinutes: 60 } })
    // Counts as a usage flush writes them, for a day with a partner (SPEC §5.41).
    const day = new Date(Date.UTC(2026, 0, 1)).toISOString().slice(0, 10)
    await base.recordUsageCounts!([
      { kind: 'account', accountId: 'acc_1', key: id, day, partner: '', outcome: 'succeeded', n: 2 },
      { kind: 'account', accountId: 'acc_1', key: id, day, partner: 'acme', outcome: 'succeeded', n: 3 },
      { kind: 'account', accountId: 'acc_1', key: id, day, partner: '', outcome: 'expired', n: 1 },
    ])
    const usage = await send(200, 'GET', `/passcodes/${id}/usage`, { session: 'member' })
    expect(usage!.usage.days).toEqual([
      {
        date: day,
        succeeded: 5,
        expired: 1,
        disabled: 0,
        revoked: 0,
        wrongPartner: 0,
        rotatedOut: 0,
        partners: [{ partner: 'acme', succeeded: 3, wrongPartner: 0 }],
      },
    ])
    await send(200, 'POST', `/passcodes/${id}/disable`)
    await send(200, 'POST', `/passcodes/${id}/enable`)
    await send(201, 'PUT', '/users/u_amy/passcode', { body: { validity: { type: 'finite', days: 30 } } })
    await send(201, 'PUT', '/users/u_admin/passcode', { body: { validity: { type: 'infinite' } } })
    await send(200, 'GET', '/users')
    await send(200, 'GET', '/users/u_amy/passcode')
    await send(200, 'POST', '/users/u_amy/passcode/reset')
    await send(200, 'GET', '/users/u_amy/passcode/usage', { session: 'member' })
    await send(200, 'GET', '/me/passcode')
    await send(200, 'GET', '/account')
    await send(200, 'PUT', '/account', { body: { acceptedPasscodes: 'both' } })
    await send(200, 'GET', '/partners')
    await send(204, 'DELETE', '/users/u_amy/passcode')
    await send(200, 'GET', '/users')
    const audit = await send(200, 'GET', '/audit?limit=2&action=passcode.created&action=passcode.rotated')
    await send(200, 'GET', `/audit?cursor=${encodeURIComponent(audit!.nextCursor as string)}&actor=u_admin`)
    await send(200, 'GET', '/audit/export?action=passcode.rotated')

    // Failures: each status an operation documents, from the cause it names.
    await send(400, 'POST', '/passcodes', { body: { name: 'Acme Corp', expiry: 0 } })
    await send(400, 'POST', '/passcodes', { raw: '{not json' })
    await send(400, 'GET', '/users/%20/passcode') // on userId
    await send(400, 'GET', '/audit?limit=0') // on limit
    await send(400, 'GET', '/audit/export?from=yesterday') // on from
    await send(401, 'GET', '/passcodes', { session: null })
    await send(403, 'PUT', '/users/u_amy/passcode', { session: 'member', body: { validity: { type: 'infinite' } } })
    await send(403, 'POST', '/passcodes', { session: 'member', body: { name: 'No', expiry: 1 } })
    await send(403, 'GET', '/audit', { session: 'member' })
    await send(403, 'GET', '/audit/export', { session: 'member' })
    await send(404, 'PATCH', '/passcodes/nope', { body: { name: 'X' } })
    await send(404, 'GET', '/users/u_nobody/passcode')
    await send(404, 'GET', '/passcodes/nope/usage')
    await send(404, 'GET', '/users/u_nobody/passcode/usage')
    await send(404, 'GET', '/me/passcode', { session: 'member' })
    await send(409, 'POST', '/passcodes', { body: { name: 'acme corp', expiry: 1 } })
    await send(409, 'PUT', '/users/u_admin/passcode', { body: { validity: { type: 'infinite' } } })
    await send(413, 'POST', '/passcodes', { raw: JSON.stringify({ name: 'x'.repeat(20_000), expiry: 1 }) })
    await send(415, 'POST', '/passcodes', { raw: 'name=Acme', type: 'application/x-www-form-urlencoded' })
    await send(500, 'GET', '/account', { throwing: true })
    failing = true
    await send(503, 'GET', '/passcodes')
    failing = false
    await send(204, 'DELETE', `/passcodes/${id}`)

    expect(documented.untriedSuccesses()).toEqual([])
  })
})

describe('docs/openapi.json as a contract', () => {
  const ANY = 0

  it('describes every answer of GET /v1/connect', async () => {
    const documented = contract(OPENAPI_FILE)
    const { auth, clock } = setup({ partners: ['Acme'], rateLimit: { maxFailuresPerAddress: 3, maxFailuresPerAccount: false } })
    const connect = connectHandler(auth)
    const { value } = await auth.passcodes.create(admin, 'acc_1', { name: 'A', expiry: 10 })
    const { value: expiring } = await auth.passcodes.create(admin, 'acc_1', { name: 'B', expiry: 1 })

    async function send(expected: number, query: string, credentials: readonly [string, string] | undefined, address = '192.0.2.1'): Promise<number> {
      const headers: Record<string, string> =
        credentials === undefined ? {} : { 'x-service-account-id': credentials[0], 'x-service-passcode': credentials[1] }
      const response = await connect(new Request(`http://api.example/v1/connect${query}`, { headers }), address)
      const body = await response.text()
      if (expected !== ANY) expect(response.status, `${query}: ${body}`).toBe(expected)
      documented.check('GET', '/v1/connect', { status: response.status, body, header: (name) => response.headers.get(name) })
      return response.status
    }

    await send(200, '?partner=Acme', ['acc_1', value]) // with Sunset: 10 days left
    await send(400, '?partner=Acme', ['acc_1', 'wrong'], '192.0.2.2')
    await send(400, '?partner=Acme', undefined, '192.0.2.2') // no headers
    await send(400, '', ['acc_1', value]) // Missing partner
    await send(403, '?partner=Globex', ['acc_1', value])
    clock.advance(2 * 86_400_000)
    await send(401, '?partner=Acme', ['acc_1', expiring], '192.0.2.3')
    let status = 0
    for (let failures = 0; failures < 5 && status !== 429; failures++) status = await send(ANY, '?partner=Acme', ['acc_1', 'wrong'], '192.0.2.2')
    expect(status, 'the limiter answers 429 past 3 failures').toBe(429)
    expect(documented.untriedSuccesses()).toEqual([])
  })
})
