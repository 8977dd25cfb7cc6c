import { inspect } from 'node:util'
import { afterEach, describe, expect, it } from 'vitest'
import { ConnectError, createConnectClient, type ConnectClientOptions, UnexpectedResponseError } from '../../src/client'
import { BODIES, type FaultHandler, type FaultServer, sendJson, startFaultServer } from './fault-server'

/* SPEC §5.19: the passcode appears in no message, toString, toJSON or inspect output. */

const SECRET = 'psc_SecretValueThatMustNeverLeak000000'

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
    passcode: SECRET,
    retry: false,
    ...extra,
  } as ConnectClientOptions)
}

/** Every way an error or the client might be turned into text, cause chain included. */
function renderings(value: unknown): string[] {
  const texts = [String(value), JSON.stringify(value), inspect(value, { depth: 10, showHidden: true })]
  if (value instanceof Error) texts.push(value.message, value.stack ?? '')
  return texts
}

function expectNoSecret(value: unknown): void {
  for (const text of renderings(value)) expect(text).not.toContain(SECRET)
}

/** The request headers echoed back, as a misconfigured debug endpoint would. */
const echo: FaultHandler = (request, response) => {
  response.writeHead(200, { 'content-type': 'text/html' })
  response.end(`<pre>${JSON.stringify(request.headers)}</pre>`)
}

describe('the passcode never leaks', () => {
  it('is absent from the client’s toString, toJSON and inspect output', async () => {
    const server = await serve(echo)
    const client = clientFor(server, { partner: 'acme' })
    expectNoSecret(client)
    expect(JSON.parse(JSON.stringify(client))).toEqual({ baseUrl: server.url, accountId: 'acc_1', partner: 'acme' })
    expect(inspect(client)).toContain('[redacted]')
    expect(Object.values(client)).not.toContain(SECRET)
  })

  it.each<[string, FaultHandler]>([
    ['400', (_q, r) => sendJson(r, 400, BODIES.invalidCredentials)],
    ['400 missing partner', (_q, r) => sendJson(r, 400, BODIES.missingPartner)],
    ['401', (_q, r) => sendJson(r, 401, BODIES.expired)],
    ['403', (_q, r) => sendJson(r, 403, BODIES.notWhitelisted('acme'))],
    ['429', (_q, r) => sendJson(r, 429, BODIES.rateLimited, { 'retry-after': '60' })],
    ['503', (_q, r) => sendJson(r, 503, BODIES.serverError(503))],
    ['reset', (q) => q.socket.destroy()],
    ['echoed headers in HTML', echo],
    ['echoed headers in a 200 JSON body', (q, r) => sendJson(r, 200, { headers: q.headers })],
  ])('is absent from the error for %s', async (_name, handler) => {
    const server = await serve(handler)
    const error = await clientFor(server)
      .connect('acme')
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ConnectError)
    expectNoSecret(error)
    // The echoing servers did receive the passcode: the client blanked it out.
    if (error instanceof UnexpectedResponseError) expect(error.bodyExcerpt).toContain('[redacted]')
  })

  it('is blanked out of a body excerpt even when the 1 KB cut splits it', async () => {
    const server = await serve((request, response) => {
      response.writeHead(200, { 'content-type': 'text/plain' })
      // The passcode starts 10 bytes before the 1 024-byte cut.
      response.end('x'.repeat(1014) + String(request.headers['x-service-passcode']) + 'y'.repeat(100))
    })
    const error = await clientFor(server)
      .connect('acme')
      .catch((e: unknown) => e)
    expectNoSecret(error)
    expect(JSON.stringify(error)).not.toContain(SECRET.slice(0, 10))
    expect((error as UnexpectedResponseError).bodyExcerpt).toBe(`${'x'.repeat(1014)}[redacted]`)
  })

  it('is not echoed by an option error', () => {
    const bad = `${SECRET}\n`
    let error: unknown
    try {
      createConnectClient({ baseUrl: 'https://api.example.test', accountId: 'acc_1', passcode: bad })
    } catch (caught) {
      error = caught
    }
    expect(error).toMatchObject({ code: 'ERR_INVALID_OPTIONS', option: 'passcode' })
    expectNoSecret(error)
  })
})
