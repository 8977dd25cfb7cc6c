import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { createPasscodeAuth, PASSCODE_PATTERN, type AuditEvent, type PasscodeAuth } from '../../src/index'
import { memoryStore } from '../../src/memory'
import type { DashboardSession, DirectoryUser, SessionResult } from '../../src/dashboard/index'
import { manualClock, TEST_KEY } from '../helpers/service'
import type { RunningApp } from './http'

/**
 * The management API conformance suite (SPEC §5.29, §5.31): one set of cases that
 * every mount (Express, Fastify, Koa, Hono, fetch, Node's `http`) answers the same way, over a real
 * socket. The host's session is simulated by an `x-test-session` header naming one of
 * {@link SESSIONS}; the mounts never see anything else that says who is calling.
 */

/** The sessions a test request may name with `x-test-session`. */
export const SESSIONS: Readonly<Record<string, DashboardSession>> = {
  admin: { accountId: 'acc_1', actor: { userId: 'u_admin', role: 'admin' } },
  writer: { accountId: 'acc_1', actor: { userId: 'u_writer', role: 'member', canWriteUserSettings: true } },
  member: { accountId: 'acc_1', actor: { userId: 'u_member', role: 'member' } },
  other: { accountId: 'acc_2', actor: { userId: 'u_other', role: 'admin' } },
  broken: { accountId: 'acc_1', actor: { userId: 'has space', role: 'admin' } },
  // An account of its own for the audit trail's cases, so that the others' actions are not in it.
  ana: { accountId: 'acc_audit', actor: { userId: 'u_ana', role: 'admin' } },
  bo: { accountId: 'acc_audit', actor: { userId: 'u_bo', role: 'admin' } },
  mo: { accountId: 'acc_audit', actor: { userId: 'u_mo', role: 'member', canWriteUserSettings: true } },
}

/** What a mount needs to serve the suite. */
export interface ManagementMountOptions {
  /** Resolves a session from request headers, as a host resolves its cookie. */
  readonly session: (header: (name: string) => string | undefined) => SessionResult | Promise<SessionResult>
  readonly users?: (accountId: string) => readonly DirectoryUser[] | Promise<readonly DirectoryUser[]>
  readonly trustedOrigins?: readonly string[]
}

/** A framework serving the dashboard at `/settings`. */
export interface ManagementTarget {
  readonly name: string
  start(auth: PasscodeAuth, options: ManagementMountOptions): Promise<RunningApp>
}

/** The session from the test header; `throw` makes the resolver throw. */
export function sessionFromHeader(header: (name: string) => string | undefined): SessionResult {
  const name = header('x-test-session')
  if (name === 'throw') throw new Error('session store down: secret-internal-detail')
  return name === undefined ? undefined : SESSIONS[name]
}

const DIRECTORY: Readonly<Record<string, readonly DirectoryUser[]>> = {
  acc_1: [
    { id: 'u_amy', name: 'Amy Example', email: 'amy@example.test' },
    { id: 'u_member', name: 'Mo Member' },
  ],
}

interface Sent {
  readonly status: number
  readonly headers: Headers
  readonly text: string
  readonly json: any
}

