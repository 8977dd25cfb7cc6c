import { afterEach, describe, expect, it } from 'vitest'
import { createConnectClient } from '../../src/client'
import { BODIES, type FaultServer, sendJson, startFaultServer, TEST_PASSCODE } from './fault-server'

/* The client exposes the service's expiry warning (the Sunset header, RFC 8594) as `expiresAt`. */

const servers: FaultServer[] = []
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()))
})

async function clientAnswered(headers: Record<string, string>) {
  const server = await startFaultServer((_request, response) => sendJson(response, 200, BODIES.success, headers))
  servers.push(server)
  return createConnectClient({ baseUrl: server.url, accountId: 'acc_1', passcode: TEST_PASSCODE, partner: 'acme' })
}

describe('expiresAt', () => {
  it('is the Sunset instant on connect() and check() results', async () => {
    const client = await clientAnswered({ sunset: 'Sat, 31 Jan 2026 00:00:00 GMT' })
    expect((await client.connect()).expiresAt).toEqual(new Date(Date.UTC(2026, 0, 31)))
    expect(await client.check()).toEqual({
      ok: true,
      status: 'success',
      message: 'Authorised Successfully.',
      expiresAt: new Date(Date.UTC(2026, 0, 31)),
    })
  })

  it('is absent without a Sunset header, or with one that is not a date', async () => {
    expect(await (await clientAnswered({})).check()).toEqual({ ok: true, status: 'success', message: 'Authorised Successfully.' })
    expect((await (await clientAnswered({ sunset: 'soon' })).connect()).expiresAt).toBeUndefined()
  })
})
