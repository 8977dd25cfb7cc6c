import { afterEach, describe, expect, it } from 'vitest'
import {
  AbortedError,
  createConnectClient,
  InvalidCredentialsError,
  MissingPartnerError,
  NetworkError,
  PartnerNotWhitelistedError,
  AddressNotAllowedError,
  MissingScopeError,
  PasscodeExpiredError,
  RateLimitedError,
  ServerError,
  TimeoutError,
  type ConnectClientOptions,
} from '../../src/client'
import { BODIES, type FaultHandler, type FaultServer, sendJson, startFaultServer, TEST_PASSCODE } from './fault-server'

/*
 * The client against a local server that misbehaves on purpose. Retry waits are kept
 * short (a few ms) so that tests exercise the policy without sleeping.
 */

const servers: FaultServer[] = []
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()))
})

async function serve(handler: FaultHandler): Promise<FaultServer> {
  const server = await startFaultServer(handler)
  servers.push(server)
  return server
}

const FAST_RETRY = { retries: 2, baseDelayMs: 5, maxDelayMs: 20 }

function clientFor(server: FaultServer, extra: Partial<ConnectClientOptions> = {}) {
  return createConnectClient({
    baseUrl: server.url,
    accountId: 'acc_1',
    passcode: TEST_PASSCODE,
    partner: 'acme',
    retry: FAST_RETRY,
    ...extra,
  } as ConnectClientOptions)
}

describe('retries', () => {
  it('succeeds after two retries when the server answers 503 twice then 200, within the deadline', async () => {
    const server = await serve((_request, response, index) =>
      index < 2 ? sendJson(response, 503, BODIES.serverError(503)) : sendJson(response, 200, BODIES.success),
    )
    const result = await clientFor(server, { timeoutMs: 5_000 }).connect()
    expect(result).toEqual({ status: 'success', message: 'Authorised Successfully.' })
    expect(server.requests).toHaveLength(3)
  })

  it('gives up with a ServerError carrying the status once the retries are spent', async () => {
    const server = await serve((_request, response) => sendJson(response, 504, BODIES.serverError(504)))
    const error = await clientFor(server)
      .connect()
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ServerError)
    expect(error).toMatchObject({ code: 'ERR_SERVER', status: 504 })
    expect(server.requests).toHaveLength(FAST_RETRY.retries + 1)
  })

  it('treats a 503 or 504 as a server error whatever its body (a proxy page)', async () => {
    const server = await serve((_request, response) => {
      response.writeHead(503, { 'content-type': 'text/html' })
      response.end('<html>maintenance</html>')
    })
    const error = await clientFor(server, { retry: false })
      .connect()
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ServerError)
    expect(server.requests).toHaveLength(1)
  })

  it('waits what Retry-After (seconds) asks before retrying', async () => {
    const server = await serve((_request, response, index) =>
      index === 0 ? sendJson(response, 503, BODIES.serverError(503), { 'retry-after': '1' }) : sendJson(response, 200, BODIES.success),
    )
    await expect(clientFor(server, { timeoutMs: 10_000 }).connect()).resolves.toMatchObject({ status: 'success' })
    expect(server.requests).toHaveLength(2)
    // Without Retry-After the policy would wait at most 20 ms.
    expect(server.requests[1]!.at - server.requests[0]!.at).toBeGreaterThanOrEqual(950)
  })

  it('does not wait for a Retry-After beyond the deadline: it fails at once with the ServerError', async () => {
    const server = await serve((_request, response) => sendJson(response, 503, BODIES.serverError(503), { 'retry-after': '30' }))
    const error = await clientFor(server, { timeoutMs: 2_000 })
      .connect()
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ServerError)
    expect(error).toMatchObject({ status: 503, retryAfterMs: 30_000 })
    expect(server.requests).toHaveLength(1)
  })

  it('retries a reset connection and then succeeds', async () => {
    const server = await serve((request, response, index) => (index === 0 ? request.socket.destroy() : sendJson(response, 200, BODIES.success)))
    await expect(clientFor(server).connect()).resolves.toMatchObject({ status: 'success' })
    expect(server.requests).toHaveLength(2)
  })

  it('fails with a NetworkError when every attempt is reset', async () => {
    const server = await serve((request) => request.socket.destroy())
    const error = await clientFor(server)
      .connect()
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(NetworkError)
    expect((error as NetworkError).cause).toBeDefined()
    expect(server.requests).toHaveLength(FAST_RETRY.retries + 1)
  })

  it('fails with a NetworkError when nothing listens', async () => {
    const server = await serve(() => {})
    const url = server.url
    await server.close()
    servers.splice(servers.indexOf(server), 1)
    const client = createConnectClient({ baseUrl: url, accountId: 'acc_1', passcode: TEST_PASSCODE, retry: FAST_RETRY })
    await expect(client.connect('acme')).rejects.toBeInstanceOf(NetworkError)
  })

  it('SPEC 5.48, 5.49: the 403s of a restricted passcode are typed errors; any other 403 text is unexpected', async () => {
    const answers = [
      [
        { status: 'fail', error: 'Address not allowed', code: 403 },
        { code: 'ERR_ADDRESS_NOT_ALLOWED', status: 403 },
      ],
      [
        { status: 'fail', error: 'Missing scope: events:write', code: 403 },
        { code: 'ERR_MISSING_SCOPE', status: 403, scope: 'events:write' },
      ],
      [{ status: 'fail', error: 'Missing scope: Events Write', code: 403 }, { code: 'ERR_UNEXPECTED_RESPONSE' }],
      [{ status: 'fail', error: 'Address not allowed', code: 400 }, { code: 'ERR_UNEXPECTED_RESPONSE' }],
    ] as const
    for (const [body, expected] of answers) {
      const server = await serve((_request, response) => sendJson(response, 403, body))
      const result = await clientFor(server).check()
      expect(result.ok, JSON.stringify(body)).toBe(false)
      if (!result.ok) expect(result.error, JSON.stringify(body)).toMatchObject(expected)
    }
  })

  it.each([
    [400, BODIES.invalidCredentials, InvalidCredentialsError],
    [400, BODIES.missingPartner, MissingPartnerError],
    [401, BODIES.expired, PasscodeExpiredError],
    [403, BODIES.notWhitelisted('acme'), PartnerNotWhitelistedError],
    [403, { status: 'fail', error: 'Address not allowed', code: 403 }, AddressNotAllowedError],
    [403, { status: 'fail', error: 'Missing scope: events:write', code: 403 }, MissingScopeError],
    [429, BODIES.rateLimited, RateLimitedError],
  ] as const)('never retries a %i (%o)', async (status, body, errorClass) => {
    const server = await serve((_request, response) => sendJson(response, status, body))
    const error = await clientFor(server, { retry: { retries: 5, baseDelayMs: 1, maxDelayMs: 2 } })
      .connect()
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(errorClass)
    expect(error).toMatchObject({ status })
    expect(server.requests).toHaveLength(1)
  })
})

