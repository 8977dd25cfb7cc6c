import { afterEach, describe, expect, it, vi } from 'vitest'
import { createConnectClient, type FetchLike, RateLimitedError, UnexpectedResponseError } from '../../src/client'
import { interpretResponse, type ReadResponse } from '../../src/client/interpret-response'
import { MAX_BODY_BYTES } from '../../src/client/read-body'
import { BODIES, TEST_PASSCODE } from './fault-server'

/*
 * The 429 of the service's optional brute-force limiter: a RateLimitedError when the
 * body is the limiter's, with what `Retry-After` asked for, and never retried.
 */

const JSON_TYPE = 'application/json; charset=utf-8'

function answer429(body: unknown, retryAfterMs?: number): ReadResponse {
  return { status: 429, contentType: JSON_TYPE, body: { bytes: new TextEncoder().encode(JSON.stringify(body)), truncated: false }, retryAfterMs }
}

const facts = { partner: 'acme', passcode: TEST_PASSCODE }

const WRONG_BODIES = [
  { status: 'fail', error: 'Too Many Requests', code: 400 },
  { status: 'fail', error: 'Slow down', code: 429 },
  { status: 'success', message: 'Authorised Successfully.' },
  { error: 'Too Many Requests' },
]

describe('interpretResponse of a 429', () => {
  it('is a RateLimitedError keeping what Retry-After asked for', () => {
    const error = interpretResponse(answer429(BODIES.rateLimited, 30_000), facts)
    expect(error).toBeInstanceOf(RateLimitedError)
    expect(error).toMatchObject({ code: 'ERR_RATE_LIMITED', status: 429, retryAfterMs: 30_000, name: 'RateLimitedError' })
    expect((error as RateLimitedError).toJSON()).toMatchObject({ code: 'ERR_RATE_LIMITED', status: 429, retryAfterMs: 30_000 })
  })

  it('has no retryAfterMs when no Retry-After came', () => {
    const error = interpretResponse(answer429(BODIES.rateLimited), facts)
    expect(error).toBeInstanceOf(RateLimitedError)
    expect((error as RateLimitedError).retryAfterMs).toBeUndefined()
  })

  it.each(WRONG_BODIES)('is an UnexpectedResponseError (schema) for the body %j', (body) => {
    expect(interpretResponse(answer429(body, 1_000), facts)).toMatchObject({ code: 'ERR_UNEXPECTED_RESPONSE', status: 429, reason: 'schema' })
  })
})

/** A fetch that answers every call with a 429, counting the calls. */
function answering429(headers: Record<string, string>, body: string = JSON.stringify(BODIES.rateLimited)) {
  const calls: string[] = []
  const fetch: FetchLike = async (input) => {
    calls.push(input)
    return new Response(body, { status: 429, headers: { 'content-type': JSON_TYPE, ...headers } })
  }
  return { fetch, calls }
}

function clientWith(fetch: FetchLike) {
  return createConnectClient({
    baseUrl: 'https://api.example.test',
    accountId: 'acc_1',
    passcode: TEST_PASSCODE,
    partner: 'acme',
    fetch,
    // Retries left and short waits: a 429 must still get one attempt only.
    retry: { retries: 5, baseDelayMs: 1, maxDelayMs: 2 },
  })
}

describe('a 429 through the client', () => {
  afterEach(() => {
    vi.useRealTimers()
  })

  it('rejects with a RateLimitedError reading Retry-After in seconds, after one attempt', async () => {
    const { fetch, calls } = answering429({ 'retry-after': '60' })
    const error = await clientWith(fetch)
      .connect()
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(RateLimitedError)
    expect(error).toMatchObject({ status: 429, retryAfterMs: 60_000 })
    expect(calls).toHaveLength(1)
  })

  it('reads Retry-After as an HTTP date, relative to when the answer came', async () => {
    vi.useFakeTimers({ toFake: ['Date'] })
    vi.setSystemTime(Date.parse('Wed, 21 Oct 2015 07:28:00 GMT'))
    const { fetch } = answering429({ 'retry-after': 'Wed, 21 Oct 2015 07:29:30 GMT' })
    await expect(clientWith(fetch).connect()).rejects.toMatchObject({ code: 'ERR_RATE_LIMITED', retryAfterMs: 90_000 })
  })

  it.each<Record<string, string>>([{}, { 'retry-after': 'soon' }])('has no retryAfterMs without a readable Retry-After (%j)', async (headers) => {
    const { fetch } = answering429(headers)
    const error = await clientWith(fetch)
      .connect()
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(RateLimitedError)
    expect((error as RateLimitedError).retryAfterMs).toBeUndefined()
  })

  it('is not retried even when Retry-After asks for no wait at all', async () => {
    const { fetch, calls } = answering429({ 'retry-after': '0' })
    await expect(clientWith(fetch).connect()).rejects.toBeInstanceOf(RateLimitedError)
    expect(calls).toHaveLength(1)
  })

  it('rejects a 429 with a wrong body as an UnexpectedResponseError (schema), not retried', async () => {
    const { fetch, calls } = answering429({ 'retry-after': '60' }, JSON.stringify({ status: 'fail', error: 'Slow down', code: 429 }))
    const error = await clientWith(fetch)
      .connect()
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(UnexpectedResponseError)
    expect(error).toMatchObject({ status: 429, reason: 'schema' })
    expect(calls).toHaveLength(1)
  })

  it('reads a 429 body under the same 64 KB bound as every answer', async () => {
    const { fetch } = answering429({ 'retry-after': '60' }, ' '.repeat(MAX_BODY_BYTES) + JSON.stringify(BODIES.rateLimited))
    await expect(clientWith(fetch).connect()).rejects.toMatchObject({ code: 'ERR_UNEXPECTED_RESPONSE', status: 429, reason: 'too_large' })
  })
})
