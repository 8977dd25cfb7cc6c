import { once } from 'node:events'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { describe, expect, it } from 'vitest'
import { CONNECT_SUCCESS, FAILURES, partnerNotWhitelisted } from '../../src/protocol/outcomes'
import { writeNodeResponse } from '../../src/http/node/write-response'
import { serializeBody } from '../../src/http/serialize-body'
import { sendRaw } from './raw-client'

describe('serializeBody', () => {
  it('gives the exact SPEC text, key order included', () => {
    expect(serializeBody(FAILURES.unknown_passcode)).toBe('{"status":"fail","error":"Invalid Credentials","code":400}')
    expect(serializeBody(FAILURES.expired)).toBe('{"status":"fail","error":"Passcode expired","code":401}')
    expect(serializeBody(CONNECT_SUCCESS)).toBe('{"status":"success","message":"Authorised Successfully."}')
    expect(serializeBody(partnerNotWhitelisted('Glo"bex'))).toBe('{"status":"fail","error":"Partner not whitelisted Glo\\"bex","code":403}')
  })

  it('serialises each shared table entry once', () => {
    expect(serializeBody(FAILURES.storage_error)).toBe(serializeBody(FAILURES.storage_error))
    const body = Object.freeze({ status: 'fail', error: 'Server Error', code: 504 } as const)
    const stringify = JSON.stringify
    let calls = 0
    JSON.stringify = ((...args: Parameters<typeof stringify>) => (calls++, stringify(...args))) as typeof stringify
    try {
      serializeBody({ statusCode: 504, body })
      serializeBody({ statusCode: 504, body })
    } finally {
      JSON.stringify = stringify
    }
    expect(calls).toBe(1)
  })
})

describe('writeNodeResponse', () => {
  it('writes status, the two headers, Content-Length and the body bytes', async () => {
    const server = createServer((_, res) => writeNodeResponse(res, partnerNotWhitelisted('Zürich')))
    server.listen(0, '127.0.0.1')
    await once(server, 'listening')
    try {
      const response = await sendRaw((server.address() as AddressInfo).port, { target: '/', headers: [] })
      const expected = Buffer.from('{"status":"fail","error":"Partner not whitelisted Zürich","code":403}', 'utf8')
      expect(response.status).toBe(403)
      expect(response.headers['content-type']).toBe('application/json; charset=utf-8')
      expect(response.headers['cache-control']).toBe('no-store')
      expect(response.headers['content-length']).toBe(String(expected.length))
      expect(response.body.equals(expected)).toBe(true)
    } finally {
      server.close()
    }
  })
})
