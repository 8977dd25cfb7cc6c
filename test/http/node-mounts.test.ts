import type { IncomingMessage, ServerResponse } from 'node:http'
import { afterEach, describe, expect, it } from 'vitest'
import { nodeDashboard } from '../../src/dashboard/index'
import { InvalidOptionsError, nodeConnectHandler, nodeRequirePasscode, type PasscodeAuth } from '../../src/index'
import { admin, setup } from '../helpers/service'
import { listen } from './frameworks'
import type { RunningApp } from '../conformance/http'

/**
 * The mounts on Node's own `http` server (`nodeRequirePasscode`, `nodeConnectHandler` in
 * `passcode-auth`, `nodeDashboard` in `passcode-auth/dashboard`): what the HTTP
 * conformance suite does not cover (it runs them as the `node http` target): their
 * options, the refusal reason handed to `onRefusal`, `Sunset` on the host's answer and
 * the dashboard's `base`.
 */
let app: RunningApp | undefined
afterEach(async () => {
  await app?.close()
  app = undefined
})

const serve = async (listener: (request: IncomingMessage, response: ServerResponse) => unknown) => {
  app = await listen((request, response) => void listener(request, response))
  return `http://127.0.0.1:${app.port}`
}

describe('nodeRequirePasscode', () => {
  it('refuses a wrong auth and unknown or bad options at once, naming them', () => {
    const { auth } = setup()
    expect(() => nodeRequirePasscode({} as PasscodeAuth)).toThrow(/nodeRequirePasscode needs the object that createPasscodeAuth\(\) returns/)
    expect(() => nodeRequirePasscode(auth, { cors: { origins: [] } } as never)).toThrow(
      /`cors`: unknown option of nodeRequirePasscode; known: clientAddress, onRefusal/,
    )
    expect(() => nodeRequirePasscode(auth, { onRefusal: 'log' } as never)).toThrow(InvalidOptionsError)
    expect(() => nodeConnectHandler(auth, { clientAddress: '10.0.0.1' } as never)).toThrow(/`clientAddress`: must be a function/)
    expect(() => nodeConnectHandler(auth, { cors: { origins: ['https://a.example/'] } })).toThrow(/`cors.origins.0`/)
  })

  it('answers the principal (synchronously once cached), writes refusals, and tells onRefusal why', async () => {
    const { auth } = setup()
    const reasons: string[] = []
    const guard = nodeRequirePasscode(auth, { onRefusal: (reason) => reasons.push(reason) })
    const kinds: string[] = []
    const url = await serve(async (request, response) => {
      const answer = guard(request, response)
      kinds.push(answer instanceof Promise ? 'promise' : 'principal')
      const principal = await answer
      if (principal !== undefined) response.end(JSON.stringify(principal))
    })
    const { value } = await auth.passcodes.create(admin, 'acc_1', { name: 'Acme', expiry: 90 })
    const headers = { 'x-service-account-id': 'acc_1', 'x-service-passcode': value }
    const first = await fetch(url, { headers })
    expect(first.status).toBe(200)
    expect(await first.json()).toMatchObject({ accountId: 'acc_1', kind: 'account' })
    expect((await fetch(url, { headers })).status).toBe(200)
    expect(kinds).toEqual(['promise', 'principal'])
    // The last character changed (to `x`, or `y` when it is an `x`: one value in 62 ends so).
    const wrong = `${value.slice(0, -1)}${value.endsWith('x') ? 'y' : 'x'}`
    const refused = await fetch(url, { headers: { ...headers, 'x-service-passcode': wrong } })
    expect([refused.status, await refused.json()]).toEqual([400, { status: 'fail', error: 'Invalid Credentials', code: 400 }])
    expect(reasons).toHaveLength(1)
    expect(reasons[0]).toMatch(/^[a-z_]+$/)
  })

  it('sets Sunset on the host’s answer while the passcode is in its last days', async () => {
    const { auth } = setup()
    const guard = nodeRequirePasscode(auth)
    const url = await serve(async (request, response) => {
      if ((await guard(request, response)) !== undefined) response.end('ok')
    })
    const { value } = await auth.passcodes.create(admin, 'acc_1', { name: 'Acme', expiry: 10 })
    const answer = await fetch(url, { headers: { 'x-service-account-id': 'acc_1', 'x-service-passcode': value } })
    expect([answer.status, answer.headers.get('sunset')]).toEqual([200, 'Sun, 11 Jan 2026 00:00:00 GMT'])
  })

  it('reads the client address with `clientAddress`, only when the limiter counts per address', async () => {
    const { auth } = setup({ rateLimit: { maxFailuresPerAddress: 1, maxFailuresPerAccount: false } })
    const seen: (string | undefined)[] = []
    const guard = nodeRequirePasscode(auth, { clientAddress: (request) => (seen.push(request.socket.remoteAddress), '192.0.2.7') })
    const url = await serve(async (request, response) => {
      if ((await guard(request, response)) !== undefined) response.end('ok')
    })
    const wrong = { 'x-service-account-id': 'acc_1', 'x-service-passcode': 'nope' }
    expect((await fetch(url, { headers: wrong })).status).toBe(400)
    expect((await fetch(url, { headers: wrong })).status).toBe(429)
    expect(seen.length).toBeGreaterThan(0)
  })
})

