import { afterEach, describe, expect, it } from 'vitest'
import { createConnectClient, type ConnectClientOptions, UnexpectedResponseError } from '../../src/client'
import { MAX_BODY_BYTES } from '../../src/client/read-body'
import { BODIES, type FaultHandler, type FaultServer, sendJson, startFaultServer, TEST_PASSCODE } from './fault-server'

/* What the client sends, and what it makes of answers that are not /v1/connect's. */

const servers: FaultServer[] = []
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()))
})

async function serve(handler: FaultHandler): Promise<FaultServer> {
  const server = await startFaultServer(handler)
  servers.push(server)
  return server
}

function clientFor(server: FaultServer, extra: Partial<ConnectClientOptions> = {}) {
  return createConnectClient({
    baseUrl: server.url,
    accountId: 'acc_1',
    passcode: TEST_PASSCODE,
    retry: { retries: 2, baseDelayMs: 5, maxDelayMs: 20 },
    ...extra,
  } as ConnectClientOptions)
}

async function unexpected(promise: Promise<unknown>): Promise<UnexpectedResponseError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(error).toBeInstanceOf(UnexpectedResponseError)
  return error as UnexpectedResponseError
}

describe('the request', () => {
  it('sends both credential headers, Accept, the User-Agent and the partner to /v1/connect under the base path', async () => {
    const server = await serve((_request, response) => sendJson(response, 200, BODIES.success))
    const client = createConnectClient({
      baseUrl: `${server.url}/service`,
      accountId: 'acc_42',
      passcode: TEST_PASSCODE,
      userAgent: 'partner-app/1.0',
    })
    await client.connect('Acme & Co')
    const [request] = server.requests
    expect(request!.url).toBe('/service/v1/connect?partner=Acme+%26+Co')
    expect(request!.headers).toMatchObject({
      'x-service-account-id': 'acc_42',
      'x-service-passcode': TEST_PASSCODE,
      accept: 'application/json',
      'user-agent': 'partner-app/1.0',
    })
  })

  it('uses the partner option by default, the argument when given, and no partner when neither is', async () => {
    const server = await serve((_request, response) => sendJson(response, 200, BODIES.success))
    const withDefault = clientFor(server, { partner: 'globex' })
    await withDefault.connect()
    await withDefault.connect('initech')
    await clientFor(server)
      .connect()
      .catch(() => {})
    expect(server.requests.map((r) => r.url)).toEqual(['/v1/connect?partner=globex', '/v1/connect?partner=initech', '/v1/connect'])
  })
})

describe('answers that are not /v1/connect answers', () => {
  it('rejects HTML sent with status 200, keeping the status, content type and an excerpt', async () => {
    const server = await serve((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
      response.end('<!doctype html><html><body>Welcome to the captive portal</body></html>')
    })
    const error = await unexpected(clientFor(server).connect('acme'))
    expect(error).toMatchObject({ status: 200, contentType: 'text/html; charset=utf-8', reason: 'content_type' })
    expect(error.bodyExcerpt).toContain('captive portal')
    expect(server.requests).toHaveLength(1)
  })

  it('rejects a 200 JSON body of the wrong shape', async () => {
    const server = await serve((_request, response) => sendJson(response, 200, { ok: true, user: 'acc_1' }))
    const error = await unexpected(clientFor(server).connect('acme'))
    expect(error).toMatchObject({ status: 200, reason: 'schema', bodyExcerpt: '{"ok":true,"user":"acc_1"}' })
  })

  it('rejects a refusal body that does not match its status', async () => {
    const server = await serve((_request, response) => sendJson(response, 401, BODIES.invalidCredentials))
    await expect(unexpected(clientFor(server).connect('acme'))).resolves.toMatchObject({ status: 401, reason: 'schema' })
  })

  it('rejects invalid JSON', async () => {
    const server = await serve((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' })
      response.end('{"status":"success",')
    })
    await expect(unexpected(clientFor(server).connect('acme'))).resolves.toMatchObject({ reason: 'invalid_json' })
  })

  it.each([404, 500, 502])('rejects status %i as unexpected, without retrying', async (status) => {
    const server = await serve((_request, response) => sendJson(response, status, { status: 'fail', error: 'x', code: status }))
    await expect(unexpected(clientFor(server).connect('acme'))).resolves.toMatchObject({ status, reason: 'status' })
    expect(server.requests).toHaveLength(1)
  })

  it('does not follow a redirect, so the passcode never reaches another host', async () => {
    const elsewhere = await serve((_request, response) => sendJson(response, 200, BODIES.success))
    const server = await serve((_request, response) => {
      response.writeHead(302, { location: `${elsewhere.url}/v1/connect?partner=acme` })
      response.end()
    })
    await expect(unexpected(clientFor(server).connect('acme'))).resolves.toMatchObject({ status: 302, reason: 'status' })
    expect(elsewhere.requests).toHaveLength(0)
  })

  it('reads at most 64 KB of a 10 MB body and cuts the transfer', async () => {
    const total = 10 * 1024 * 1024
    const chunk = Buffer.alloc(64 * 1024, 'a')
    let written = 0
    let closed!: () => void
    const serverDone = new Promise<void>((resolve) => (closed = resolve))
    const server = await serve((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': String(total) })
      response.on('close', closed)
      const pump = (): void => {
        while (written < total && !response.destroyed) {
          written += chunk.length
          if (!response.write(chunk)) return void response.once('drain', pump)
        }
        if (written >= total) response.end()
      }
      pump()
    })

    // Counts what the client pulls from the body; highWaterMark 0 so nothing is read ahead.
    let pulled = 0
    let cancelled = false
    const countingFetch = async (input: string, init: RequestInit): Promise<Response> => {
      const response = await fetch(input, init)
      const reader = response.body!.getReader()
      const body = new ReadableStream<Uint8Array>(
        {
          async pull(controller) {
            const { done, value } = await reader.read()
            if (done) {
              controller.close()
              return
            }
            pulled += value.byteLength
            controller.enqueue(value)
          },
          cancel: (reason) => {
            cancelled = true
            return reader.cancel(reason)
          },
        },
        { highWaterMark: 0 },
      )
      return new Response(body, { status: response.status, headers: response.headers })
    }

    const error = await unexpected(clientFor(server, { fetch: countingFetch }).connect('acme'))
    expect(error).toMatchObject({ status: 200, reason: 'too_large' })
    expect(error.bodyExcerpt).toBe('a'.repeat(1024))
    expect(cancelled).toBe(true)
    // The limit plus at most one transport chunk past it.
    expect(pulled).toBeLessThanOrEqual(MAX_BODY_BYTES + 256 * 1024)
    await serverDone
    expect(written).toBeLessThan(total)
  })
})
