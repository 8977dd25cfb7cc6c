import { request as httpRequest } from 'node:http'
import { afterEach, describe, expect, it } from 'vitest'
import { createPasscodeAuth } from '../../src/index'
import { memoryStore } from '../../src/memory'
import { buildServer, type ReferenceServer } from '../../src/cli/server/app'
import { createRequestLog, type RequestLogEntry } from '../../src/cli/server/request-log'
import { sendJson } from '../../src/cli/server/route'
import type { Runtime } from '../../src/cli/runtime'

/**
 * The reference server of `passcode-auth serve`, on `node:http` over the library's
 * `http/` layer: its routes, the mount point for extra routes and the request log.
 * The first start from a data folder is tested in first-start.test.ts, and from the
 * packed tarball in test/package/tarball.test.ts.
 */

const admin = { userId: 'u_admin', role: 'admin' } as const
const INVALID = '{"status":"fail","error":"Invalid Credentials","code":400}'

let app: ReferenceServer | undefined
afterEach(async () => {
  await app?.close()
  app = undefined
})

async function start(options: Parameters<typeof buildServer>[1] & { ping?: () => Promise<void> } = {}) {
  const auth = createPasscodeAuth({ store: memoryStore(), partners: ['acme'] })
  // Only what the server reads of a runtime: the service and the database check.
  const runtime = { auth, ping: options.ping ?? (async () => undefined) } as unknown as Runtime
  app = buildServer(runtime, options)
  const address = await app.listen('127.0.0.1', 0)
  const { value } = await auth.passcodes.create(admin, 'acc_1', { name: 'Acme', expiry: 90 })
  return { auth, base: `http://127.0.0.1:${address.port}`, headers: { 'x-service-account-id': 'acc_1', 'x-service-passcode': value } }
}

async function waitFor(condition: () => boolean) {
  for (let waited = 0; !condition() && waited < 5_000; waited += 10) await new Promise((resolve) => setTimeout(resolve, 10))
}

async function call(url: string, init: RequestInit = {}) {
  const response = await fetch(url, init)
  return { status: response.status, headers: response.headers, body: await response.text() }
}

