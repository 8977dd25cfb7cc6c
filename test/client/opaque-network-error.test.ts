import { afterEach, describe, expect, it } from 'vitest'
import { createConnectClient, NetworkError } from '../../src/client'

/*
 * In a browser a CORS refusal and a network failure are the same fetch TypeError with no
 * reason. The client does not retry it there (no retry fixes a CORS refusal, and the
 * retries would eat the deadline); elsewhere a network failure is retried as before.
 * Chromium itself is driven in test/browser/cors.browser.test.ts.
 */

const passcode = 'psc_legacy-value'
const failingFetch = () => {
  const calls: string[] = []
  const fetch = async (url: string) => {
    calls.push(url)
    throw new TypeError('Failed to fetch')
  }
  return { calls, fetch }
}
const client = (fetch: (url: string) => Promise<Response>) =>
  createConnectClient({
    baseUrl: 'https://api.example.test',
    accountId: 'acc_1',
    passcode,
    fetch,
    retry: { retries: 2, baseDelayMs: 1, maxDelayMs: 1 },
  })

afterEach(() => {
  delete (globalThis as { document?: unknown }).document
})

describe('a fetch TypeError with no reason', () => {
  it('in a browser: one attempt, an opaque NetworkError that says it may be CORS', async () => {
    ;(globalThis as { document?: unknown }).document = {}
    const { calls, fetch } = failingFetch()
    const error = await client(fetch)
      .connect('acme')
      .catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(NetworkError)
    expect((error as NetworkError).opaque).toBe(true)
    expect((error as NetworkError).message).toMatch(/CORS/)
    expect(calls).toHaveLength(1)
    expect(JSON.stringify(error)).not.toContain(passcode)
  })

  it('elsewhere: retried as any network failure, not opaque', async () => {
    const { calls, fetch } = failingFetch()
    const error = await client(fetch)
      .connect('acme')
      .catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(NetworkError)
    expect((error as NetworkError).opaque).toBe(false)
    expect(calls).toHaveLength(3)
  })

  it('in a browser, with a reason (a runtime that gives one): retried', async () => {
    ;(globalThis as { document?: unknown }).document = {}
    const calls: string[] = []
    const fetch = async (url: string): Promise<Response> => {
      calls.push(url)
      throw new TypeError('fetch failed', { cause: new Error('ECONNREFUSED') })
    }
    const error = await client(fetch)
      .connect('acme')
      .catch((caught: unknown) => caught)
    expect((error as NetworkError).opaque).toBe(false)
    expect(calls).toHaveLength(3)
  })
})