describe('nodeConnectHandler', () => {
  it('answers GET /v1/connect, 405 for other methods, and tells onRefusal why', async () => {
    const { auth } = setup({ partners: ['acme'] })
    const reasons: string[] = []
    const url = await serve(nodeConnectHandler(auth, { onRefusal: (reason) => reasons.push(reason) }))
    const { value } = await auth.passcodes.create(admin, 'acc_1', { name: 'Acme', expiry: 90 })
    const headers = { 'x-service-account-id': 'acc_1', 'x-service-passcode': value }
    const ok = await fetch(`${url}/v1/connect?partner=acme`, { headers })
    expect([ok.status, await ok.json()]).toEqual([200, { status: 'success', message: 'Authorised Successfully.' }])
    expect((await fetch(`${url}/v1/connect?partner=globex`, { headers })).status).toBe(403)
    const post = await fetch(`${url}/v1/connect`, { method: 'POST', headers })
    expect([post.status, post.headers.get('allow')]).toEqual([405, 'GET, HEAD'])
    expect(reasons).toEqual(['partner_not_whitelisted', 'method_not_allowed'])
  })
})

describe('nodeDashboard', () => {
  it('needs a session resolver and a basePath', () => {
    const { auth } = setup()
    expect(() => nodeDashboard(auth, {} as never)).toThrow(/`session`: must be a function/)
    expect(() => nodeDashboard(auth, { session: () => undefined } as never)).toThrow(/`basePath`: must be a path such as "\/settings"/)
    expect(() => nodeDashboard(auth, { session: () => undefined, basePath: 'settings' })).toThrow(/`basePath`/)
  })

  it('serves the management API and the pages below `base`, with the session the host resolves', async () => {
    const { auth } = setup()
    await auth.passcodes.create(admin, 'acc_1', { name: 'Acme', expiry: 90 })
    const url = await serve(
      nodeDashboard(auth, {
        basePath: '/settings',
        session: (request) => (request.headers.cookie === 'in' ? { accountId: 'acc_1', actor: admin } : undefined),
      }),
    )
    expect((await fetch(`${url}/settings/api/passcodes`)).status).toBe(401)
    const listed = await fetch(`${url}/settings/api/passcodes`, { headers: { cookie: 'in' } })
    expect(listed.status).toBe(200)
    expect(JSON.stringify(await listed.json())).toContain('Acme')
    const page = await fetch(`${url}/settings`, { headers: { cookie: 'in' } })
    expect([page.status, page.headers.get('content-type')]).toEqual([200, 'text/html; charset=utf-8'])
    expect(await page.text()).toContain('/settings/assets/')
    const head = await fetch(`${url}/settings`, { method: 'HEAD', headers: { cookie: 'in' } })
    expect([head.status, await head.text()]).toEqual([200, ''])
    expect((await fetch(`${url}/settingsx/api/passcodes`, { headers: { cookie: 'in' } })).status).toBe(404)
  })
})
