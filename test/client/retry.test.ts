import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { parseRetryAfter, retryDelayMs } from '../../src/client/retry'

const policy = { retries: 5, baseDelayMs: 100, maxDelayMs: 1_000 }

describe('retryDelayMs', () => {
  it('draws with full jitter below an exponentially growing, capped ceiling', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 20 }), fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), (retry, draw) => {
        const delay = retryDelayMs(policy, retry, undefined, () => draw)
        const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** retry)
        expect(delay).toBeGreaterThanOrEqual(0)
        expect(delay).toBeLessThan(ceiling)
      }),
    )
  })

  it('spans the whole range: 0 at the bottom, just under the ceiling at the top', () => {
    expect(retryDelayMs(policy, 2, undefined, () => 0)).toBe(0)
    expect(retryDelayMs(policy, 2, undefined, () => 0.9999)).toBe(399)
    expect(retryDelayMs(policy, 10, undefined, () => 0.9999)).toBe(999)
  })

  it('uses what Retry-After asked for, even above maxDelayMs', () => {
    expect(retryDelayMs(policy, 0, 5_000, () => 0.5)).toBe(5_000)
  })
})

describe('parseRetryAfter', () => {
  const now = Date.parse('Wed, 21 Oct 2015 07:28:00 GMT')

  it('reads delay-seconds', () => {
    expect(parseRetryAfter('0', now)).toBe(0)
    expect(parseRetryAfter(' 120 ', now)).toBe(120_000)
  })

  it('reads an HTTP date relative to now, a past one as 0', () => {
    expect(parseRetryAfter('Wed, 21 Oct 2015 07:28:03 GMT', now)).toBe(3_000)
    expect(parseRetryAfter('Wed, 21 Oct 2015 07:00:00 GMT', now)).toBe(0)
  })

  it.each([null, '', '-1', '1.5', 'soon', '2015-10-21T07:28:03Z'])('ignores %j', (value) => {
    expect(parseRetryAfter(value, now)).toBeUndefined()
  })
})
