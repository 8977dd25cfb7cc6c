import Koa3 from 'koa'
import Koa2 from 'koa2'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { InvalidOptionsError, type PasscodeAuth } from '../../src/index'
import * as koa from '../../src/koa/index'
import { connectHandler, PasscodeRefusedError, requirePasscode } from '../../src/koa/index'
import { admin, setup } from '../helpers/service'
import { listen } from '../http/frameworks'
import type { RunningApp } from '../conformance/http'

const running: RunningApp[] = []
afterEach(async () => {
  await Promise.all(running.splice(0).map((app) => app.close()))
})

async function serve(app: Koa3): Promise<string> {
  const started = await listen(app.callback())
  running.push(started)
  return `http://127.0.0.1:${started.port}`
}

async function service() {
  const { auth } = setup()
  const { value, passcode } = await auth.passcodes.create(admin, 'acc_1', { name: 'Partner A', expiry: 90 })
  const headers = { 'X-Service-Account-Id': 'acc_1', 'X-Service-Passcode': value }
  const principal = { accountId: 'acc_1', kind: 'account', passcodeId: passcode.id, passcodeName: 'Partner A' }
  return { auth, headers, principal }
}

describe('Koa factories', () => {
  it('refuse a missing or wrong auth at once', () => {
    expect(() => requirePasscode(undefined as unknown as PasscodeAuth)).toThrow(InvalidOptionsError)
    expect(() => requirePasscode({} as PasscodeAuth)).toThrow(/`auth`: requirePasscode needs the object that createPasscodeAuth\(\) returns/)
    expect(() => connectHandler('auth' as unknown as PasscodeAuth)).toThrow(/`auth`: connectHandler needs/)
  })

  it('requirePasscode takes an options object, checked at once: a bad onRefusal and unknown options are refused by name', async () => {
    const { auth } = await service()
    expect(() => requirePasscode(auth, {})).not.toThrow()
    expect(() => requirePasscode(auth, { onRefusal: 'next' })).not.toThrow()
    expect(() => requirePasscode(auth, { onRefusal: 'throw' as 'next' })).toThrow(/`onRefusal`: must be 'respond' or 'next'/)
    expect(() => requirePasscode(auth, { onRefuse: 'next' } as never)).toThrow(/`onRefuse`: unknown option of requirePasscode; known: onRefusal/)
    expect(() => requirePasscode(auth, 'next' as never)).toThrow(/`options`: requirePasscode options must be an object/)
  })

  it('keeps the former name connectMiddleware as the same function', () => {
    // eslint-disable-next-line @typescript-eslint/no-deprecated -- the former name must keep working
    expect(koa.connectMiddleware).toBe(koa.connectHandler)
  })
})

