import { Hono } from 'hono'
import { describe, expect, it } from 'vitest'
import { createPasscodeAuth, InvalidOptionsError } from '../../src/index'
import { memoryStore } from '../../src/memory'
import { connectHandler, requirePasscode } from '../../src/fetch/index'
import { connectHandler as honoConnectHandler, requirePasscode as honoRequirePasscode } from '../../src/hono/index'
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

  it('requirePasscode takes an options object with no option yet: checked at once, any key refused', async () => {
    const { auth } = await service()
    expect(() => requirePasscode(auth, {})).not.toThrow()
    expect(() => requirePasscode(auth, { scopes: ['events:read'] } as never)).toThrow(/`scopes`: unknown option of requirePasscode; known: none yet/)
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
    expect(() => honoRequirePasscode(auth, { cors: {} } as never)).toThrow(/`cors`: unknown option of requirePasscode; known: clientAddress/)
    expect(() => honoConnectHandler(auth, { onRefusal: 'next' } as never)).toThrow(/`onRefusal`: unknown option of connectHandler/)
    expect(() => honoConnectHandler(auth, { origins: ['https://a.example'] } as never)).toThrow(/unknown option/)
    expect(() => honoConnectHandler(auth, { cors: { origins: ['not an origin'] } })).toThrow(InvalidOptionsError)
    expect(() => connectHandler(auth, { cors: { origins: ['https://a.example/path'] } })).toThrow(InvalidOptionsError)
  })
})
