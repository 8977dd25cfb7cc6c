import { once } from 'node:events'
import { createServer, type IncomingHttpHeaders } from 'node:http'
import type { AddressInfo } from 'node:net'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { nodeHeader } from '../../src/http/node/node-request'
import { readCredentials } from '../../src/protocol/credentials'
import { sendRaw, type RawRequest } from './raw-client'

/** Sends raw bytes to a bare Node server and returns the `req.headers` it saw. */
async function headersAsNodeSeesThem(headers: RawRequest['headers']): Promise<IncomingHttpHeaders> {
  let seen: IncomingHttpHeaders | undefined
  const server = createServer((req, res) => {
    seen = req.headers
    res.end()
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  try {
    await sendRaw((server.address() as AddressInfo).port, { target: '/', headers })
  } finally {
    server.close()
  }
  return seen!
}

const readNodeCredentials = (headers: IncomingHttpHeaders) => readCredentials(headers, nodeHeader)

// Characters around the visible-ASCII range and a little beyond, and lengths around 256.
const character = fc.integer({ min: 0, max: 0x1ff }).map((code) => String.fromCharCode(code))
const visible = fc.integer({ min: 0x21, max: 0x7e }).map((code) => String.fromCharCode(code))
const anyCharacters = fc.string({ unit: character, maxLength: 40 })
const nearTheLimit = fc
  .tuple(fc.string({ unit: visible, minLength: 250, maxLength: 260 }), fc.option(character))
  .map(([text, extra]) => text + (extra ?? ''))

describe('readNodeCredentials', () => {
  it('reads both headers from lower-cased names', () => {
    expect(readNodeCredentials({ 'x-service-account-id': 'acc_1', 'x-service-passcode': 'psc_x' })).toEqual({
      accountId: 'acc_1',
      passcode: 'psc_x',
    })
  })

  it('refuses a missing, empty, over-long or non-visible-ASCII value', () => {
    const ok = { 'x-service-account-id': 'acc_1', 'x-service-passcode': 'psc_x' }
    expect(readNodeCredentials({ 'x-service-passcode': 'psc_x' })).toBeUndefined()
    expect(readNodeCredentials({ 'x-service-account-id': 'acc_1' })).toBeUndefined()
    expect(readNodeCredentials({ ...ok, 'x-service-account-id': '' })).toBeUndefined()
    expect(readNodeCredentials({ ...ok, 'x-service-account-id': 'a'.repeat(257) })).toBeUndefined()
    expect(readNodeCredentials({ ...ok, 'x-service-account-id': 'a'.repeat(256) })).toEqual({ accountId: 'a'.repeat(256), passcode: 'psc_x' })
    expect(readNodeCredentials({ ...ok, 'x-service-passcode': 'psc_\u00e9' })).toBeUndefined()
  })

  it('refuses an array value of two (how some frameworks expose a repeated header)', () => {
    expect(readNodeCredentials({ 'x-service-account-id': 'acc_1', 'x-service-passcode': ['psc_x', 'psc_x'] })).toBeUndefined()
  })

  it('accepts exactly the values of 1 to 256 visible ASCII characters (property)', () => {
    fc.assert(
      fc.property(fc.oneof(anyCharacters, nearTheLimit), (value) => {
        const valid = value.length >= 1 && value.length <= 256 && /^[\x21-\x7e]+$/.test(value)
        const read = readNodeCredentials({ 'x-service-account-id': value, 'x-service-passcode': 'psc_x' })
        return read?.accountId === (valid ? value : undefined)
      }),
    )
  })
})

describe('Node joins a repeated custom header with ", " (why the space check is enough)', () => {
  it('joins two equal values, and the joined value is refused', async () => {
    const headers = await headersAsNodeSeesThem([
      ['X-Service-Account-Id', 'acc_1'],
      ['x-service-account-id', 'acc_1'],
      ['X-Service-Passcode', 'psc_x'],
    ])
    expect(headers['x-service-account-id']).toBe('acc_1, acc_1')
    expect(readNodeCredentials(headers)).toBeUndefined()
  })

  it('joins an empty value with a real one, and the joined value is refused', async () => {
    const emptyFirst = await headersAsNodeSeesThem([
      ['X-Service-Passcode', ''],
      ['X-Service-Passcode', 'psc_x'],
      ['X-Service-Account-Id', 'acc_1'],
    ])
    const emptyLast = await headersAsNodeSeesThem([
      ['X-Service-Passcode', 'psc_x'],
      ['X-Service-Passcode', ''],
      ['X-Service-Account-Id', 'acc_1'],
    ])
    expect(emptyFirst['x-service-passcode']).toBe(', psc_x')
    expect(emptyLast['x-service-passcode']).toBe('psc_x, ')
    expect(readNodeCredentials(emptyFirst)).toBeUndefined()
    expect(readNodeCredentials(emptyLast)).toBeUndefined()
  })

  it('keeps a single header as sent, minus surrounding whitespace', async () => {
    const headers = await headersAsNodeSeesThem([
      ['X-SERVICE-ACCOUNT-ID', ' acc_1 '],
      ['X-Service-Passcode', 'psc_x'],
    ])
    expect(readNodeCredentials(headers)).toEqual({ accountId: 'acc_1', passcode: 'psc_x' })
  })
})
