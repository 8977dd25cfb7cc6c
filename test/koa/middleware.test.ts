import Koa3 from 'koa'
import Koa2 from 'koa2'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { InvalidOptionsError, type PasscodeAuth } from '../../src/index'
import { connectMiddleware, requirePasscode } from '../../src/koa/index'
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
    expect(() => connectMiddleware('auth' as unknown as PasscodeAuth)).toThrow(/`auth`: connectMiddleware needs/)
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

  it('connectMiddleware answers without calling next', async () => {
    const { auth, headers } = await service()
    const after = vi.fn()
    const app = new Koa()
    app.use(connectMiddleware(auth))
    app.use(after)
    const base = await serve(app)
    const ok = await fetch(`${base}/v1/connect?partner=acme`, { headers })
    expect(ok.status).toBe(200)
    expect(await ok.text()).toBe('{"status":"success","message":"Authorised Successfully."}')
    const missing = await fetch(`${base}/v1/connect`, { headers })
    expect(await missing.text()).toBe('{"status":"fail","error":"Missing partner","code":400}')
    expect(after).not.toHaveBeenCalled()
  })

  it('connectMiddleware reads partner from the raw URL even after ctx.query was read', async () => {
    const { auth, headers } = await service()
    const app = new Koa()
    const connect = connectMiddleware(auth)
    app.use((ctx, next) => {
      expect(ctx.query).toBeTypeOf('object') // Koa parses the query with its own parser; the answer must not depend on it
      return connect(ctx, next)
    })
    const response = await fetch(`${await serve(app)}/v1/connect?partner=acme&partner=acme`, { headers })
    expect(await response.text()).toBe('{"status":"fail","error":"Missing partner","code":400}')
  })
})
