import { afterEach, describe, expect, expectTypeOf, it } from 'vitest'
import { createConnectClient, MalformedPasscodeError, RateLimitedError, type CheckResult, type ConnectClientOptions } from '../../src/client'
import { generatePasscode } from '../../src/core/passcode-format'
import { BODIES, type FaultHandler, type FaultServer, sendJson, startFaultServer, TEST_PASSCODE } from './fault-server'

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
  return createConnectClient({ baseUrl: server.url, accountId: 'acc_1', passcode: TEST_PASSCODE, retry: false, ...extra } as ConnectClientOptions)
}

describe('client.check', () => {
  it('resolves ok: true with the success body', async () => {
    const server = await serve((_request, response) => sendJson(response, 200, BODIES.success))
    await expect(clientFor(server).check('acme')).resolves.toEqual({
      ok: true,
      status: 'success',
      message: 'Authorised Successfully.',
    })
  })

  it.each<[string, FaultHandler, string]>([
    ['400', (_q, r) => sendJson(r, 400, BODIES.invalidCredentials), 'ERR_INVALID_CREDENTIALS'],
    ['400 missing partner', (_q, r) => sendJson(r, 400, BODIES.missingPartner), 'ERR_MISSING_PARTNER'],
    ['401', (_q, r) => sendJson(r, 401, BODIES.expired), 'ERR_PASSCODE_EXPIRED'],
    ['403', (_q, r) => sendJson(r, 403, BODIES.notWhitelisted('acme')), 'ERR_PARTNER_NOT_WHITELISTED'],
    ['429', (_q, r) => sendJson(r, 429, BODIES.rateLimited, { 'retry-after': '60' }), 'ERR_RATE_LIMITED'],
    ['504', (_q, r) => sendJson(r, 504, BODIES.serverError(504)), 'ERR_SERVER'],
    ['a reset', (q) => q.socket.destroy(), 'ERR_NETWORK'],
    ['HTML', (_q, r) => r.end('<html></html>'), 'ERR_UNEXPECTED_RESPONSE'],
  ])('resolves ok: false with the code and error for %s, never rejecting', async (_name, handler, code) => {
    const server = await serve(handler)
    const result = await clientFor(server).check('acme')
    expect(result.ok).toBe(false)
    if (result.ok) return
    expect(result.code).toBe(code)
    expect(result.error.code).toBe(code)
  })

  it('narrows the error by code', async () => {
    const server = await serve((_request, response) => sendJson(response, 403, BODIES.notWhitelisted('Globex')))
    const result: CheckResult = await clientFor(server).check('Globex')
    // Compile-time: `partner` exists only once the code is narrowed.
    const partner = !result.ok && result.code === 'ERR_PARTNER_NOT_WHITELISTED' ? result.error.partner : undefined
    expect(partner).toBe('Globex')
  })

  it('narrows a 429 to RateLimitedError, with what Retry-After asked for', async () => {
    const server = await serve((_request, response) => sendJson(response, 429, BODIES.rateLimited, { 'retry-after': '60' }))
    const result: CheckResult = await clientFor(server).check('acme')
    expect(result).toMatchObject({ ok: false, code: 'ERR_RATE_LIMITED' })
    if (result.ok || result.code !== 'ERR_RATE_LIMITED') return
    expectTypeOf(result.error).toEqualTypeOf<RateLimitedError>()
    expect(result.error).toBeInstanceOf(RateLimitedError)
    expect(result.error.retryAfterMs).toBe(60_000)
  })

  it('reports a timeout and an abort as results too', async () => {
    const server = await serve(() => {})
    expect(await clientFor(server, { timeoutMs: 100 }).check('acme')).toMatchObject({ ok: false, code: 'ERR_TIMEOUT' })
    expect(await clientFor(server).check('acme', { signal: AbortSignal.abort() })).toMatchObject({ ok: false, code: 'ERR_ABORTED' })
  })
})

describe('validatePasscodeFormat', () => {
  it('refuses a malformed passcode before any request when enabled', async () => {
    const server = await serve((_request, response) => sendJson(response, 200, BODIES.success))
    const client = clientFor(server, { validatePasscodeFormat: true })
    await expect(client.connect('acme')).rejects.toBeInstanceOf(MalformedPasscodeError)
    expect(await client.check('acme')).toMatchObject({ ok: false, code: 'ERR_MALFORMED_PASSCODE' })
    expect(server.requests).toHaveLength(0)
  })

  it('sends a well-formed passcode when enabled', async () => {
    const server = await serve((_request, response) => sendJson(response, 200, BODIES.success))
    const client = clientFor(server, { validatePasscodeFormat: true, passcode: generatePasscode() })
    await expect(client.connect('acme')).resolves.toMatchObject({ status: 'success' })
    expect(server.requests).toHaveLength(1)
  })

  it('is off by default, so legacy passcodes still work', async () => {
    const server = await serve((_request, response) => sendJson(response, 200, BODIES.success))
    await expect(clientFor(server, { passcode: 'legacy-passcode-2019' }).connect('acme')).resolves.toMatchObject({
      status: 'success',
    })
    expect(server.requests).toHaveLength(1)
  })
})
