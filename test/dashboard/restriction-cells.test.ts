import { describe, expect, it } from 'vitest'
import {
  addressesText,
  creditsText,
  rateLimitText,
  rateLimitWords,
  refillText,
  scopesText,
  unrestricted,
  windowText,
} from '../../src/dashboard/client/components/restriction-cells'

/** The words of a restricted passcode's row (SPEC §5.48–5.50), which test/dashboard/list-restrictions.browser.test.ts reads in Chromium too. */

const credits = (remaining: number, refill: { amount: number; interval: 'day' | 'week' | 'month' } | null = null) => ({
  remaining,
  refill,
  nextRefillAt: refill ? '2026-02-01T00:00:00.000Z' : null,
})

describe('the rate limit', () => {
  it('reads "100 / 60 s" to the eye, whole hours in hours, numbers grouped', () => {
    expect(rateLimitText({ max: 100, windowSeconds: 60 })).toBe('100 / 60 s')
    expect(rateLimitText({ max: 1_000_000, windowSeconds: 86_400 })).toBe('1,000,000 / 24 h')
    expect(rateLimitText({ max: 5, windowSeconds: 3600 })).toBe('5 / 1 h')
    expect(rateLimitText({ max: 5, windowSeconds: 5400 })).toBe('5 / 5,400 s')
    expect(windowText(1)).toBe('1 s')
  })

  it('reads in words to a screen reader, which would say "slash"', () => {
    expect(rateLimitWords({ max: 100, windowSeconds: 60 })).toBe('100 requests per 60 seconds')
    expect(rateLimitWords({ max: 1, windowSeconds: 1 })).toBe('1 request per second')
    expect(rateLimitWords({ max: 2_500, windowSeconds: 3600 })).toBe('2,500 requests per hour')
    expect(rateLimitWords({ max: 10, windowSeconds: 86_400 })).toBe('10 requests per 24 hours')
  })
})

describe('the credits', () => {
  it('says how many are left, none as "No credits left", and the refill as set (not added)', () => {
    expect(creditsText(credits(940))).toBe('940 credits left')
    expect(creditsText(credits(1))).toBe('1 credit left')
    expect(creditsText(credits(0))).toBe('No credits left')
    expect(creditsText(credits(1_000_000_000_000))).toBe('1,000,000,000,000 credits left')
    expect(refillText(credits(940, { amount: 1000, interval: 'month' }))).toBe('Refilled to 1,000 each month')
    expect(refillText(credits(3, { amount: 10, interval: 'day' }))).toBe('Refilled to 10 each day')
    expect(refillText(credits(3))).toBe('')
  })
})

describe('the access', () => {
  it('says "All scopes" for every scope, the list otherwise, and counts the address ranges', () => {
    expect(scopesText(null)).toBe('All scopes')
    expect(scopesText([])).toBe('No scopes')
    expect(scopesText(['events:read', 'events:write'])).toBe('events:read, events:write')
    expect(addressesText([])).toBe('Any address')
    expect(addressesText(['10.0.0.0/8'])).toBe('1 address range')
    expect(addressesText(['10.0.0.0/8', '2001:db8::/32'])).toBe('2 address ranges')
  })

  it('calls a passcode unrestricted only with every scope from any address', () => {
    const base = { scopes: null, unknownScopes: [], allowedAddresses: [], rateLimit: null, credits: null }
    expect(unrestricted(base)).toBe(true)
    expect(unrestricted({ ...base, scopes: ['events:read'] })).toBe(false)
    expect(unrestricted({ ...base, allowedAddresses: ['10.0.0.0/8'] })).toBe(false)
  })
})
