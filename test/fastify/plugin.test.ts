import fastify5 from 'fastify'
import fastify4 from 'fastify4'
import { describe, expect, it, vi } from 'vitest'
import { InvalidOptionsError, type PasscodeAuth } from '../../src/index'
import { passcodeAuthPlugin, PasscodeRefusedError } from '../../src/fastify/index'
import { admin, setup } from '../helpers/service'
import { listenFastify } from '../http/frameworks'

async function service() {
  const { auth } = setup()
  const { value, passcode } = await auth.passcodes.create(admin, 'acc_1', { name: 'Partner A', expiry: 90 })
  const headers = { 'x-service-account-id': 'acc_1', 'x-service-passcode': value }
  const principal = { accountId: 'acc_1', kind: 'account', passcodeId: passcode.id, passcodeName: 'Partner A' }
  return { auth, headers, principal }
}

const INVALID = '{"status":"fail","error":"Invalid Credentials","code":400}'

it('is a fastify-plugin named passcode-auth for Fastify 4.x and 5.x', () => {
  const meta = (passcodeAuthPlugin as unknown as Record<symbol, unknown>)[Symbol.for('plugin-meta')]
  expect(meta).toMatchObject({ fastify: '4.x || 5.x', name: 'passcode-auth' })
  expect((passcodeAuthPlugin as unknown as Record<symbol, unknown>)[Symbol.for('skip-override')]).toBe(true)
})