export function describeManagementConformance(targets: readonly ManagementTarget[]): void {
  describe.each(targets)('SPEC 5.29 management API on $name', (target) => {
    let app: RunningApp
    let failing: 'none' | 'throw' = 'none'
    const events: AuditEvent[] = []
    const clock = manualClock(Date.UTC(2026, 0, 1))
    const base = memoryStore()
    // A store whose reads can be made to fail, for the 503 case.
    const store = new Proxy(base, {
      get(target, property, receiver) {
        const value = Reflect.get(target, property, receiver)
        if (typeof value !== 'function') return value
        return (...args: unknown[]) => {
          if (failing === 'throw') return Promise.reject(new Error('connection refused: secret-internal-detail'))
          return (value as (...a: unknown[]) => unknown).apply(target, args)
        }
      },
    })
    const auth = createPasscodeAuth({
      store,
      partners: ['acme', 'globex'],
      clock,
      encryptionKeys: [{ id: 'k1', key: TEST_KEY }],
      onEvent: (event) => {
        events.push(event)
      },
    })
    const keyless = createPasscodeAuth({ store: memoryStore(), clock })
    let keylessApp: RunningApp
    let origin: string

    beforeAll(async () => {
      app = await target.start(auth, { session: sessionFromHeader, users: (accountId) => DIRECTORY[accountId] ?? [] })
      keylessApp = await target.start(keyless, { session: sessionFromHeader })
      origin = `http://127.0.0.1:${app.port}`
    })
    afterAll(async () => {
      await app?.close()
      await keylessApp?.close()
    })
    afterEach(() => {
      failing = 'none'
    })

    async function send(
      method: string,
      path: string,
      options: { session?: string; body?: unknown; raw?: string; headers?: Record<string, string>; port?: number } = {},
    ): Promise<Sent> {
      const headers: Record<string, string> = { ...(options.session === undefined ? {} : { 'x-test-session': options.session }) }
      let body: string | undefined
      if (options.raw !== undefined) body = options.raw
      else if (options.body !== undefined && method !== 'GET') {
        body = JSON.stringify(options.body)
        headers['content-type'] = 'application/json'
      }
      Object.assign(headers, options.headers)
      const response = await fetch(`http://127.0.0.1:${options.port ?? app.port}/settings/api${path}`, {
        method,
        headers,
        ...(body === undefined ? {} : { body }),
      })
      const text = await response.text()
      let json: unknown
      try {
        json = text === '' ? undefined : JSON.parse(text)
      } catch {
        json = undefined
      }
      return { status: response.status, headers: response.headers, text, json }
    }
    const errorOf = (sent: Sent) => sent.json?.error
    const create = async (name: string, expiry: number | 'forever' = 90, session = 'admin') => {
      const sent = await send('POST', '/passcodes', { session, body: { name, expiry } })
      expect(sent.status, sent.text).toBe(201)
      return sent.json as { passcode: { id: string; name: string; hint: string }; value: string }
    }

    describe('sessions come from the host resolver only', () => {
      it('answers 401 ERR_UNAUTHENTICATED without a session, on reads and writes alike', async () => {
        for (const [method, path] of [
          ['GET', '/passcodes'],
          ['POST', '/passcodes'],
          ['GET', '/me/passcode'],
          ['PUT', '/account'],
        ] as const) {
          const sent = await send(method, path, { body: {} })
          expect(sent.status, `${method} ${path}`).toBe(401)
          expect(sent.json).toEqual({ error: { code: 'ERR_UNAUTHENTICATED', message: 'Sign in first' } })
          expect(sent.headers.get('cache-control')).toBe('no-store')
        }
      })

      it('ignores an account or user named in the URL, query or body', async () => {
        const { passcode } = await create('Scoped')
        const sent = await send('GET', '/passcodes?accountId=acc_2', { session: 'admin', headers: { 'x-service-account-id': 'acc_2' } })
        expect(sent.json.passcodes.map((p: { id: string }) => p.id)).toContain(passcode.id)
        const other = await send('GET', '/passcodes', { session: 'other' })
        expect(other.json.passcodes).toEqual([])
        const smuggled = await send('POST', '/passcodes', { session: 'other', body: { name: 'X', expiry: 1, accountId: 'acc_1' } })
        expect(smuggled.status).toBe(400)
        expect(errorOf(smuggled)).toMatchObject({ code: 'ERR_INVALID_INPUT' })
      })

      it('answers 500 without internals when the resolver throws or returns a malformed session', async () => {
        const thrown = await send('GET', '/passcodes', { session: 'throw' })
        expect(thrown.status).toBe(500)
        expect(thrown.json).toEqual({ error: { code: 'ERR_INTERNAL', message: 'Internal error' } })
        const broken = await send('GET', '/passcodes', { session: 'broken' })
        expect(broken.status).toBe(500)
        expect(errorOf(broken).code).toBe('ERR_CONFIGURATION')
        for (const sent of [thrown, broken]) {
          expect(sent.text).not.toMatch(/secret-internal-detail|at .*\.ts|stack/i)
        }
      })
    })

    describe('account passcodes', () => {
      it('creates with 201 {passcode, value}, no-store, and the value appears in no later answer or event', async () => {
        const sent = await send('POST', '/passcodes', { session: 'admin', body: { name: 'Partner A', expiry: 90 } })
        expect(sent.status).toBe(201)
        expect(sent.headers.get('cache-control')).toBe('no-store')
        expect(sent.headers.get('content-type')).toBe('application/json; charset=utf-8')
        const { passcode, value } = sent.json
        expect(value).toMatch(new RegExp(`^${PASSCODE_PATTERN.source}$`))
        expect(passcode).toMatchObject({ name: 'Partner A', status: 'active', expiry: 90, accountId: 'acc_1' })
        expect(passcode).not.toHaveProperty('value')
        const outcome = await auth.authenticate({ accountId: 'acc_1', passcode: value })
        expect(outcome.ok).toBe(true)
        const list = await send('GET', '/passcodes', { session: 'member' })
        expect(list.status).toBe(200)
        expect(list.text).not.toContain(value)
        const edited = await send('PATCH', `/passcodes/${passcode.id}`, { session: 'admin', body: { name: 'Partner A2' } })
        expect(edited.text).not.toContain(value)
        expect(JSON.stringify(events)).not.toContain(value)
      })

      it('SPEC 5.51: filters the list by tags (repeated: every one) and search from the query string; a bad tag is a 400 naming it', async () => {
        for (const [name, tags, description] of [
          ['Tagged export', ['billing', 'nightly'], ''],
          ['Tagged other', ['billing'], 'For ACME support'],
        ] as const) {
          expect((await send('POST', '/passcodes', { session: 'admin', body: { name, expiry: 30, tags, description } })).status).toBe(201)
        }
        const names = async (query: string) => {
          const sent = await send('GET', `/passcodes${query}`, { session: 'member' })
          expect(sent.status, query).toBe(200)
          return (sent.json.passcodes as { name: string }[])
            .map((p) => p.name)
            .filter((name) => name.startsWith('Tagged'))
            .sort()
        }
        expect(await names('?tags=billing')).toEqual(['Tagged export', 'Tagged other'])
        expect(await names('?tags=billing&tags=nightly')).toEqual(['Tagged export'])
        expect(await names('?search=acme')).toEqual(['Tagged other'])
        expect(await names('?search=TAGGED%20EXPORT&tags=billing')).toEqual(['Tagged export'])
        const bad = await send('GET', `/passcodes?tags=${'t'.repeat(33)}`, { session: 'member' })
        expect(bad.status).toBe(400)
        expect(errorOf(bad)).toMatchObject({ code: 'ERR_INVALID_INPUT', field: 'tags' })
        // Tags the query's schema takes and the service's tag rule refuses: named by the query parameter, not the service's `options`.
        for (const tag of ['a%20b', '-x']) {
          const refused = await send('GET', `/passcodes?tags=billing&tags=${tag}`, { session: 'member' })
          expect([refused.status, errorOf(refused)], tag).toEqual([400, expect.objectContaining({ code: 'ERR_INVALID_INPUT', field: 'tags.1' })])
          expect(errorOf(refused).message, tag).toMatch(/^Invalid tags\.1: /)
        }
        const twice = await send('GET', '/passcodes?search=a&search=b', { session: 'member' })
        expect([twice.status, errorOf(twice)]).toEqual([400, expect.objectContaining({ code: 'ERR_INVALID_INPUT', field: 'search' })])
      })

      it('edits with 200 and the new view, deletes with 204 and an empty body; then 404', async () => {
        const { passcode, value } = await create('Editable', 10)
        const edited = await send('PATCH', `/passcodes/${passcode.id}`, { session: 'writer', body: { name: 'Edited', expiry: 'forever' } })
        expect(edited.status).toBe(200)
        expect(edited.json.passcode).toMatchObject({ id: passcode.id, name: 'Edited', expiry: 'forever', expiresAt: null })
        const deleted = await send('DELETE', `/passcodes/${passcode.id}`, { session: 'writer' })
        expect(deleted.status).toBe(204)
        expect(deleted.text).toBe('')
        expect((await auth.authenticate({ accountId: 'acc_1', passcode: value })).ok).toBe(false)
        const again = await send('DELETE', `/passcodes/${passcode.id}`, { session: 'admin' })
        expect(again.status).toBe(404)
        expect(errorOf(again).code).toBe('ERR_NOT_FOUND')
      })

      it("answers 404, never 403, for another account's passcode id", async () => {
        const { passcode } = await create('Theirs', 30, 'other')
        for (const [method, path, body] of [
          ['PATCH', `/passcodes/${passcode.id}`, { name: 'Mine now' }],
          ['DELETE', `/passcodes/${passcode.id}`, undefined],
        ] as const) {
          const sent = await send(method, path, { session: 'admin', body })
          expect(sent.status, method).toBe(404)
          expect(errorOf(sent)).toEqual({ code: 'ERR_NOT_FOUND', message: 'No such passcode in this account' })
        }
        expect((await auth.passcodes.list(SESSIONS.other!.actor, 'acc_2')).map((p) => p.name)).toEqual(['Theirs'])
      })

      it('lets any member list (no values) and only admins and User Settings writers change: 403 otherwise', async () => {
        const { passcode } = await create('Guarded')
        expect((await send('GET', '/passcodes', { session: 'member' })).status).toBe(200)
        for (const [method, path, body] of [
          ['POST', '/passcodes', { name: 'Nope', expiry: 1 }],
          ['PATCH', `/passcodes/${passcode.id}`, { name: 'Nope' }],
          ['DELETE', `/passcodes/${passcode.id}`, undefined],
        ] as const) {
          const sent = await send(method, path, { session: 'member', body })
          expect(sent.status, method).toBe(403)
          expect(errorOf(sent).code).toBe('ERR_FORBIDDEN')
        }
      })

      it('answers 400 with the field at fault, and 409 for a duplicate name', async () => {
        const cases: [unknown, string][] = [
          [{ name: 'Zero', expiry: 0 }, 'expiry'],
          [{ name: '', expiry: 5 }, 'name'],
          [{ expiry: 5 }, 'name'],
          [{ name: 'Days', expiry: '5' }, 'expiry'],
        ]
        for (const [body, field] of cases) {
          const sent = await send('POST', '/passcodes', { session: 'admin', body })
          expect(sent.status, JSON.stringify(body)).toBe(400)
          expect(errorOf(sent)).toMatchObject({ code: 'ERR_INVALID_INPUT', field })
        }
        await create('Twin')
        const duplicate = await send('POST', '/passcodes', { session: 'admin', body: { name: 'twin', expiry: 5 } })
        expect(duplicate.status).toBe(409)
        expect(errorOf(duplicate)).toEqual({ code: 'ERR_DUPLICATE_NAME', message: 'A passcode named "twin" already exists in this account' })
      })

      it('refuses to reactivate an expired passcode with 409', async () => {
        const { passcode } = await create('Short', 1)
        clock.advance(2 * 86_400_000)
        const sent = await send('PATCH', `/passcodes/${passcode.id}`, { session: 'admin', body: { expiry: 30 } })
        expect(sent.status).toBe(409)
        expect(errorOf(sent).code).toBe('ERR_REACTIVATION_REFUSED')
      })

      it('rotates with 201 {passcode, value}, no-store: same id and name, a new value; 403, 404 and 400 as for the rest', async () => {
        const { passcode, value } = await create('Rotated')
        const sent = await send('POST', `/passcodes/${passcode.id}/rotate`, { session: 'writer', body: { overlapMinutes: 0 } })
        expect(sent.status).toBe(201)
        expect(sent.headers.get('cache-control')).toBe('no-store')
        expect(sent.json.passcode).toMatchObject({ id: passcode.id, name: 'Rotated' })
        expect(sent.json.value).toMatch(new RegExp(`^${PASSCODE_PATTERN.source}$`))
        expect(sent.json.value).not.toBe(value)
        expect((await auth.authenticate({ accountId: 'acc_1', passcode: sent.json.value })).ok).toBe(true)
        expect((await auth.authenticate({ accountId: 'acc_1', passcode: value })).ok).toBe(false)
        expect(JSON.stringify(events)).not.toContain(sent.json.value)

        const member = await send('POST', `/passcodes/${passcode.id}/rotate`, { session: 'member', body: { overlapMinutes: 0 } })
        expect(member.status).toBe(403)
        const theirs = await create('Their rotation', 30, 'other')
        expect((await send('POST', `/passcodes/${theirs.passcode.id}/rotate`, { session: 'admin', body: { overlapMinutes: 0 } })).status).toBe(404)
        const bad = await send('POST', `/passcodes/${passcode.id}/rotate`, { session: 'admin', body: { overlapMinutes: 99_999 } })
        expect(bad.status).toBe(400)
        expect(errorOf(bad)).toMatchObject({ code: 'ERR_INVALID_INPUT', field: 'overlapMinutes' })
      })

      it('binds to partners at create and edit, unbinds with null, and lists binding and last use', async () => {
        const sent = await send('POST', '/passcodes', { session: 'admin', body: { name: 'Bound', expiry: 30, partners: ['Globex'] } })
        expect(sent.status).toBe(201)
        expect(sent.json.passcode.partners).toEqual(['globex'])
        const unbound = await send('PATCH', `/passcodes/${sent.json.passcode.id}`, { session: 'admin', body: { partners: null } })
        expect(unbound.json.passcode.partners).toBeNull()
        const listed = (await send('GET', '/passcodes', { session: 'member' })).json.passcodes.find((p: { name: string }) => p.name === 'Bound')
        expect(listed).toMatchObject({ partners: null, lastUsedAt: null, lastUsedPartner: null })
        const empty = await send('PATCH', `/passcodes/${sent.json.passcode.id}`, { session: 'admin', body: { partners: [] } })
        expect(empty.status).toBe(400)
        expect(errorOf(empty).field).toBe('partners')
      })

      it('disables and enables with 200 and the view (again 200 when already so); 403 for members, 404 for other accounts', async () => {
        const { passcode, value } = await create('Disabled over HTTP')
        const disabled = await send('POST', `/passcodes/${passcode.id}/disable`, { session: 'writer' })
        expect(disabled.status, disabled.text).toBe(200)
        expect(disabled.json.passcode).toMatchObject({ id: passcode.id, name: 'Disabled over HTTP', hint: passcode.hint, status: 'disabled' })
        expect(disabled.json.passcode.disabledAt).toEqual(expect.any(String))
        expect(await auth.authenticate({ accountId: 'acc_1', passcode: value })).toMatchObject({ ok: false, statusCode: 400 })
        const again = await send('POST', `/passcodes/${passcode.id}/disable`, { session: 'admin' })
        expect(again.status).toBe(200)
        expect(again.json.passcode.disabledAt).toBe(disabled.json.passcode.disabledAt)
        const listed = (await send('GET', '/passcodes', { session: 'member' })).json.passcodes.find((p: { id: string }) => p.id === passcode.id)
        expect(listed.status).toBe('disabled')
        expect(JSON.stringify(listed)).not.toContain(value)

        expect((await send('POST', `/passcodes/${passcode.id}/enable`, { session: 'member' })).status).toBe(403)
        const theirs = await create('Their disable', 30, 'other')
        expect((await send('POST', `/passcodes/${theirs.passcode.id}/disable`, { session: 'admin' })).status).toBe(404)
        expect((await send('POST', '/passcodes/pc_none/enable', { session: 'admin' })).status).toBe(404)
        const enabled = await send('POST', `/passcodes/${passcode.id}/enable`, { session: 'admin' })
        expect(enabled.status).toBe(200)
        expect(enabled.json.passcode).toMatchObject({ status: 'active', disabledAt: null })
        expect((await send('POST', `/passcodes/${passcode.id}/enable`, { session: 'admin' })).status).toBe(200)
        expect(await auth.authenticate({ accountId: 'acc_1', passcode: value })).toMatchObject({ ok: true })
        expect(events.filter((event) => event.type === 'passcode.disabled' || event.type === 'passcode.enabled').length).toBeGreaterThanOrEqual(2)
      })

      it('takes a description at create and edit (null clears it), lists it, and answers 400 field description for a bad one', async () => {
        const sent = await send('POST', '/passcodes', {
          session: 'admin',
          body: { name: 'Described', expiry: 30, description: 'For <b>Acme</b>\r\nnightly' },
        })
        expect(sent.status, sent.text).toBe(201)
        expect(sent.json.passcode.description).toBe('For <b>Acme</b>\nnightly')
        const edited = await send('PATCH', `/passcodes/${sent.json.passcode.id}`, { session: 'admin', body: { description: 'Second' } })
        expect(edited.json.passcode.description).toBe('Second')
        const listed = (await send('GET', '/passcodes', { session: 'member' })).json.passcodes.find((p: { name: string }) => p.name === 'Described')
        expect(listed.description).toBe('Second')
        const cleared = await send('PATCH', `/passcodes/${sent.json.passcode.id}`, { session: 'admin', body: { description: null } })
        expect(cleared.json.passcode.description).toBe('')
        for (const description of ['x'.repeat(501), 'tab\there', 7]) {
          const bad = await send('PATCH', `/passcodes/${sent.json.passcode.id}`, { session: 'admin', body: { description } })
          expect(bad.status).toBe(400)
          expect(errorOf(bad)).toMatchObject({ code: 'ERR_INVALID_INPUT', field: 'description' })
        }
      })

      it('answers 503 ERR_STORAGE_UNAVAILABLE, without internals, when the store fails', async () => {
        failing = 'throw'
        const sent = await send('GET', '/passcodes', { session: 'admin' })
        expect(sent.status).toBe(503)
        expect(sent.json).toEqual({ error: { code: 'ERR_STORAGE_UNAVAILABLE', message: 'The passcode store is unavailable' } })
      })

      it('answers 400 ERR_INVALID_INPUT on passcodeId for an empty passcode ID, a trailing one (`/passcodes/`) included', async () => {
        const invalid = {
          error: { code: 'ERR_INVALID_INPUT', message: 'Invalid passcodeId: must be 1 to 256 visible ASCII characters', field: 'passcodeId' },
        }
        for (const [method, path, body] of [
          ['PATCH', '/passcodes/', { name: 'Renamed' }],
          ['DELETE', '/passcodes/', undefined],
          ['PATCH', '/passcodes//', { name: 'Renamed' }],
          ['POST', '/passcodes//rotate', { overlapMinutes: 0 }],
          ['POST', '/passcodes//disable', undefined],
          ['GET', '/passcodes//usage', undefined],
        ] as const) {
          const sent = await send(method, path, { session: 'admin', body })
          expect(sent.status, `${method} ${path}`).toBe(400)
          expect(sent.json, `${method} ${path}`).toEqual(invalid)
        }
        // The list and the create keep their trailing slash; a method no route of the path has is still 405, naming them all.
        expect((await send('GET', '/passcodes/', { session: 'member' })).status).toBe(200)
        const put = await send('PUT', '/passcodes/', { session: 'admin', body: { name: 'X' } })
        expect(put.status).toBe(405)
        expect(put.headers.get('allow')).toBe('GET, POST, PATCH, DELETE')
      })
    })

    describe('bodies', () => {
      it('answers 415 for a body that is not JSON (a cross-site form cannot send JSON)', async () => {
        for (const type of ['application/x-www-form-urlencoded', 'text/plain', 'multipart/form-data; boundary=x']) {
          const sent = await send('POST', '/passcodes', { session: 'admin', raw: 'name=Form&expiry=5', headers: { 'content-type': type } })
          expect(sent.status, type).toBe(415)
          expect(errorOf(sent).code).toBe('ERR_UNSUPPORTED_MEDIA_TYPE')
        }
        expect((await auth.passcodes.list(SESSIONS.admin!.actor, 'acc_1')).some((p) => p.name === 'Form')).toBe(false)
      })

      it('answers 400 for malformed JSON or a non-object, 413 for an oversized body', async () => {
        const malformed = await send('POST', '/passcodes', { session: 'admin', raw: '{"name":', headers: { 'content-type': 'application/json' } })
        expect(malformed.status).toBe(400)
        expect(errorOf(malformed).code).toBe('ERR_INVALID_INPUT')
        const array = await send('POST', '/passcodes', { session: 'admin', raw: '[]', headers: { 'content-type': 'application/json' } })
        expect(array.status).toBe(400)
        const huge = await send('POST', '/passcodes', {
          session: 'admin',
          raw: JSON.stringify({ name: 'x'.repeat(20_000), expiry: 1 }),
          headers: { 'content-type': 'application/json' },
        })
        expect([400, 413]).toContain(huge.status)
        expect(huge.json.error.code).toMatch(/ERR_PAYLOAD_TOO_LARGE|ERR_INVALID_INPUT/)
      })

      it('answers 404 for an unknown route and 405 with Allow for a known path', async () => {
        const unknown = await send('GET', '/nope', { session: 'admin' })
        expect(unknown.status).toBe(404)
        expect(errorOf(unknown).code).toBe('ERR_NOT_FOUND')
        const wrong = await send('PUT', '/passcodes', { session: 'admin', body: {} })
        expect(wrong.status).toBe(405)
        expect(wrong.headers.get('allow')).toBe('GET, POST')
      })
    })

    describe('CSRF: state-changing requests from another site are refused', () => {
      it('refuses Sec-Fetch-Site cross-site and same-site, and a foreign Origin, with 403 ERR_CROSS_SITE', async () => {
        for (const headers of [
          { 'sec-fetch-site': 'cross-site', origin: 'https://evil.example' } as Record<string, string>,
          { 'sec-fetch-site': 'same-site', origin: 'https://sub.127.0.0.1' },
          { origin: 'https://evil.example' },
          { origin: 'null' },
        ]) {
          const sent = await send('POST', '/passcodes', { session: 'admin', body: { name: 'Forged', expiry: 5 }, headers })
          expect(sent.status, JSON.stringify(headers)).toBe(403)
          expect(sent.json).toEqual({ error: { code: 'ERR_CROSS_SITE', message: 'Cross-site request refused' } })
        }
        const deleted = await send('DELETE', '/users/u_amy/passcode', { session: 'admin', headers: { 'sec-fetch-site': 'cross-site' } })
        expect(deleted.status).toBe(403)
        expect((await auth.passcodes.list(SESSIONS.admin!.actor, 'acc_1')).some((p) => p.name === 'Forged')).toBe(false)
      })

      it('lets same-origin requests and reads through', async () => {
        const same = await send('POST', '/passcodes', {
          session: 'admin',
          body: { name: 'Same origin', expiry: 5 },
          headers: { 'sec-fetch-site': 'same-origin', origin },
        })
        expect(same.status).toBe(201)
        const byOrigin = await send('POST', '/passcodes', { session: 'admin', body: { name: 'Origin only', expiry: 5 }, headers: { origin } })
        expect(byOrigin.status).toBe(201)
        const read = await send('GET', '/passcodes', { session: 'admin', headers: { 'sec-fetch-site': 'cross-site' } })
        expect(read.status).toBe(200)
      })
    })

    describe('user passcodes', () => {
      it('grants 201, lists without values, resets 200, revokes 204; the user reveals the value, no-store', async () => {
        const granted = await send('PUT', '/users/u_member/passcode', { session: 'admin', body: { validity: { type: 'finite', days: 30 } } })
        expect(granted.status).toBe(201)
        expect(granted.json.passcode).toMatchObject({ userId: 'u_member', status: 'expiring_soon', validity: { type: 'finite', days: 30 } })
        const again = await send('PUT', '/users/u_member/passcode', { session: 'admin', body: { validity: { type: 'infinite' } } })
        expect(again.status).toBe(409)
        expect(errorOf(again).code).toBe('ERR_ALREADY_GRANTED')

        const users = await send('GET', '/users', { session: 'member' })
        expect(users.status).toBe(200)
        expect(users.json.directory).toBe(true)
        expect(
          users.json.users.map((user: { id: string; passcode: unknown; inDirectory: boolean }) => [
            user.id,
            user.passcode === null,
            user.inDirectory,
          ]),
        ).toEqual([
          ['u_amy', true, true],
          ['u_member', false, true],
        ])
        const view = await send('GET', '/users/u_member/passcode', { session: 'member' })
        expect(view.status).toBe(200)

        const revealed = await send('GET', '/me/passcode', { session: 'member' })
        expect(revealed.status).toBe(200)
        expect(revealed.headers.get('cache-control')).toBe('no-store')
        const first = revealed.json.value as string
        expect(first).toMatch(new RegExp(`^${PASSCODE_PATTERN.source}$`))
        for (const sent of [users, view, granted]) expect(sent.text).not.toContain(first)

        const reset = await send('POST', '/users/u_member/passcode/reset', { session: 'admin' })
        expect(reset.status).toBe(200)
        expect(reset.json.passcode.userId).toBe('u_member')
        expect(reset.text).not.toMatch(PASSCODE_PATTERN)
        const second = (await send('GET', '/me/passcode', { session: 'member' })).json.value
        expect(second).not.toBe(first)

        const revoked = await send('DELETE', '/users/u_member/passcode', { session: 'admin' })
        expect(revoked.status).toBe(204)
        const gone = await send('GET', '/me/passcode', { session: 'member' })
        expect(gone.status).toBe(404)
        expect(JSON.stringify(events)).not.toContain(second)
      })

      it("lets only admins grant, reset or revoke (403), and reveals only the caller's own (404 for none)", async () => {
        for (const [method, path, body] of [
          ['PUT', '/users/u_amy/passcode', { validity: { type: 'infinite' } }],
          ['POST', '/users/u_amy/passcode/reset', undefined],
          ['DELETE', '/users/u_amy/passcode', undefined],
          ['PUT', '/account', { acceptedPasscodes: 'both' }],
        ] as const) {
          const sent = await send(method, path, { session: 'writer', body })
          expect(sent.status, `${method} ${path}`).toBe(403)
          expect(errorOf(sent).code).toBe('ERR_FORBIDDEN')
        }
        const none = await send('GET', '/me/passcode', { session: 'admin' })
        expect(none.status).toBe(404)
      })

      it('refuses a grant to someone outside the directory with 404, and to a user of another account', async () => {
        const stranger = await send('PUT', '/users/u_stranger/passcode', { session: 'admin', body: { validity: { type: 'infinite' } } })
        expect(stranger.status).toBe(404)
        expect(errorOf(stranger).code).toBe('ERR_NOT_FOUND')
        await auth.userPasscodes.grant(SESSIONS.other!.actor, 'acc_2', 'u_theirs', { validity: { type: 'infinite' } })
        for (const [method, path] of [
          ['GET', '/users/u_theirs/passcode'],
          ['POST', '/users/u_theirs/passcode/reset'],
          ['DELETE', '/users/u_theirs/passcode'],
        ] as const) {
          const sent = await send(method, path, { session: 'admin' })
          expect(sent.status, `${method} ${path}`).toBe(404)
        }
      })

      it('answers 400 ERR_INVALID_INPUT on userId, not 404 "No such route", for an empty or malformed user ID in the path', async () => {
        const invalid = {
          error: { code: 'ERR_INVALID_INPUT', message: 'Invalid userId: must be 1 to 256 visible ASCII characters', field: 'userId' },
        }
        const grant = { validity: { type: 'infinite' } }
        const eventsBefore = events.length
        // The grant is checked before the directory: a malformed ID is not "no such user".
        for (const [method, path, body] of [
          ['PUT', '/users//passcode', grant],
          ['PUT', '/users/%20/passcode', grant],
          ['PUT', '/users/u%C3%A9/passcode', grant],
          ['PUT', `/users/${'u'.repeat(257)}/passcode`, grant],
          ['GET', '/users//passcode', undefined],
          ['POST', '/users//passcode/reset', undefined],
          ['DELETE', '/users//passcode', undefined],
        ] as const) {
          const sent = await send(method, path, { session: 'admin', body })
          expect(sent.status, `${method} ${path}`).toBe(400)
          expect(sent.json, `${method} ${path}`).toEqual(invalid)
          expect(sent.headers.get('cache-control')).toBe('no-store')
        }
        // Permission still comes first for a grant: a member learns nothing about the ID.
        const member = await send('PUT', '/users//passcode', { session: 'member', body: grant })
        expect(member.status).toBe(403)
        // A trailing slash is still the same route, and an unknown path is still 404.
        expect((await send('GET', '/users/', { session: 'member' })).status).toBe(200)
        expect(errorOf(await send('GET', '/users//nope', { session: 'admin' }))).toEqual({ code: 'ERR_NOT_FOUND', message: 'No such route' })
        // Nothing was granted, reset or revoked.
        expect(events.slice(eventsBefore)).toEqual([])
      })

      it('answers 400 with field validity.days for a bad validity', async () => {
        const sent = await send('PUT', '/users/u_amy/passcode', { session: 'admin', body: { validity: { type: 'finite', days: 366 } } })
        expect(sent.status).toBe(400)
        expect(errorOf(sent)).toMatchObject({ code: 'ERR_INVALID_INPUT', field: 'validity.days' })
      })

      it('answers 500 ERR_CONFIGURATION for a grant without encryption keys, with no stack', async () => {
        const sent = await send('PUT', '/users/u_1/passcode', { session: 'admin', body: { validity: { type: 'infinite' } }, port: keylessApp.port })
        expect(sent.status).toBe(500)
        expect(errorOf(sent).code).toBe('ERR_CONFIGURATION')
        expect(Object.keys(sent.json.error).sort()).toEqual(['code', 'message'])
        expect(sent.text).not.toMatch(/\bat \S+:\d+/)
      })
    })

    describe('account setting and partners', () => {
      it('reads and sets accepted passcodes (200 with the new setting), 400 field acceptedPasscodes', async () => {
        const read = await send('GET', '/account', { session: 'member' })
        expect(read.json).toEqual({
          account: { id: 'acc_1', acceptedPasscodes: 'account' },
          actor: { userId: 'u_member', role: 'member', canManagePasscodes: false, canManageUsers: false },
        })
        const set = await send('PUT', '/account', { session: 'admin', body: { acceptedPasscodes: 'both' } })
        expect(set.status).toBe(200)
        expect(set.json.account.acceptedPasscodes).toBe('both')
        const bad = await send('PUT', '/account', { session: 'admin', body: { acceptedPasscodes: 'everyone' } })
        expect(bad.status).toBe(400)
        expect(errorOf(bad)).toMatchObject({ code: 'ERR_INVALID_INPUT', field: 'acceptedPasscodes' })
        expect(errorOf(bad).message).toMatch(/^Invalid acceptedPasscodes:/)
      })

      it('lists the partner whitelist and the declared scopes read-only', async () => {
        const sent = await send('GET', '/partners', { session: 'member' })
        expect(sent.json).toEqual({ partners: ['acme', 'globex'], listed: true })
        expect((await send('POST', '/partners', { session: 'admin', body: { name: 'x' } })).status).toBe(405)
        // This host declares no scopes (SPEC §5.48): the dashboard offers no choice.
        expect((await send('GET', '/scopes', { session: 'member' })).json).toEqual({ scopes: [] })
        expect((await send('PUT', '/scopes', { session: 'admin', body: {} })).status).toBe(405)
      })
    })

    describe('SPEC 5.40 the audit trail (GET /audit, GET /audit/export)', () => {
      // Each mount hands its query string over: these cases fail on one that drops it.
      const audit = (query: string, session = 'ana') => send('GET', `/audit${query}`, { session })
      const sequences = (sent: Sent) => (sent.json.records as { sequence: number }[]).map((record) => record.sequence)
      let ids: { first: string; second: string }
      let values: string[]
      let middle: string

      beforeAll(async () => {
        const first = await create('Audit first', 30, 'ana')
        const second = await create('Audit second', 30, 'bo')
        middle = clock().toISOString()
        clock.advance(60_000)
        const rotated = await send('POST', `/passcodes/${first.passcode.id}/rotate`, { session: 'mo', body: { overlapMinutes: 5 } })
        expect(rotated.status).toBe(201)
        expect((await send('POST', `/passcodes/${second.passcode.id}/disable`, { session: 'ana' })).status).toBe(200)
        ids = { first: first.passcode.id, second: second.passcode.id }
        values = [first.value, second.value, rotated.json.value as string]
      })

      it('answers admins a page newest first, with nextCursor, and never a passcode value or hash', async () => {
        const page = await audit('')
        expect(page.status, page.text).toBe(200)
        expect(page.headers.get('cache-control')).toBe('no-store')
        expect(page.json.nextCursor).toBeNull()
        expect(page.json.records.map((record: { action: string }) => record.action)).toEqual([
          'passcode.disabled',
          'passcode.rotated',
          'passcode.created',
          'passcode.created',
        ])
        expect(page.json.records[1]).toMatchObject({
          sequence: 3,
          accountId: 'acc_audit',
          at: new Date(Date.parse(middle) + 60_000).toISOString(),
          actor: { type: 'user', userId: 'u_mo', role: 'member' },
          target: { type: 'passcode', id: ids.first, name: 'Audit first' },
        })
        for (const value of values) expect(page.text).not.toContain(value)
        expect(page.text).not.toMatch(PASSCODE_PATTERN)
        const stored = await store.listAccountPasscodes('acc_audit')
        for (const record of stored) for (const secret of [record.hash, record.previousHash]) if (secret) expect(page.text).not.toContain(secret)
      })

      it('pages by cursor and filters by action, target, actor and time, each from the query string', async () => {
        const first = await audit('?limit=3')
        expect(sequences(first)).toEqual([4, 3, 2])
        const rest = await audit(`?limit=3&cursor=${encodeURIComponent(first.json.nextCursor as string)}`)
        expect([sequences(rest), rest.json.nextCursor]).toEqual([[1], null])
        expect(sequences(await audit('?action=passcode.created'))).toEqual([2, 1])
        expect(sequences(await audit('?action=passcode.created&action=passcode.disabled'))).toEqual([4, 2, 1])
        expect(sequences(await audit(`?target=${encodeURIComponent(ids.first)}`))).toEqual([3, 1])
        expect(sequences(await audit('?actor=u_bo'))).toEqual([2])
        expect(sequences(await audit(`?from=${encodeURIComponent(new Date(Date.parse(middle) + 1).toISOString())}`))).toEqual([4, 3])
        expect(sequences(await audit(`?to=${encodeURIComponent(middle.replace('Z', '+00:00'))}`))).toEqual([])
        expect(sequences(await audit(`?to=${encodeURIComponent(new Date(Date.parse(middle) + 1).toISOString())}`))).toEqual([2, 1])
      })

      it('answers a member the 403 of the API, whatever the query', async () => {
        for (const query of ['', '?limit=0', '?nope=1']) {
          for (const path of ['/audit', '/audit/export']) {
            const sent = await send('GET', `${path}${query}`, { session: 'mo' })
            expect(sent.status, `${path}${query}`).toBe(403)
            expect(sent.json).toEqual({ error: { code: 'ERR_FORBIDDEN', message: 'Only admins read the audit trail' } })
          }
        }
        expect((await send('GET', '/audit')).status).toBe(401)
      })

      it('answers 400 naming the parameter and why', async () => {
        const cases: [string, string, RegExp][] = [
          ['?limit=0', 'limit', /must be a whole number from 1 to 200/],
          ['?limit=201', 'limit', /must be a whole number from 1 to 200/],
          ['?limit=ten', 'limit', /must be a whole number/],
          ['?action=passcode.exploded', 'action', /must be one of passcode\.created/],
          ['?from=yesterday', 'from', /must be an ISO 8601 time/],
          ['?to=2026-01-01', 'to', /must be an ISO 8601 time/],
          ['?target=', 'target', /must not be empty/],
          ['?actor=a&actor=b', 'actor', /must be given once/],
          ['?cursor=garbage', 'cursor', /is not a cursor of this list/],
          ['?accountId=acc_1', 'accountId', /is not a parameter of this route/],
        ]
        for (const [query, field, message] of cases) {
          const sent = await audit(query)
          expect(sent.status, query).toBe(400)
          expect(errorOf(sent), query).toMatchObject({ code: 'ERR_INVALID_INPUT', field })
          expect(errorOf(sent).message, query).toMatch(new RegExp(`^Invalid ${field}: ${message.source}`))
        }
      })

      it('exports JSON lines oldest first, filtered, as a file', async () => {
        const sent = await send('GET', '/audit/export?action=passcode.created', { session: 'ana' })
        expect(sent.status).toBe(200)
        expect(sent.headers.get('content-type')).toBe('application/x-ndjson; charset=utf-8')
        expect(sent.headers.get('content-disposition')).toBe('attachment; filename="audit-acc_audit.jsonl"')
        expect(sent.headers.get('cache-control')).toBe('no-store')
        const lines = sent.text
          .trimEnd()
          .split('\n')
          .map((line) => JSON.parse(line) as { sequence: number; time: string })
        expect(lines.map((line) => line.sequence)).toEqual([1, 2])
        for (const value of values) expect(sent.text).not.toContain(value)
        const bad = await send('GET', '/audit/export?limit=5', { session: 'ana' })
        expect([bad.status, errorOf(bad).field]).toEqual([400, 'limit'])
      })
    })

    describe('pages and assets', () => {
      const page = (path: string, session?: string) =>
        fetch(`http://127.0.0.1:${app.port}/settings${path}`, { headers: session === undefined ? {} : { 'x-test-session': session } })

      it('serves the pages with a strict CSP, no inline script, no framing, and 401 without a session', async () => {
        for (const path of ['/', '/users', '/me']) {
          const response = await page(path, 'admin')
          expect(response.status, path).toBe(200)
          const csp = response.headers.get('content-security-policy') ?? ''
          expect(csp).toContain("script-src 'self'")
          expect(csp).toContain("frame-ancestors 'none'")
          expect(csp).not.toContain('unsafe-inline')
          expect(response.headers.get('x-frame-options')).toBe('DENY')
          const html = await response.text()
          expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/)
          expect(html).not.toMatch(/\son[a-z]+=/i)
          // Content-hashed file names (issue 34 item 5): a new version is a new URL.
          expect(html).toMatch(/src="\/settings\/assets\/dashboard\.[0-9a-f]{16}\.js"/)
          expect(html).toMatch(/href="\/settings\/assets\/dashboard\.[0-9a-f]{16}\.css"/)
        }
        const anonymous = await page('/')
        expect(anonymous.status).toBe(401)
        expect(await anonymous.text()).toContain('Sign in')
      })

      it('serves the script and style sheet without a session', async () => {
        const script = await page('/assets/dashboard.js')
        expect(script.status).toBe(200)
        expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8')
        expect(await script.text()).toContain('Create & View')
        const style = await page('/assets/dashboard.css')
        expect(style.headers.get('content-type')).toBe('text/css; charset=utf-8')
        expect((await page('/assets/other.js')).status).toBe(404)
      })
    })
  })
}
