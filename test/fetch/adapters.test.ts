import { Hono } from 'hono'
import { describe, expect, it } from 'vitest'
import { createPasscodeAuth, InvalidOptionsError } from '../../src/index'
import { memoryStore } from '../../src/memory'
import { connectHandler, requirePasscode } from '../../src/fetch/index'
import {
  connectHandler as honoConnectHandler,
  dashboard as honoDashboard,
  PasscodeRefusedError,
  requirePasscode as honoRequirePasscode,
} from '../../src/hono/index'
import { admin, manualClock } from '../helpers/service'

async function service() {
  const auth = createPasscodeAuth({ store: memoryStore(), partners: ['acme'], clock: manualClock() })
  const { passcode, value } = await auth.passcodes.create(admin, 'acc_1', { name: 'Acme', expiry: 90 })
  const headers = { 'X-Service-Account-Id': 'acc_1', 'X-Service-Passcode': value }
  return { auth, passcode, headers }
}

describe('passcode-auth/fetch', () => {
  it('requirePasscode: the principal for valid credentials, the exact refusal otherwise', async () => {
    const { auth, passcode, headers } = await service()
    const guard = requirePasscode(auth)
    for (let i = 0; i < 2; i++) {
      // The second is a cache hit, through the synchronous warm path.
      const check = await guard(new Request('http://localhost/1/events.json', { headers }))
      expect(check).toEqual({
        ok: true,
        principal: { accountId: 'acc_1', kind: 'account', passcodeId: passcode.id, passcodeName: 'Acme' },
        headers: {},
      })
    }
    const refused = await guard(new Request('http://localhost/1/events.json', { headers: { ...headers, 'X-Service-Account-Id': 'acc_2' } }))
    expect(refused.ok).toBe(false)
    if (refused.ok) return
    expect(refused.response.status).toBe(400)
    expect(Object.fromEntries(refused.response.headers)).toEqual({
      'content-type': 'application/json; charset=utf-8',
      'cache-control': 'no-store',
      'content-length': '58',
    })
    expect(await refused.response.text()).toBe('{"status":"fail","error":"Invalid Credentials","code":400}')
  })

  it('connectHandler: HEAD without a body but with its length; other methods 405', async () => {
    const { auth, headers } = await service()
    const connect = connectHandler(auth)
    const head = await connect(new Request('http://localhost/v1/connect?partner=acme', { method: 'HEAD', headers }))
    expect([head.status, head.headers.get('content-length'), head.body]).toEqual([200, '57', null])
    const post = await connect(new Request('http://localhost/v1/connect?partner=acme', { method: 'POST', headers }))
    expect([post.status, post.headers.get('allow'), await post.text()]).toEqual([
      405,
      'GET, HEAD',
      '{"status":"fail","error":"Method Not Allowed","code":405}',
    ])
  })

  it('refuses what is not a service at once', () => {
    expect(() => requirePasscode({} as never)).toThrow(InvalidOptionsError)
    expect(() => connectHandler(undefined as never)).toThrow(InvalidOptionsError)
  })

  it('requirePasscode checks its options at once: an unknown key refused, a scope the service does not declare named (SPEC 5.48)', async () => {
    const { auth } = await service()
    expect(() => requirePasscode(auth, {})).not.toThrow()
    expect(() => requirePasscode(auth, { scope: ['events:read'] } as never)).toThrow(/`scope`: unknown option of requirePasscode; known: scopes/)
    expect(() => requirePasscode(auth, { scopes: ['events:read'] })).toThrow(
      /`scopes`: "events:read" is not a declared scope \(createPasscodeAuth's `scopes` option declares none\)/,
    )
    expect(() => requirePasscode(auth, { scopes: [] })).toThrow(/`scopes`: must be a non-empty list of the scopes the route needs/)
    expect(() => requirePasscode(auth, [] as never)).toThrow(/`options`: requirePasscode options must be an object/)
  })
})

describe('passcode-auth/hono', () => {
  it('on a cache hit, calls the next handler synchronously with c.var.passcodeAuth set', async () => {
    const { auth, headers } = await service()
    const middleware = honoRequirePasscode(auth)
    const app = new Hono()
    let seen: unknown
    app.get('/1/events.json', middleware, (c) => {
      seen = c.var.passcodeAuth
      return c.text('ok')
    })
    expect((await app.request('/1/events.json', { headers })).status).toBe(200) // warms the cache
    let nextCalled = false
    const context = {
      req: { raw: new Request('http://localhost/1/events.json', { headers }), method: 'GET' },
      set: (key: string, value: unknown) => (seen = [key, value]),
    }
    void middleware(context as never, async () => {
      nextCalled = true
    })
    expect(nextCalled).toBe(true)
    expect(seen).toEqual(['passcodeAuth', expect.objectContaining({ accountId: 'acc_1' })])
  })

  it('refuses unknown and mistyped options at once', async () => {
    const { auth } = await service()
    expect(() => honoRequirePasscode(auth, { clientAddress: '10.0.0.1' } as never)).toThrow(/clientAddress/)
    expect(() => honoRequirePasscode(auth, { onRefusal: 'throw' } as never)).toThrow(/`onRefusal`: must be 'respond' or 'next'/)
    expect(() => honoRequirePasscode(auth, { cors: {} } as never)).toThrow(
      /`cors`: unknown option of requirePasscode; known: clientAddress, onRefusal/,
    )
    expect(() => honoConnectHandler(auth, { onRefusal: 'next' } as never)).toThrow(/`onRefusal`: unknown option of connectHandler/)
    expect(() => honoConnectHandler(auth, { origins: ['https://a.example'] } as never)).toThrow(/unknown option/)
    expect(() => honoConnectHandler(auth, { cors: { origins: ['not an origin'] } })).toThrow(InvalidOptionsError)
    expect(() => connectHandler(auth, { cors: { origins: ['https://a.example/path'] } })).toThrow(InvalidOptionsError)
  })

  it("with onRefusal: 'next', throws a PasscodeRefusedError to app.onError; the handler never runs", async () => {
    const { auth, headers } = await service()
    const seen: unknown[] = []
    const app = new Hono()
    app.onError((error, c) => {
      seen.push(error)
      return c.text(`host says: ${error.message}`, (error as PasscodeRefusedError).statusCode as 400)
    })
    app.get('/1/events.json', honoRequirePasscode(auth, { onRefusal: 'next' }), (c) => c.text('secret data'))

    const refused = await app.request('/1/events.json', { headers: { 'X-Service-Account-Id': 'acc_1' } })
    expect([refused.status, await refused.text()]).toEqual([400, 'host says: Invalid Credentials'])
    expect(seen).toHaveLength(1)
    expect(seen[0]).toBeInstanceOf(PasscodeRefusedError)
    expect(seen[0]).toMatchObject({ statusCode: 400, reason: 'malformed_credentials', body: { error: 'Invalid Credentials' } })

    const allowed = await app.request('/1/events.json', { headers })
    expect(await allowed.text()).toBe('secret data')
    expect(seen).toHaveLength(1)
  })

  it("with onRefusal: 'next' and no onError, Hono's own handler sends the exact refusal (getResponse)", async () => {
    const { auth, headers } = await service()
    const app = new Hono()
    app.get('/1/events.json', honoRequirePasscode(auth, { onRefusal: 'next' }), (c) => c.text('secret data'))
    const refused = await app.request('/1/events.json', { headers: { ...headers, 'X-Service-Passcode': 'wrong' } })
    expect(refused.status).toBe(400)
    expect(Object.fromEntries(refused.headers)).toEqual({
      'content-type': 'application/json; charset=utf-8',
      'cache-control': 'no-store',
      'content-length': '58',
    })
    expect(await refused.text()).toBe('{"status":"fail","error":"Invalid Credentials","code":400}')
  })
})

describe('passcode-auth/hono dashboard', () => {
  const session = { accountId: 'acc_1', actor: { userId: 'u_admin', role: 'admin' } } as const

  function host(auth: Awaited<ReturnType<typeof service>>['auth']): Hono {
    const app = new Hono()
    app.use(honoDashboard(auth, { basePath: '/settings/', session: (c) => (c.req.header('x-test-session') === 'admin' ? session : undefined) }))
    app.all('*', (c) => c.text(`host ${c.req.path}`, 404))
    return app
  }

  it('answers at basePath and below it, and hands every other path to the next handler', async () => {
    const app = host((await service()).auth)
    const page = await app.request('/settings', { headers: { 'x-test-session': 'admin' } })
    expect(page.status).toBe(200)
    expect(page.headers.get('content-type')).toMatch(/^text\/html/)
    const list = await app.request('/settings/api/passcodes', { headers: { 'x-test-session': 'admin' } })
    expect(list.status).toBe(200)
    expect(((await list.json()) as { passcodes: { name: string }[] }).passcodes.map((passcode) => passcode.name)).toEqual(['Acme'])
    expect((await app.request('/settings/api/passcodes')).status).toBe(401)
    for (const path of ['/', '/settingsx', '/other/settings']) {
      const other = await app.request(path)
      expect([other.status, await other.text()]).toEqual([404, `host ${path}`])
    }
  })

  it('reads the body through c.req.text(), so a middleware that read it first changes nothing', async () => {
    const app = new Hono()
    let read: unknown
    app.use(async (c, next) => {
      if (c.req.method === 'POST') read = await c.req.json()
      await next()
    })
    app.use(honoDashboard((await service()).auth, { basePath: '/settings', session: () => session }))
    const created = await app.request('/settings/api/passcodes', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Globex', expiry: 30 }),
    })
    expect(read).toEqual({ name: 'Globex', expiry: 30 })
    expect(created.status).toBe(201)
    expect(((await created.json()) as { passcode: { name: string } }).passcode.name).toBe('Globex')
  })

  it('checks auth, session and basePath when it is created', async () => {
    const { auth } = await service()
    expect(() => honoDashboard({} as never, { basePath: '/settings', session: () => undefined })).toThrow(/`auth`: dashboard needs/)
    expect(() => honoDashboard(auth, { basePath: '/settings' } as never)).toThrow(/`session`: must be a function \(c\) =>/)
    expect(() => honoDashboard(auth, { basePath: 'settings', session: () => undefined })).toThrow(/`basePath`: must be a path/)
  })
})
