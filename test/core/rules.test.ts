import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  accountPasscodeExpiresAt,
  canManageAccountPasscodes,
  canManageUserPasscodes,
  canRevealUserPasscode,
  checkPasscodeName,
  isValidAccountExpiryDays,
  isValidUserValidityDays,
  isVisibleAscii,
  passcodeNameKey,
  userPasscodeExpiresAt,
} from '../../src/core/rules'
import { addUtcYears, DAY_MS } from '../../src/core/time'

describe('SPEC 5.7 day counts', () => {
  it.each([
    [0, false],
    [1, true],
    [365, true],
    [366, true],
    [3650, true],
    [3651, false],
    [1.5, false],
    [-1, false],
    [Number.NaN, false],
  ])('account expiry of %s days is valid: %s', (days, valid) => {
    expect(isValidAccountExpiryDays(days)).toBe(valid)
  })

  it.each([
    [0, false],
    [1, true],
    [365, true],
    [366, false],
  ])('finite user validity of %s days is valid: %s', (days, valid) => {
    expect(isValidUserValidityDays(days)).toBe(valid)
  })

  it('computes expiresAt = from + days × 86 400 000, and null for forever', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 3650 }), fc.integer({ min: 0, max: 4e12 }), (days, from) => {
        expect(accountPasscodeExpiresAt(from, days)).toBe(from + days * 86_400_000)
      }),
      { seed: 5 },
    )
    expect(accountPasscodeExpiresAt(123, 'forever')).toBeNull()
    expect(userPasscodeExpiresAt(1000, { type: 'finite', days: 2 })).toBe(1000 + 2 * DAY_MS)
  })

  it('gives infinite user validity 10 calendar years in UTC', () => {
    const from = Date.UTC(2026, 10, 21, 13, 45, 7, 89)
    expect(userPasscodeExpiresAt(from, { type: 'infinite' })).toBe(Date.UTC(2036, 10, 21, 13, 45, 7, 89))
  })

  it('lands a 29 February start on 28 February of a non-leap target year', () => {
    expect(addUtcYears(Date.UTC(2028, 1, 29, 10), 10)).toBe(Date.UTC(2038, 1, 28, 10))
    expect(addUtcYears(Date.UTC(2028, 1, 29, 10), 4)).toBe(Date.UTC(2032, 1, 29, 10))
  })
})

describe('SPEC 5.10 names', () => {
  it('trims and accepts 1 to 64 characters', () => {
    expect(checkPasscodeName('  Partner A  ')).toEqual({ ok: true, name: 'Partner A' })
    expect(checkPasscodeName('x'.repeat(64))).toEqual({ ok: true, name: 'x'.repeat(64) })
    expect(checkPasscodeName('x'.repeat(65)).ok).toBe(false)
    expect(checkPasscodeName('   ').ok).toBe(false)
    expect(checkPasscodeName('').ok).toBe(false)
    expect(checkPasscodeName('a\u0000b').ok).toBe(false)
  })

  it('counts characters, not UTF-16 units', () => {
    expect(checkPasscodeName('😀'.repeat(64)).ok).toBe(true)
    expect(checkPasscodeName('😀'.repeat(65)).ok).toBe(false)
  })

  it('compares case-insensitively after trimming (property)', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 20 }), fc.boolean(), (name, upper) => {
        const variant = `  ${upper ? name.toUpperCase() : name.toLowerCase()} `
        expect(passcodeNameKey(variant)).toBe(passcodeNameKey(name.toLowerCase()))
      }),
      { seed: 9 },
    )
  })
})

describe('SPEC 2 and 3 permissions', () => {
  it('lets admins and members with User Settings write access manage account passcodes', () => {
    expect(canManageAccountPasscodes({ userId: 'a', role: 'admin' })).toBe(true)
    expect(canManageAccountPasscodes({ userId: 'm', role: 'member', canWriteUserSettings: true })).toBe(true)
    expect(canManageAccountPasscodes({ userId: 'm', role: 'member' })).toBe(false)
  })

  it('lets only admins grant, reset and revoke user passcodes', () => {
    expect(canManageUserPasscodes({ userId: 'a', role: 'admin' })).toBe(true)
    expect(canManageUserPasscodes({ userId: 'm', role: 'member', canWriteUserSettings: true })).toBe(false)
  })

  it('lets only the user reveal their own passcode', () => {
    expect(canRevealUserPasscode({ userId: 'u1', role: 'member' }, 'u1')).toBe(true)
    expect(canRevealUserPasscode({ userId: 'a', role: 'admin' }, 'u1')).toBe(false)
  })
})

describe('SPEC 5.4 header value hygiene', () => {
  it('accepts 1 to 256 visible ASCII characters only', () => {
    expect(isVisibleAscii('abc')).toBe(true)
    expect(isVisibleAscii('a'.repeat(256))).toBe(true)
    expect(isVisibleAscii('a'.repeat(257))).toBe(false)
    expect(isVisibleAscii('')).toBe(false)
    expect(isVisibleAscii('a b')).toBe(false)
    expect(isVisibleAscii('a\tb')).toBe(false)
    expect(isVisibleAscii('é')).toBe(false)
    expect(isVisibleAscii('a\u007f')).toBe(false)
  })
})
