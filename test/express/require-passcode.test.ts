import express5, { type ErrorRequestHandler } from 'express'
import express4 from 'express4'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { InvalidOptionsError, type PasscodeAuth } from '../../src/index'
import { PasscodeRefusedError, connectHandler, requirePasscode } from '../../src/express/index'
import { admin, setup } from '../helpers/service'
import { listen } from '../http/frameworks'
import type { RunningApp } from '../conformance/http'

const running: RunningApp[] = []
afterEach(async () => {
  await Promise.all(running.splice(0).map((app) => app.close()))
})

async function serve(app: Parameters<typeof listen>[0]): Promise<string> {
  const started = await listen(app)
  running.push(started)
  return `http://127.0.0.1:${started.port}`
}

async function service() {
  const { auth, store } = setup()
  const { value, passcode } = await auth.passcodes.create(admin, 'acc_1', { name: 'Partner A', expiry: 90 })
  const headers = { 'X-Service-Account-Id': 'acc_1', 'X-Service-Passcode': value }
  return { auth, store, headers, passcodeId: passcode.id }
}

describe('requirePasscode (Express) options', () => {
  it('refuses a missing or wrong auth at once', () => {
    expect(() => requirePasscode(undefined as unknown as PasscodeAuth)).toThrow(InvalidOptionsError)
    expect(() => requirePasscode({} as PasscodeAuth)).toThrow(/`auth`: requirePasscode needs the object that createPasscodeAuth\(\) returns/)
    expect(() => connectHandler(null as unknown as PasscodeAuth)).toThrow(/connectHandler needs/)
  })

  it('refuses a bad onRefusal and unknown options, naming them', async () => {
    const { auth } = await service()
    expect(() => requirePasscode(auth, { onRefusal: 'throw' as 'next' })).toThrow(/`onRefusal`: must be 'respond' or 'next'/)
    expect(() => requirePasscode(auth, { onRefuse: 'next' } as object)).toThrow(/`onRefuse`: unknown option of requirePasscode/)
    expect(() => requirePasscode(auth, { onRefusal: 'next' })).not.toThrow()
    expect(() => requirePasscode(auth, {})).not.toThrow()
  })
})

describe.each([
  ['express 4', express4],
  ['express 5', express5],
] as const)('requirePasscode on %s', (_, express) => {
  it('puts the principal on req.passcodeAuth and calls the next handler once', async () => {
    const { auth, headers, passcodeId } = await service()
    const handler = vi.fn((req: express5.Request, res: express5.Response) => {
      res.json({ calledBy: req.passcodeAuth })
    })
    const app = express()
    app.get('/1/events.json', requirePasscode(auth), handler)
    const response = await fetch(`${await serve(app)}/1/events.json`, { headers })
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({ calledBy: { accountId: 'acc_1', kind: 'account', passcodeId, passcodeName: 'Partner A' } })
    expect(handler).toHaveBeenCalledTimes(1)
  })

  it('answers a refusal itself by default: the next handler never runs', async () => {
    const { auth, headers } = await service()
    const handler = vi.fn((_req: express5.Request, res: express5.Response) => {
      res.send('secret data')
    })
    const app = express()
    app.use(requirePasscode(auth))
    app.get('/1/events.json', handler)
    const response = await fetch(`${await serve(app)}/1/events.json`, { headers: { ...headers, 'X-Service-Account-Id': 'acc_2' } })
    expect(response.status).toBe(400)
    expect(response.headers.get('cache-control')).toBe('no-store')
    expect(await response.text()).toBe('{"status":"fail","error":"Invalid Credentials","code":400}')
    expect(handler).not.toHaveBeenCalled()
  })

  it("with onRefusal: 'next', hands a PasscodeRefusedError to the host's error handler", async () => {
    const { auth, headers } = await service()
    const seen: unknown[] = []
    const onError: ErrorRequestHandler = (error, _req, res, _next) => {
      seen.push(error)
      res.status(error.statusCode).type('text/plain').send(`host says: ${error.message}`)
    }
    const app = express()
    app.get('/1/events.json', requirePasscode(auth, { onRefusal: 'next' }), (_req, res) => {
      res.send('secret data')
    })
    app.use(onError)
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

  it("with onRefusal: 'next' and no error handler, Express's default handler uses the error's status", async () => {
    const { auth } = await service()
    const app = express()
    app.set('env', 'test') // keeps finalhandler from logging the error
    app.get('/1/events.json', requirePasscode(auth, { onRefusal: 'next' }), (_req, res) => {
      res.send('secret data')
    })
    const response = await fetch(`${await serve(app)}/1/events.json`)
    expect(response.status).toBe(400)
    expect(response.headers.get('cache-control')).toBe('no-store')
    expect(await response.text()).not.toContain('secret data')
  })

  it("lets an error thrown after it reach the host's error handler exactly once", async () => {
    const { auth, headers } = await service()
    const errors: unknown[] = []
    const app = express()
    app.get('/boom', requirePasscode(auth), () => {
      throw new Error('handler bug')
    })
    app.use(((error, _req, res, _next) => {
      errors.push(error)
      res.status(500).send('host error page')
    }) satisfies ErrorRequestHandler)
    const response = await fetch(`${await serve(app)}/boom`, { headers })
    expect(response.status).toBe(500)
    expect(errors).toHaveLength(1)
    expect((errors[0] as Error).message).toBe('handler bug')
  })

  it('serves connect under a mounted router, reading partner from the query', async () => {
    const { auth, headers } = await service()
    const app = express()
    const router = express.Router()
    router.get('/v1/connect', connectHandler(auth))
    app.use('/api', router)
    const base = await serve(app)
    const ok = await fetch(`${base}/api/v1/connect?partner=acme`, { headers })
    expect(ok.status).toBe(200)
    expect(await ok.text()).toBe('{"status":"success","message":"Authorised Successfully."}')
    const unlisted = await fetch(`${base}/api/v1/connect?partner=Globex`, { headers })
    expect(await unlisted.text()).toBe('{"status":"fail","error":"Partner not whitelisted Globex","code":403}')
  })
})
