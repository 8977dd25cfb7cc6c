import { describe, expect, it } from 'vitest'
import { withClientAddress } from '../../src/http/fetch/fetch-request'
import type { RequestReader } from '../../src/http/request-reader'

describe('withClientAddress', () => {
  const request = new Request('http://localhost/v1/connect?partner=acme', { headers: { 'x-service-account-id': 'acc_1' } })

  it('reads the request as fetch holds it, and the address given beside it only during the call', () => {
    let reader!: RequestReader<Request>
    const handle = withClientAddress((given) => {
      reader = given
      return (r: Request) => [reader.clientAddress(r), reader.method(r), reader.target(r), reader.header(r, 'x-service-account-id')]
    })
    expect(handle(request, '203.0.113.7')).toEqual(['203.0.113.7', 'GET', 'http://localhost/v1/connect?partner=acme', 'acc_1'])
    expect(reader.clientAddress(request)).toBeUndefined()
    expect(handle(request, undefined)[0]).toBeUndefined()
  })

  it('forgets the address when the handler throws, so the next request does not inherit it', () => {
    let reader!: RequestReader<Request>
    const handle = withClientAddress((given) => {
      reader = given
      return () => {
        throw new Error('handler failed')
      }
    })
    expect(() => handle(request, '203.0.113.7')).toThrow('handler failed')
    expect(reader.clientAddress(request)).toBeUndefined()
  })
})