describe('deadline and cancellation', () => {
  it('times out at timeoutMs when the server never answers, without retrying', async () => {
    const server = await serve(() => {})
    const started = Date.now()
    const error = await clientFor(server, { timeoutMs: 300 })
      .connect()
      .catch((e: unknown) => e)
    const elapsed = Date.now() - started
    expect(error).toBeInstanceOf(TimeoutError)
    expect(error).toMatchObject({ code: 'ERR_TIMEOUT', timeoutMs: 300 })
    expect(elapsed).toBeGreaterThanOrEqual(290)
    expect(elapsed).toBeLessThan(300 + 5_000)
    expect(server.requests).toHaveLength(1)
  })

  it('times out when the headers arrive but the body never ends', async () => {
    const server = await serve((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' })
      response.write('{"status":')
    })
    await expect(clientFor(server, { timeoutMs: 300 }).connect()).rejects.toBeInstanceOf(TimeoutError)
  })

  it('cancels at once when the caller aborts a pending request', async () => {
    const server = await serve(() => {})
    const controller = new AbortController()
    const pending = clientFor(server, { timeoutMs: 60_000 }).connect('acme', { signal: controller.signal })
    await server.waitForRequests(1)
    const reason = new Error('user left the page')
    const abortedAt = Date.now()
    controller.abort(reason)
    const error = await pending.catch((e: unknown) => e)
    expect(error).toBeInstanceOf(AbortedError)
    expect((error as AbortedError).cause).toBe(reason)
    expect(Date.now() - abortedAt).toBeLessThan(5_000)
  })

  it('cancels at once during a backoff wait', async () => {
    const server = await serve((_request, response) => sendJson(response, 503, BODIES.serverError(503), { 'retry-after': '20' }))
    const controller = new AbortController()
    const pending = clientFor(server, { timeoutMs: 60_000, signal: controller.signal }).connect()
    await server.waitForRequests(1)
    await new Promise((resolve) => setTimeout(resolve, 50))
    controller.abort()
    await expect(pending).rejects.toBeInstanceOf(AbortedError)
    expect(server.requests).toHaveLength(1)
  })

  it('cancels at once even with a fetch that ignores its signal', async () => {
    const controller = new AbortController()
    const client = createConnectClient({
      baseUrl: 'http://127.0.0.1:9',
      accountId: 'acc_1',
      passcode: TEST_PASSCODE,
      fetch: () => new Promise<Response>(() => {}),
      timeoutMs: 60_000,
    })
    const pending = client.connect('acme', { signal: controller.signal })
    controller.abort()
    await expect(pending).rejects.toBeInstanceOf(AbortedError)
  })

  it('sends nothing when the signal is already aborted', async () => {
    const server = await serve((_request, response) => sendJson(response, 200, BODIES.success))
    await expect(clientFor(server).connect('acme', { signal: AbortSignal.abort() })).rejects.toBeInstanceOf(AbortedError)
    expect(server.requests).toHaveLength(0)
  })

  it('detaches from a long-lived client signal after each call', async () => {
    const server = await serve((_request, response) => sendJson(response, 200, BODIES.success))
    const controller = new AbortController()
    const client = clientFor(server, { signal: controller.signal })
    await client.connect()
    await client.connect()
    // Aborting afterwards must not touch finished calls, and a new call sees it at once.
    controller.abort()
    await expect(client.connect()).rejects.toBeInstanceOf(AbortedError)
    expect(server.requests).toHaveLength(2)
  })
})
