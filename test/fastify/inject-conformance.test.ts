import fastify5, { type FastifyInstance } from 'fastify'
import fastify4 from 'fastify4'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { HTTP_CASES } from '../conformance/http'
import { createHttpFixture, type HttpFixture } from '../http/fixture'
import { fastifyApp } from '../http/frameworks'
import type { RawRequest } from '../http/raw-client'

/**
 * The conformance table again, through Fastify's in-process `inject` instead of a
 * socket. Without a wire there is no HTTP parser, so headers are handed over as Node's
 * parser would leave them: names lower-cased, surrounding whitespace trimmed, and a
 * repeated header as an array (the shape `inject` supports) rather than joined.
 */
function injectHeaders(headers: RawRequest['headers']): Record<string, string | string[]> {
  const result: Record<string, string | string[]> = {}
  for (const [name, raw] of headers) {
    const key = name.toLowerCase()
    const value = raw.trim()
    const previous = result[key]
    result[key] = previous === undefined ? value : [...(Array.isArray(previous) ? previous : [previous]), value]
  }
  return result
}

describe.each([
  // Fastify 4 predates QUERY: its router answers 404 (see FRAMEWORKS), its inject refuses it.
  ['fastify 4', fastify4 as unknown as typeof fastify5, ['QUERY']],
  ['fastify 5', fastify5, []],
] as const)('%s through inject', (_, fastify, unroutable: readonly string[]) => {
  let fixture: HttpFixture
  let app: FastifyInstance

  beforeAll(async () => {
    fixture = await createHttpFixture()
    app = await fastifyApp(fastify, fixture.auth)
  })
  afterAll(async () => {
    await app?.close()
    await fixture?.close()
  })

  it.each(HTTP_CASES.map((testCase) => [testCase.name, testCase] as const))('%s', async (_, testCase) => {
    const request = testCase.request(fixture)
    if (testCase.method !== undefined && unroutable.includes(testCase.method)) {
      // Its inject refuses the method outright; over a socket the router answers 404.
      await expect(app.inject({ method: testCase.method as 'GET', url: request.target })).rejects.toThrow('allowed values')
      return
    }
    fixture.setStorage(testCase.storage ?? 'normal')
    fixture.setPartners(testCase.partners ?? 'normal')
    let response
    try {
      response = await app.inject({ method: (request.method ?? 'GET') as 'GET', url: request.target, headers: injectHeaders(request.headers) })
    } finally {
      fixture.setStorage('normal')
      fixture.setPartners('normal')
    }
    const expected = testCase.expected(fixture)
    expect(response.statusCode).toBe(expected.status)
    expect(response.rawPayload.equals(Buffer.from(expected.body, 'utf8'))).toBe(true)
    expect(response.headers['content-type']).toBe(expected.headers['content-type'])
    expect(response.headers['cache-control']).toBe(expected.headers['cache-control'])
    if (expected.allow !== undefined) expect(response.headers.allow).toBe(expected.allow)
    expect(response.headers.sunset).toBe(expected.sunset ?? undefined)
  })
})