describe.each([
  ['fastify 4', fastify4 as unknown as typeof fastify5],
  ['fastify 5', fastify5],
] as const)('passcodeAuthPlugin on %s', (_, fastify) => {
  it('decorates the whole app: request.passcodeAuth (null until verified) and app.requirePasscode', async () => {
    const { auth, headers } = await service()
    const app = fastify()
    await app.register(passcodeAuthPlugin, { auth })
    app.get('/open', async (request) => ({ passcodeAuth: request.passcodeAuth }))
    await app.ready()
    expect(app.hasRequestDecorator('passcodeAuth')).toBe(true)
    expect(typeof app.requirePasscode).toBe('function')
    const response = await app.inject({ url: '/open', headers })
    expect(response.json()).toEqual({ passcodeAuth: null })
    await app.close()
  })

  it.each(['onRequest', 'preHandler'] as const)('app.requirePasscode works as a route %s hook', async (hook) => {
    const { auth, headers, principal } = await service()
    const handler = vi.fn(async (request: { passcodeAuth: unknown }) => ({ calledBy: request.passcodeAuth }))
    const app = fastify()
    await app.register(passcodeAuthPlugin, { auth })
    app.get('/1/events.json', { [hook]: app.requirePasscode }, handler)
    const ok = await app.inject({ url: '/1/events.json', headers })
    expect(ok.statusCode).toBe(200)
    expect(ok.json()).toEqual({ calledBy: principal })
    const refused = await app.inject({ url: '/1/events.json', headers: { ...headers, 'x-service-account-id': 'acc_2' } })
    expect(refused.statusCode).toBe(400)
    expect(refused.body).toBe(INVALID)
    expect(handler).toHaveBeenCalledTimes(1)
    await app.close()
  })

  it('works as an addHook in an encapsulated context, leaving sibling routes open', async () => {
    const { auth, headers } = await service()
    const app = fastify()
    await app.register(passcodeAuthPlugin, { auth, connectRoute: false })
    await app.register(async (api) => {
      api.addHook('onRequest', api.requirePasscode)
      api.get('/1/events.json', async (request) => request.passcodeAuth)
    })
    app.get('/health', async () => 'ok')
    expect((await app.inject({ url: '/1/events.json' })).statusCode).toBe(400)
    expect((await app.inject({ url: '/1/events.json', headers })).statusCode).toBe(200)
    expect((await app.inject({ url: '/health' })).body).toBe('ok')
    await app.close()
  })

  it('registers GET /v1/connect, unless connectRoute: false', async () => {
    const { auth, headers } = await service()
    const withRoute = fastify()
    await withRoute.register(passcodeAuthPlugin, { auth })
    const connect = await withRoute.inject({ url: '/v1/connect?partner=acme', headers })
    expect(connect.statusCode).toBe(200)
    expect(connect.body).toBe('{"status":"success","message":"Authorised Successfully."}')
    await withRoute.close()

    const withoutRoute = fastify()
    await withoutRoute.register(passcodeAuthPlugin, { auth, connectRoute: false })
    expect((await withoutRoute.inject({ url: '/v1/connect?partner=acme', headers })).statusCode).toBe(404)
    await withoutRoute.close()
  })

  it('keeps its bytes when the host sets its own reply serializer', async () => {
    const { auth } = await service()
    const app = fastify()
    app.setReplySerializer((payload) => JSON.stringify({ wrapped: payload }))
    await app.register(passcodeAuthPlugin, { auth })
    const response = await app.inject({ url: '/v1/connect?partner=acme' })
    expect(response.body).toBe(INVALID)
    await app.close()
  })

  it('serves connect under a prefix when registered inside a prefixed plugin', async () => {
    const { auth, headers } = await service()
    const app = fastify()
    await app.register(async (api) => api.register(passcodeAuthPlugin, { auth }), { prefix: '/api' })
    expect((await app.inject({ url: '/api/v1/connect?partner=acme', headers })).statusCode).toBe(200)
    expect((await app.inject({ url: '/v1/connect?partner=acme', headers })).statusCode).toBe(404)
    await app.close()
  })

  it('answers other methods 405 under a prefix too, and leaves the host its 404s elsewhere', async () => {
    const { auth, headers } = await service()
    const app = fastify()
    app.setNotFoundHandler((_request, reply) => void reply.code(404).send('host 404'))
    await app.register(
      async (api) => {
        await api.register(passcodeAuthPlugin, { auth })
        api.get('/1/events.json', async () => 'events')
      },
      { prefix: '/api' },
    )
    for (const method of ['PROPFIND', 'TRACE', 'POST'] as const) {
      const refused = await app.inject({ method: method as 'POST', url: '/api/v1/connect?partner=acme', headers })
      expect(refused.statusCode).toBe(405)
      expect(refused.headers.allow).toBe('GET, HEAD')
    }
    expect((await app.inject({ method: 'POST', url: '/v1/connect', headers })).body).toBe('host 404')
    expect((await app.inject({ url: '/elsewhere' })).body).toBe('host 404')
    const below = await app.inject({ method: 'POST', url: '/api/v1/connect/more', headers })
    expect(below.statusCode).toBe(404)
    expect(below.json()).toMatchObject({ error: 'Not Found', statusCode: 404 })
    expect((await app.inject({ url: '/api/1/events.json' })).body).toBe('events')
    expect((await app.inject({ url: '/api/v1/connect?partner=acme', headers })).statusCode).toBe(200)
    await app.close()
  })

  it('serves over a real socket too', async () => {
    const { auth, headers } = await service()
    const app = fastify()
    await app.register(passcodeAuthPlugin, { auth })
    const running = await listenFastify(app)
    try {
      const response = await fetch(`http://127.0.0.1:${running.port}/v1/connect?partner=Globex`, { headers })
      expect(response.status).toBe(403)
      expect(await response.text()).toBe('{"status":"fail","error":"Partner not whitelisted Globex","code":403}')
    } finally {
      await running.close()
    }
  })

  it("with onRefusal: 'next', the hook hands a PasscodeRefusedError to the host's error handler", async () => {
    const { auth, headers, principal } = await service()
    const seen: unknown[] = []
    const app = fastify()
    await app.register(passcodeAuthPlugin, { auth, onRefusal: 'next' })
    app.setErrorHandler(async (error, _request, reply) => {
      seen.push(error)
      return reply
        .code((error as PasscodeRefusedError).statusCode)
        .type('text/plain')
        .send(`host says: ${(error as Error).message}`)
    })
    const handler = vi.fn(async (request: { passcodeAuth: unknown }) => ({ calledBy: request.passcodeAuth }))
    app.get('/1/events.json', { onRequest: app.requirePasscode }, handler)

    const refused = await app.inject({ url: '/1/events.json', headers: { ...headers, 'x-service-account-id': 'acc_2' } })
    expect([refused.statusCode, refused.body]).toEqual([400, 'host says: Invalid Credentials'])
    expect(seen).toHaveLength(1)
    expect(seen[0]).toBeInstanceOf(PasscodeRefusedError)
    expect(seen[0]).toMatchObject({ statusCode: 400, reason: 'wrong_account', body: { error: 'Invalid Credentials' } })
    expect(handler).not.toHaveBeenCalled()

    const allowed = await app.inject({ url: '/1/events.json', headers })
    expect(allowed.json()).toEqual({ calledBy: principal })
    expect(seen).toHaveLength(1)
    await app.close()
  })

  it("with onRefusal: 'next' and no error handler, Fastify's own handler uses the error's status and headers, not the reason", async () => {
    const { auth, headers } = await service()
    const app = fastify()
    await app.register(passcodeAuthPlugin, { auth, onRefusal: 'next' })
    app.get('/1/events.json', { onRequest: app.requirePasscode }, async () => 'secret data')
    const refused = await app.inject({ url: '/1/events.json', headers: { ...headers, 'x-service-account-id': 'acc_2' } })
    expect(refused.statusCode).toBe(400)
    expect(refused.headers['cache-control']).toBe('no-store')
    expect(refused.body).not.toContain('secret data')
    expect(refused.body).not.toContain('wrong_account')
    expect(refused.json()).toMatchObject({ statusCode: 400, message: 'Invalid Credentials' })
    await app.close()
  })

  it('refuses bad options when registered, naming the option', async () => {
    const { auth } = await service()
    const cases: [object, RegExp][] = [
      [{}, /`auth`: passcodeAuthPlugin needs the object that createPasscodeAuth\(\) returns/],
      [{ auth: {} }, /`auth`: passcodeAuthPlugin needs/],
      [{ auth, connectRoute: 'no' }, /`connectRoute`: must be a boolean/],
      [{ auth, conectRoute: false }, /`conectRoute`: unknown option of passcodeAuthPlugin/],
      [{ auth, onRefusal: 'throw' }, /`onRefusal`: must be 'respond' or 'next'/],
      [{ auth, prefix: '/api' }, /`prefix`: is ignored for this plugin; register passcodeAuthPlugin inside a plugin registered with the prefix/],
    ]
    for (const [options, message] of cases) {
      const app = fastify()
      app.register(passcodeAuthPlugin, options as { auth: PasscodeAuth })
      const error = await app.ready().then(
        () => undefined,
        (reason: unknown) => reason,
      )
      expect(error).toBeInstanceOf(InvalidOptionsError)
      expect((error as Error).message).toMatch(message)
    }
  })
})
