import { describe, expect, it } from 'vitest'
import { createConnectRequest } from '../../src/http/connect-request'
import { nodeRequestReader, type NodeRequestLike } from '../../src/http/node/node-request'
import type { PasscodeAuth } from '../../src/index'
import { setup, admin } from '../helpers/service'

async function withPasscode() {
  const { auth } = setup()
  const { value } = await auth.passcodes.create(admin, 'acc_1', { name: 'Partner A', expiry: 90 })
  const headers = { 'x-service-account-id': 'acc_1', 'x-service-passcode': value }
  return { auth, headers }
}

const reader = nodeRequestReader(
  (request: NodeRequestLike) => request,
  () => undefined,
)
const connectNodeRequest = (auth: PasscodeAuth, request: NodeRequestLike) => createConnectRequest(auth, reader)(request)

describe('createConnectRequest with the Node reader', () => {
  it('answers 200 for valid headers and a whitelisted partner in the raw URL', async () => {
    const { auth, headers } = await withPasscode()
    expect(await connectNodeRequest(auth, { headers, url: '/v1/connect?partner=acme' })).toEqual({
      statusCode: 200,
      body: { status: 'success', message: 'Authorised Successfully.' },
    })
  })

  it('reads partner from the raw query only: partner[a] is not partner, a repeat names no partner', async () => {
    const { auth, headers } = await withPasscode()
    for (const url of ['/v1/connect?partner[a]=acme', '/v1/connect?partner=acme&partner=acme', '/v1/connect', '/v1/connect?']) {
      const result = await connectNodeRequest(auth, { headers, url })
      expect(result).toMatchObject({ statusCode: 400, body: { error: 'Missing partner' }, reason: 'missing_partner' })
    }
  })

  it('checks the credentials before the partner', async () => {
    const { auth } = await withPasscode()
    const result = await connectNodeRequest(auth, { headers: {}, url: '/v1/connect?partner=globex' })
    expect(result).toMatchObject({ statusCode: 400, body: { error: 'Invalid Credentials' } })
  })

  it('treats a missing url as one without a query', async () => {
    const { auth, headers } = await withPasscode()
    expect(await connectNodeRequest(auth, { headers })).toMatchObject({ statusCode: 400, body: { error: 'Missing partner' } })
  })
})

describe('auth.connect with credentials already read (the adapters’ fast path)', () => {
  it('answers like the headers form', async () => {
    const { auth, headers } = await withPasscode()
    const credentials = { accountId: headers['x-service-account-id'], passcode: headers['x-service-passcode'] }
    const viaCredentials = await auth.connect({ credentials, partner: ' ACME ' })
    const viaHeaders = await auth.connect({ headers, partner: ' ACME ' })
    expect(viaCredentials).toEqual(viaHeaders)
    expect(viaCredentials.statusCode).toBe(200)
  })

  it('refuses undefined credentials (headers that broke SPEC §5.4) as Invalid Credentials', async () => {
    const { auth } = await withPasscode()
    expect(await auth.connect({ credentials: undefined, partner: 'acme' })).toMatchObject({
      statusCode: 400,
      body: { status: 'fail', error: 'Invalid Credentials', code: 400 },
    })
  })
})
