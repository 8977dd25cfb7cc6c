import { describe, expect, it } from 'vitest'
import { createPasscodeAuth, InvalidOptionsError, nodeConnectHandler, nodeRequirePasscode, type AuditEvent } from '../../src/index'
import { memoryStore } from '../../src/memory'
import { connectHandler as fetchConnectHandler, requirePasscode as fetchRequirePasscode } from '../../src/fetch/index'
import { requirePasscode as honoRequirePasscode } from '../../src/hono/index'
import { requirePasscode as expressRequirePasscode } from '../../src/express/index'
import { createManagementApi } from '../../src/http/management/management-api'
import type { DashboardRequest } from '../../src/http/management/types'
import { resolvePostgresOptions } from '../../src/stores/postgres/options'
import { admin } from '../helpers/service'

/**
 * Hostile input, round three (issue 32, item 7): option objects and JSON bodies with
 * `__proto__`, `constructor` or `prototype` keys, and a polluted `Object.prototype`,
 * change no behaviour; an unknown name with control characters reaches no message
 * unescaped; `PUT` and `PATCH` refuse an unknown field as `POST` does.
 *
 * Each pollution of `Object.prototype` is undone in a `finally`, so the files that
 * share this worker never see it.
 */

/** Runs `fn` while `Object.prototype` carries `properties` (set as a polluting assignment would), and removes them after. */
async function polluted<T>(properties: Readonly<Record<string, unknown>>, fn: () => T | Promise<T>): Promise<T> {
  const prototype = Object.prototype as Record<string, unknown>
  for (const key of Object.keys(properties)) expect(Object.hasOwn(prototype, key), key).toBe(false)
  try {
    for (const [key, value] of Object.entries(properties)) prototype[key] = value
    return await fn()
  } finally {
    for (const key of Object.keys(properties)) Reflect.deleteProperty(prototype, key)
  }
}

/** The bytes no message may carry raw: CR, LF, ESC, NUL, DEL, C1 controls, and the line and bidi controls of Unicode. */
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/
const HOSTILE_NAME = 'x\r\nSet-Cookie: a=b\u001b[31m\u0000\u2028\u202e'

const messageOf = (fn: () => unknown): string => {
  try {
    fn()
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidOptionsError)
    return (error as Error).message
  }
  throw new Error('did not throw')
}

const credentials = (accountId: string, passcode: string) => ({ 'x-service-account-id': accountId, 'x-service-passcode': passcode })

describe('createPasscodeAuth options', () => {
  it('refuses a __proto__, constructor or prototype key as an unknown option, however it was made', () => {
    for (const key of ['__proto__', 'constructor', 'prototype']) {
      const fromJson = JSON.parse(`{"${key}": {"rateLimit": {}, "cache": false}}`) as object
      const message = messageOf(() => createPasscodeAuth({ store: memoryStore(), ...fromJson }))
      expect(message).toContain(`unknown option \`${key}\``)
      const nested = JSON.parse(`{"cache": {"${key}": {"ttlMs": 1}}}`) as object
      expect(messageOf(() => createPasscodeAuth({ store: memoryStore(), ...nested }))).toContain(`unknown option \`${key}\``)
    }
  })

  it('reads nothing a polluted Object.prototype carries: no limiter, no hook, no pepper, no cache change', async () => {
    const store = memoryStore()
    const plain = createPasscodeAuth({ store })
    const { value } = await plain.passcodes.create(admin, 'acc', { name: 'A', expiry: 30 })
    const seen: AuditEvent[] = []
    await polluted(
      {
        rateLimit: { maxFailuresPerAddress: 1, maxFailuresPerAccount: 1 },
        onEvent: (event: AuditEvent) => void seen.push(event),
        pepper: 'p'.repeat(32),
        cache: false,
        usage: false,
        maxFailuresPerAddress: 1,
        ttlMs: 1,
        timeoutMs: 1,
        store: { findCredentialByHash: () => Promise.reject(new Error('not this store')), createAccountPasscode: () => undefined },
      },
      async () => {
        const auth = createPasscodeAuth({ store })
        for (let i = 0; i < 3; i++) {
          expect(await auth.authenticate({ accountId: 'acc', passcode: 'psc_wrong', clientAddress: '192.0.2.1' })).toMatchObject({ statusCode: 400 })
        }
        // Same pepper (none), no limiter: the valid passcode still passes from the same address.
        expect((await auth.authenticate({ accountId: 'acc', passcode: value, clientAddress: '192.0.2.1' })).ok).toBe(true)
        await auth.close()
      },
    )
    expect(seen).toEqual([])
  })

  it('never puts an unknown option name with control characters into the message unescaped', () => {
    const message = messageOf(() => createPasscodeAuth({ store: memoryStore(), [HOSTILE_NAME]: 1 } as never))
    expect(message).not.toMatch(CONTROL)
    expect(message).toContain('x\\r\\nSet-Cookie: a=b\\u001b[31m\\u0000\\u2028\\u202e')
    expect(messageOf(() => createPasscodeAuth({ store: memoryStore(), cache: { [HOSTILE_NAME]: 1 } } as never))).not.toMatch(CONTROL)
  })
})