describe('the reference server', () => {
  it('answers GET /v1/connect from the library, byte for byte', async () => {
    const { base, headers } = await start()
    const success = await call(`${base}/v1/connect?partner=acme`, { headers })
    expect([success.status, success.body]).toEqual([200, '{"status":"success","message":"Authorised Successfully."}'])
    expect(success.headers.get('content-type')).toBe('application/json; charset=utf-8')
    expect(await call(`${base}/v1/connect?partner=acme`)).toMatchObject({ status: 400, body: INVALID })
    expect(await call(`${base}/v1/connect?partner=globex`, { headers })).toMatchObject({
      status: 403,
      body: '{"status":"fail","error":"Partner not whitelisted globex","code":403}',
    })
  })

  it('answers HEAD like GET without a body, and any other method on /v1/connect with the library’s 405', async () => {
    const { base, headers } = await start()
    expect(await call(`${base}/v1/connect?partner=acme`, { method: 'HEAD', headers })).toMatchObject({ status: 200, body: '' })
    const refused = await call(`${base}/v1/connect?partner=acme`, { method: 'DELETE', headers })
    expect([refused.status, refused.headers.get('allow'), refused.body]).toEqual([
      405,
      'GET, HEAD',
      '{"status":"fail","error":"Method Not Allowed","code":405}',
    ])
  })

  it('protects GET /1/events.json and answers with who called', async () => {
    const { base, headers } = await start()
    const first = await call(`${base}/1/events.json`, { headers })
    expect(first.status).toBe(200)
    expect(JSON.parse(first.body)).toEqual({
      events: [],
      calledBy: { accountId: 'acc_1', kind: 'account', passcodeId: expect.any(String), passcodeName: 'Acme' },
    })
    // The second call is a warm-cache hit, answered synchronously: same answer.
    expect(await call(`${base}/1/events.json`, { headers })).toMatchObject({ status: 200, body: first.body })
    expect(await call(`${base}/1/events.json`)).toMatchObject({ status: 400, body: INVALID })
    expect(await call(`${base}/1/events.json`, { method: 'POST', headers })).toMatchObject({ status: 405 })
  })

  it('carries Sunset on /1/events.json for a passcode in its last 30 days, on every call, as on /v1/connect', async () => {
    const { auth, base } = await start()
    const { value } = await auth.passcodes.create(admin, 'acc_2', { name: 'Soon', expiry: 10 })
    const headers = { 'x-service-account-id': 'acc_2', 'x-service-passcode': value }
    for (const path of ['/1/events.json', '/1/events.json', '/v1/connect?partner=acme']) {
      const answer = await call(`${base}${path}`, { headers })
      expect(answer.status).toBe(200)
      const sunset = Date.parse(answer.headers.get('sunset') ?? '')
      expect(sunset - Date.now()).toBeGreaterThan(9 * 86_400_000)
      expect(sunset - Date.now()).toBeLessThanOrEqual(10 * 86_400_000)
    }
  })

  it('reports the database on /healthz: 200, or 503 when it fails or does not answer in time', async () => {
    const { base } = await start()
    expect(await call(`${base}/healthz`)).toMatchObject({ status: 200, body: '{"status":"ok"}' })
    await app!.close()
    const failing = await start({ ping: () => Promise.reject(new Error('down')) })
    expect(await call(`${failing.base}/healthz`)).toMatchObject({ status: 503, body: '{"status":"unavailable"}' })
    await app!.close()
    const hanging = await start({ ping: () => new Promise(() => undefined), healthTimeoutMs: 50 })
    expect(await call(`${hanging.base}/healthz`)).toMatchObject({ status: 503, body: '{"status":"unavailable"}' })
  })

  it('answers /favicon.ico with a small PNG, so that a browser\u2019s first request is no 404', async () => {
    const { base } = await start()
    const response = await fetch(`${base}/favicon.ico`)
    expect([response.status, response.headers.get('content-type')]).toEqual([200, 'image/png'])
    expect(
      Buffer.from(await response.arrayBuffer())
        .subarray(1, 4)
        .toString(),
    ).toBe('PNG')
  })

  it('answers 404 elsewhere', async () => {
    const { base } = await start()
    expect(await call(`${base}/nothing`)).toMatchObject({ status: 404, body: '{"error":"Not Found"}' })
  })

  it('mounts extra routes before its own, with prefixes for a mounted app', async () => {
    const { base } = await start({
      mounts: [
        { path: '/dashboard/', prefix: true, methods: ['GET'], handle: (request, response) => sendJson(response, 200, { mounted: request.url }) },
      ],
    })
    expect(await call(`${base}/dashboard/settings?tab=passcodes`)).toMatchObject({
      status: 200,
      body: '{"mounted":"/dashboard/settings?tab=passcodes"}',
    })
    expect(await call(`${base}/dashboard/settings`, { method: 'POST' })).toMatchObject({ status: 405 })
  })

  it('answers 500 with no detail when a route fails', async () => {
    const { base } = await start({
      mounts: [{ path: '/broken', methods: ['GET'], handle: () => Promise.reject(new Error('secret detail')) }],
    })
    expect(await call(`${base}/broken`)).toMatchObject({ status: 500, body: '{"error":"Internal Server Error"}' })
  })

  it('logs each request once: method, path without the query, status, time, reason and request ID, never a header', async () => {
    const entries: RequestLogEntry[] = []
    const { base, headers } = await start({ log: (entry) => entries.push(entry) })
    await call(`${base}/v1/connect?partner=acme`, { headers })
    await call(`${base}/v1/connect?partner=acme`, { headers: { ...headers, 'x-service-passcode': `${headers['x-service-passcode'].slice(0, -1)}#` } })
    await call(`${base}/1/events.json?token=query-secret`)
    await call(`${base}/v1/connect`, { method: 'DELETE', headers })
    await call(`${base}/nothing`, { headers: { 'x-request-id': 'proxy-7f3a' } })
    await waitFor(() => entries.length === 5)
    const id = expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
    expect(entries).toEqual([
      { method: 'GET', path: '/v1/connect', status: 200, durationMs: expect.any(Number), requestId: id },
      { method: 'GET', path: '/v1/connect', status: 400, durationMs: expect.any(Number), reason: 'checksum_mismatch', requestId: id },
      { method: 'GET', path: '/1/events.json', status: 400, durationMs: expect.any(Number), reason: 'malformed_credentials', requestId: id },
      { method: 'DELETE', path: '/v1/connect', status: 405, durationMs: expect.any(Number), reason: 'method_not_allowed', requestId: id },
      { method: 'GET', path: '/nothing', status: 404, durationMs: expect.any(Number), requestId: 'proxy-7f3a' },
    ])
    expect(new Set(entries.map((entry) => entry.requestId)).size).toBe(5)
    const logged = JSON.stringify(entries)
    expect(logged).not.toContain(headers['x-service-passcode'])
    expect(logged).not.toContain('query-secret')
    expect(logged).not.toContain('acc_1')
  })

  it('echoes a well-formed X-Request-Id and replaces any other with a new UUID, even without a log', async () => {
    const { base } = await start()
    const echoed = async (value: string | undefined) =>
      (await fetch(`${base}/healthz`, { headers: value === undefined ? {} : { 'x-request-id': value } })).headers.get('x-request-id')
    expect(await echoed('4bf92f3577b34da6a3ce929d0e0e4736')).toBe('4bf92f3577b34da6a3ce929d0e0e4736')
    expect(await echoed('Root=1-67891233-abcdef012345678912345678')).toBe('Root=1-67891233-abcdef012345678912345678')
    const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/
    for (const malformed of [undefined, '', 'a'.repeat(129), 'two words', '<script>', 'id;drop', 'caf\u00e9']) {
      const answered = await echoed(malformed)
      expect(answered).toMatch(uuid)
    }
    // A repeated header reaches Node joined with ", ": not one ID, so replaced.
    const repeated = await new Promise<string | undefined>((resolve, reject) => {
      httpRequest(`${base}/healthz`, { headers: { 'x-request-id': ['first', 'second'] } }, (response) => {
        response.resume()
        resolve(response.headers['x-request-id'] as string | undefined)
      })
        .on('error', reject)
        .end()
    })
    expect(repeated).toMatch(uuid)
  })

  it('logs a request whose client went away: the status sent, or 499 before any, marked aborted', async () => {
    const entries: RequestLogEntry[] = []
    const { base } = await start({
      log: (entry) => entries.push(entry),
      mounts: [
        { path: '/never', methods: ['GET'], handle: () => new Promise<void>(() => undefined) },
        {
          path: '/partial',
          methods: ['GET'],
          handle: (_request, response) => {
            response.writeHead(200, { 'content-type': 'text/plain' })
            response.write('part of it')
          },
        },
      ],
    })
    for (const route of ['/never', '/partial']) {
      await new Promise<void>((resolve) => {
        const request = httpRequest(`${base}${route}`, { headers: { 'x-request-id': `gone${route.replace('/', '-')}` } }, (response) => {
          response.once('data', () => request.destroy())
        })
        request.on('error', () => resolve()).on('close', () => resolve())
        request.end()
        if (route === '/never') setTimeout(() => request.destroy(), 100)
      })
    }
    await waitFor(() => entries.length === 2)
    expect(entries).toEqual([
      { method: 'GET', path: '/never', status: 499, durationMs: expect.any(Number), requestId: 'gone-never', aborted: true },
      { method: 'GET', path: '/partial', status: 200, durationMs: expect.any(Number), requestId: 'gone-partial', aborted: true },
    ])
  })

  it('writes the JSON line and the terminal line of createRequestLog for real requests', async () => {
    const json: string[] = []
    const text: string[] = []
    const jsonLog = createRequestLog({ write: (line) => json.push(line), human: false })
    const textLog = createRequestLog({ write: (line) => text.push(line), human: true })
    const { base, headers } = await start({
      log: (entry) => {
        jsonLog(entry)
        textLog(entry)
      },
    })
    await call(`${base}/1/events.json`, { headers: { ...headers, 'x-request-id': 'req-42' } })
    await call(`${base}/1/events.json`, { headers: { 'x-request-id': 'req-43' } })
    await waitFor(() => json.length === 2)
    expect(JSON.parse(json[0]!)).toEqual({
      time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      method: 'GET',
      path: '/1/events.json',
      status: 200,
      durationMs: expect.any(Number),
      requestId: 'req-42',
    })
    expect(JSON.parse(json[1]!)).toMatchObject({ status: 400, reason: 'malformed_credentials', requestId: 'req-43' })
    expect(text[0]).toMatch(/^\d\d:\d\d:\d\d\.\d{3} GET \/1\/events\.json 200 \d+(\.\d)? ms req-42\n$/)
    expect(text[1]).toMatch(/^\d\d:\d\d:\d\d\.\d{3} GET \/1\/events\.json 400 \d+(\.\d)? ms malformed_credentials req-43\n$/)
  })

  it('closes while a keep-alive connection is idle, and lets a request in flight finish', async () => {
    let release: (() => void) | undefined
    const { base } = await start({
      mounts: [
        {
          path: '/slow',
          methods: ['GET'],
          handle: (_request, response) =>
            new Promise<void>((resolve) => {
              release = () => {
                sendJson(response, 200, { done: true })
                resolve()
              }
            }),
        },
      ],
    })
    // An idle keep-alive connection (fetch keeps one) must not hold close() open.
    await call(`${base}/healthz`)
    const slow = new Promise<number>((resolve, reject) => {
      httpRequest(`${base}/slow`, (response) => {
        response.resume()
        response.on('end', () => resolve(response.statusCode ?? 0))
      })
        .on('error', reject)
        .end()
    })
    while (release === undefined) await new Promise((resolve) => setTimeout(resolve, 5))
    const closed = app!.close()
    release()
    expect(await slow).toBe(200)
    await closed
    app = undefined
  })
})