describe.each([
  ['koa 2', Koa2],
  ['koa 3', Koa3],
] as const)('%s', (_, Koa) => {
  it('requirePasscode puts the principal on ctx.state.passcodeAuth and runs downstream once', async () => {
    const { auth, headers, principal } = await service()
    const downstream = vi.fn((ctx: Koa3.Context) => {
      ctx.body = { calledBy: ctx.state.passcodeAuth }
    })
    const app = new Koa()
    app.use(requirePasscode(auth))
    app.use(downstream)
    const response = await fetch(`${await serve(app)}/1/events.json`, { headers })
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({ calledBy: principal })
    expect(downstream).toHaveBeenCalledTimes(1)
  })

  it('requirePasscode answers a refusal itself: downstream never runs, upstream sees the answer', async () => {
    const { auth } = await service()
    const downstream = vi.fn((ctx: Koa3.Context) => {
      ctx.body = 'secret data'
    })
    const seenUpstream: number[] = []
    const app = new Koa()
    app.use(async (ctx, next) => {
      await next()
      seenUpstream.push(ctx.status)
    })
    app.use(requirePasscode(auth))
    app.use(downstream)
    const response = await fetch(`${await serve(app)}/1/events.json`, { headers: { 'X-Service-Account-Id': 'acc_1' } })
    expect(response.status).toBe(400)
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8')
    expect(response.headers.get('cache-control')).toBe('no-store')
    expect(await response.text()).toBe('{"status":"fail","error":"Invalid Credentials","code":400}')
    expect(downstream).not.toHaveBeenCalled()
    expect(seenUpstream).toEqual([400])
  })

  it("with onRefusal: 'next', throws a PasscodeRefusedError to the middleware upstream; downstream never runs", async () => {
    const { auth, headers } = await service()
    const seen: unknown[] = []
    const app = new Koa()
    app.use(async (ctx, next) => {
      try {
        await next()
      } catch (error) {
        seen.push(error)
        ctx.status = (error as PasscodeRefusedError).statusCode
        ctx.body = `host says: ${(error as Error).message}`
      }
    })
    app.use(requirePasscode(auth, { onRefusal: 'next' }))
    app.use((ctx) => {
      ctx.body = 'secret data'
    })
    const base = await serve(app)

    const refused = await fetch(`${base}/1/events.json`, { headers: { 'X-Service-Account-Id': 'acc_1' } })
    expect(refused.status).toBe(400)
    expect(await refused.text()).toBe('host says: Invalid Credentials')
    expect(seen).toHaveLength(1)
    expect(seen[0]).toBeInstanceOf(PasscodeRefusedError)
    expect(seen[0]).toMatchObject({ statusCode: 400, reason: 'malformed_credentials', body: { error: 'Invalid Credentials' } })

    const allowed = await fetch(`${base}/1/events.json`, { headers })
    expect(await allowed.text()).toBe('secret data')
    expect(seen).toHaveLength(1)
  })

  it("with onRefusal: 'next' and no error middleware, Koa's own handler sends the error's status, headers and message only", async () => {
    const { auth } = await service()
    const errors: unknown[] = []
    const app = new Koa()
    app.on('error', (error: unknown) => errors.push(error))
    app.use(requirePasscode(auth, { onRefusal: 'next' }))
    app.use((ctx) => {
      ctx.body = 'secret data'
    })
    const response = await fetch(`${await serve(app)}/1/events.json`, { headers: { 'X-Service-Account-Id': 'acc_1', 'X-Service-Passcode': 'wrong' } })
    expect(response.status).toBe(400)
    expect(response.headers.get('cache-control')).toBe('no-store')
    expect(await response.text()).toBe('Invalid Credentials')
    // Koa emits it as an 'error' event, which its default listener does not log (`expose`).
    expect(errors).toHaveLength(1)
    expect(errors[0]).toBeInstanceOf(PasscodeRefusedError)
  })

  it('lets an error thrown downstream reach Koa’s error handling', async () => {
    const { auth, headers } = await service()
    const errors: Error[] = []
    const app = new Koa()
    app.on('error', (error: Error) => errors.push(error))
    app.use(requirePasscode(auth))
    app.use(() => {
      throw new Error('handler bug')
    })
    const response = await fetch(`${await serve(app)}/1/events.json`, { headers })
    expect(response.status).toBe(500)
    expect(errors.map((error) => error.message)).toEqual(['handler bug'])
  })

  it('connectHandler answers without calling next', async () => {
    const { auth, headers } = await service()
    const after = vi.fn()
    const app = new Koa()
    app.use(connectHandler(auth))
    app.use(after)
    const base = await serve(app)
    const ok = await fetch(`${base}/v1/connect?partner=acme`, { headers })
    expect(ok.status).toBe(200)
    expect(await ok.text()).toBe('{"status":"success","message":"Authorised Successfully."}')
    const missing = await fetch(`${base}/v1/connect`, { headers })
    expect(await missing.text()).toBe('{"status":"fail","error":"Missing partner","code":400}')
    expect(after).not.toHaveBeenCalled()
  })

  it('connectHandler reads partner from the raw URL even after ctx.query was read', async () => {
    const { auth, headers } = await service()
    const app = new Koa()
    const connect = connectHandler(auth)
    app.use((ctx, next) => {
      expect(ctx.query).toBeTypeOf('object') // Koa parses the query with its own parser; the answer must not depend on it
      return connect(ctx, next)
    })
    const response = await fetch(`${await serve(app)}/v1/connect?partner=acme&partner=acme`, { headers })
    expect(await response.text()).toBe('{"status":"fail","error":"Missing partner","code":400}')
  })
})