describe('adapter options', () => {
  it('refuse a __proto__, constructor or prototype key as an unknown option, with a message, whatever the adapter', () => {
    const auth = createPasscodeAuth({ store: memoryStore() })
    const adapters: [string, (options: never) => unknown][] = [
      ['express requirePasscode', (options) => expressRequirePasscode(auth, options)],
      ['fetch connectHandler', (options) => fetchConnectHandler(auth, options)],
      ['hono requirePasscode', (options) => honoRequirePasscode(auth, options)],
      ['node nodeRequirePasscode', (options) => nodeRequirePasscode(auth, options)],
      ['node nodeConnectHandler', (options) => nodeConnectHandler(auth, options)],
    ]
    for (const [name, create] of adapters) {
      for (const key of ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty']) {
        const options = JSON.parse(`{"${key}": {"onRefusal": "next"}}`) as never
        const message = messageOf(() => create(options))
        expect(message, `${name} ${key}`).toMatch(/unknown option/)
      }
      const message = messageOf(() => create({ [HOSTILE_NAME]: 1 } as never))
      expect(message, name).not.toMatch(CONTROL)
    }
  })

  it('read nothing a polluted Object.prototype carries: CORS stays off, refusals are answered, the address is not made up', async () => {
    const { auth, value } = await (async () => {
      const auth = createPasscodeAuth({
        store: memoryStore(),
        partners: ['acme'],
        rateLimit: { maxFailuresPerAddress: 1, maxFailuresPerAccount: false },
      })
      const { value } = await auth.passcodes.create(admin, 'acc', { name: 'A', expiry: 30 })
      return { auth, value }
    })()
    await polluted(
      { cors: { origins: ['https://evil.example'] }, origins: ['https://evil.example'], onRefusal: 'next', clientAddress: () => '203.0.113.9' },
      async () => {
        for (const connect of [fetchConnectHandler(auth), fetchConnectHandler(auth, {})]) {
          const preflight = await connect(
            new Request('http://localhost/v1/connect?partner=acme', {
              method: 'OPTIONS',
              headers: { origin: 'https://evil.example', 'access-control-request-method': 'GET' },
            }),
          )
          expect(preflight.status).toBe(405)
          const answer = await connect(
            new Request('http://localhost/v1/connect?partner=acme', { headers: { ...credentials('acc', value), origin: 'https://evil.example' } }),
            '192.0.2.1',
          )
          expect(answer.status).toBe(200)
          expect(answer.headers.get('access-control-allow-origin')).toBeNull()
        }
        // Hono without `clientAddress`: requests share the "unknown" count, not a made-up address.
        const guard = fetchRequirePasscode(auth)
        expect((await guard(new Request('http://localhost/', { headers: credentials('acc', 'psc_wrong') }), '198.51.100.1')).ok).toBe(false)
        expect((await guard(new Request('http://localhost/', { headers: credentials('acc', value) }), '198.51.100.2')).ok).toBe(true)
      },
    )
  })
})

describe('postgresStore options', () => {
  it('refuse a __proto__, constructor or prototype key, read no inherited option, and escape an unknown name', async () => {
    for (const key of ['__proto__', 'constructor', 'prototype']) {
      expect(() => resolvePostgresOptions(JSON.parse(`{"${key}": {"listen": false}}`))).toThrow(/unknown option/)
    }
    expect(messageOf(() => resolvePostgresOptions({ [HOSTILE_NAME]: 1 }))).not.toMatch(CONTROL)
    await polluted({ schema: 'evil', channel: 'evil', listen: false }, () => {
      expect(resolvePostgresOptions(undefined)).toEqual({ schema: 'passcode_auth', channel: 'passcode_auth_invalidations', listen: true })
      expect(resolvePostgresOptions({})).toEqual({ schema: 'passcode_auth', channel: 'passcode_auth_invalidations', listen: true })
    })
  })
})

