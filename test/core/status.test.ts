import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { passcodeStatus } from '../../src/core/status'
import { DAY_MS } from '../../src/core/time'

const now = Date.UTC(2026, 5, 1)
const window = 30 * DAY_MS

describe('SPEC 5.7 expiry status boundaries', () => {
  it('is expiring_soon at exactly 30 days left and active 1 ms before that', () => {
    expect(passcodeStatus({ expiresAt: now + window }, now)).toBe('expiring_soon')
    expect(passcodeStatus({ expiresAt: now + window + 1 }, now)).toBe('active')
    expect(passcodeStatus({ expiresAt: now + window - 1 }, now)).toBe('expiring_soon')
  })

  it('is expired at the expiry instant and expiring_soon 1 ms before', () => {
    expect(passcodeStatus({ expiresAt: now }, now)).toBe('expired')
    expect(passcodeStatus({ expiresAt: now + 1 }, now)).toBe('expiring_soon')
    expect(passcodeStatus({ expiresAt: now - 1 }, now)).toBe('expired')
  })

  it('never expires a forever passcode', () => {
    expect(passcodeStatus({ expiresAt: null }, Number.MAX_SAFE_INTEGER)).toBe('active')
  })

  it('says revoked for a revoked user passcode whatever its expiry', () => {
    expect(passcodeStatus({ expiresAt: now + 5, revokedAt: now }, now)).toBe('revoked')
    expect(passcodeStatus({ expiresAt: now - 5, revokedAt: now }, now)).toBe('revoked')
  })

  it('accepts Dates as well as epoch milliseconds', () => {
    expect(passcodeStatus({ expiresAt: new Date(now + DAY_MS) }, new Date(now))).toBe('expiring_soon')
  })

  it('partitions time exactly as the rule says (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: -10 * window, max: 10 * window }), (remaining) => {
        const status = passcodeStatus({ expiresAt: now + remaining }, now)
        const expected = remaining <= 0 ? 'expired' : remaining <= window ? 'expiring_soon' : 'active'
        expect(status).toBe(expected)
      }),
      { numRuns: 5000, seed: 11 },
    )
  })
})