describe('management API JSON bodies', () => {
  const setup = async () => {
    const auth = createPasscodeAuth({ store: memoryStore(), partners: ['acme'], encryptionKeys: [{ id: 'k1', key: new Uint8Array(32).fill(7) }] })
    const api = createManagementApi(auth)
    const session = { accountId: 'acc', actor: admin }
    const send = async (method: string, path: string, body?: string | { parsed: unknown }) => {
      const request: DashboardRequest = {
        method,
        path,
        header: (name) => (name === 'content-type' ? 'application/json' : undefined),
        body: async () => (body === undefined ? undefined : typeof body === 'string' ? { text: body } : body),
      }
      const answer = await api.handle(request, () => session)
      return { status: answer.statusCode, json: answer.body === '' ? undefined : (JSON.parse(answer.body) as Record<string, any>), raw: answer.body }
    }
    return { auth, send }
  }

  it('refuses __proto__, constructor and prototype fields in every body, as text or parsed, and changes nothing', async () => {
    const { auth, send } = await setup()
    const created = await send('POST', '/passcodes', '{"name":"A","expiry":30}')
    expect(created.status).toBe(201)
    const id = created.json!.passcode.id as string
    for (const key of ['__proto__', 'constructor', 'prototype']) {
      const cases: [string, string, string][] = [
        ['POST', '/passcodes', `{"${key}":{"name":"B","expiry":30}}`],
        ['PATCH', `/passcodes/${id}`, `{"${key}":{"name":"Renamed"}}`],
        ['POST', `/passcodes/${id}/rotate`, `{"${key}":{"overlapMinutes":5}}`],
        ['PUT', '/users/u_1/passcode', `{"${key}":{"validity":{"type":"infinite"}}}`],
        ['PUT', '/account', `{"${key}":{"acceptedPasscodes":"user"}}`],
      ]
      for (const [method, path, text] of cases) {
        for (const body of [text, { parsed: JSON.parse(text) as unknown }]) {
          const answer = await send(method, path, body)
          expect(answer.status, `${method} ${path} ${key}`).toBe(400)
          expect(answer.json!.error.code).toBe('ERR_INVALID_INPUT')
          expect(answer.json!.error.message, `${method} ${path}`).toContain(`unknown field "${key}"`)
        }
      }
    }
    expect((await auth.passcodes.list(admin, 'acc')).map((view) => view.name)).toEqual(['A'])
    expect(await auth.accounts.getAcceptedPasscodes('acc')).toBe('account')
    expect(await auth.userPasscodes.get(admin, 'acc', 'u_1')).toBeNull()
  })

  it('refuses an unknown field on PUT and PATCH with a 400 that names it, as POST does', async () => {
    const { auth, send } = await setup()
    const id = (await send('POST', '/passcodes', '{"name":"A","expiry":30}')).json!.passcode.id as string
    const cases: [string, string, string][] = [
      ['POST', '/passcodes', '{"name":"B","expiry":30,"colour":"red"}'],
      ['PATCH', `/passcodes/${id}`, '{"name":"C","colour":"red"}'],
      ['PUT', '/users/u_1/passcode', '{"validity":{"type":"infinite"},"colour":"red"}'],
      ['PUT', '/account', '{"acceptedPasscodes":"both","colour":"red"}'],
    ]
    for (const [method, path, body] of cases) {
      const answer = await send(method, path, body)
      expect(answer.status, `${method} ${path}`).toBe(400)
      expect(answer.json!.error, `${method} ${path}`).toMatchObject({
        code: 'ERR_INVALID_INPUT',
        message: expect.stringContaining('unknown field "colour"'),
      })
    }
    expect(await auth.accounts.getAcceptedPasscodes('acc')).toBe('account')
    // The known fields alone still work.
    expect((await send('PUT', '/account', '{"acceptedPasscodes":"both"}')).status).toBe(200)
    expect((await send('PUT', '/account', '{}')).json!.error).toMatchObject({ code: 'ERR_INVALID_INPUT', field: 'acceptedPasscodes' })
  })

  it('escapes an unknown field name with control characters in the message', async () => {
    const { send } = await setup()
    for (const [method, path] of [
      ['POST', '/passcodes'],
      ['PUT', '/account'],
      ['PUT', '/users/u_1/passcode'],
    ] as const) {
      const answer = await send(method, path, JSON.stringify({ [HOSTILE_NAME]: 1 }))
      expect(answer.status).toBe(400)
      expect(answer.json!.error.message, `${method} ${path}`).not.toMatch(CONTROL)
      expect(answer.json!.error.field ?? '').not.toMatch(CONTROL)
      expect(answer.json!.error.message).toContain('x\\r\\nSet-Cookie')
    }
  })

  it('reads nothing a polluted Object.prototype carries from a body', async () => {
    const { auth, send } = await setup()
    await polluted({ acceptedPasscodes: 'user', name: 'Polluted', expiry: 30, overlapMinutes: 5, validity: { type: 'infinite' } }, async () => {
      expect((await send('PUT', '/account', '{}')).status).toBe(400)
      expect((await send('POST', '/passcodes', '{}')).status).toBe(400)
      expect((await send('PUT', '/users/u_1/passcode', '{}')).status).toBe(400)
    })
    expect(await auth.accounts.getAcceptedPasscodes('acc')).toBe('account')
    expect(await auth.passcodes.list(admin, 'acc')).toEqual([])
  })
})
