import { inspect } from 'node:util'
import { describe, expect, it } from 'vitest'
import { generatePasscode } from '../../src/core/passcode-format'
import { RefusalCache } from '../../src/service/verify/refusal-cache'

type Reason = 'expired' | 'revoked' | 'not_accepted'

describe('RefusalCache', () => {
  const now = 1_000_000

  it('answers an unknown value for every account, and a known one per account', () => {
    const cache = new RefusalCache<Reason>({ ttlMs: 10_000, maxEntries: 10 })
    cache.set('psc_unknown', undefined, undefined, now, cache.generation)
    cache.set('psc_expired', 'acc_1', 'expired', now, cache.generation)
    cache.set('psc_valid', 'acc_1', undefined, now, cache.generation)
    expect(cache.get('psc_unknown', 'acc_1', now)).toBe('unknown_passcode')
    expect(cache.get('psc_unknown', 'acc_2', now)).toBe('unknown_passcode')
    expect(cache.get('psc_expired', 'acc_1', now)).toBe('expired')
    expect(cache.get('psc_expired', 'acc_2', now)).toBe('wrong_account')
    // A valid passcode sent with another account's ID: only that refusal is remembered.
    expect(cache.get('psc_valid', 'acc_2', now)).toBe('wrong_account')
    expect(cache.get('psc_valid', 'acc_1', now)).toBeUndefined()
    expect(cache.get('psc_never_seen', 'acc_1', now)).toBeUndefined()
  })

  it('forgets every entry of an account on any of its invalidations, and everything on "all"', () => {
    const cache = new RefusalCache<Reason>({ ttlMs: 10_000, maxEntries: 10 })
    const fill = () => {
      cache.set('a', 'acc_1', 'expired', now, cache.generation)
      cache.set('b', 'acc_1', 'revoked', now, cache.generation)
      cache.set('c', 'acc_2', 'not_accepted', now, cache.generation)
      cache.set('d', undefined, undefined, now, cache.generation)
    }
    for (const invalidation of [
      { type: 'account', accountId: 'acc_1' },
      { type: 'account_passcode', accountId: 'acc_1', passcodeId: 'pc_other' },
      { type: 'user_passcode', accountId: 'acc_1', userId: 'u_other' },
    ] as const) {
      cache.clear()
      fill()
      cache.invalidate(invalidation)
      expect([cache.get('a', 'acc_1', now), cache.get('b', 'acc_1', now)]).toEqual([undefined, undefined])
      expect(cache.get('c', 'acc_2', now)).toBe('not_accepted')
      expect(cache.get('d', 'acc_1', now)).toBe('unknown_passcode')
    }
    cache.invalidate({ type: 'all' })
    expect(cache.size).toBe(0)
  })

  it('does not keep a read that an invalidation overtook', () => {
    const cache = new RefusalCache<Reason>({ ttlMs: 10_000, maxEntries: 10 })
    const generation = cache.generation
    cache.invalidate({ type: 'account', accountId: 'acc_9' })
    cache.set('a', 'acc_1', 'expired', now, generation)
    expect(cache.get('a', 'acc_1', now)).toBeUndefined()
  })

  it('keeps no entry past ttlMs', () => {
    const cache = new RefusalCache<Reason>({ ttlMs: 10_000, maxEntries: 10 })
    cache.set('a', 'acc_1', 'expired', now, cache.generation)
    expect(cache.get('a', 'acc_1', now + 4_999)).toBe('expired')
    cache.set('b', undefined, undefined, now + 5_000, cache.generation)
    expect(cache.get('a', 'acc_1', now + 9_999)).toBe('expired')
    expect(cache.get('a', 'acc_1', now + 10_000)).toBeUndefined()
    expect(cache.get('b', 'acc_1', now + 14_999)).toBe('unknown_passcode')
    expect(cache.get('b', 'acc_1', now + 15_000)).toBeUndefined()
  })

  it('holds at most maxEntries, dropping the oldest first, whatever is inserted', () => {
    const cache = new RefusalCache<Reason>({ ttlMs: 60_000, maxEntries: 1_000 })
    const first = generatePasscode()
    cache.set(first, undefined, undefined, now, cache.generation)
    for (let i = 0; i < 5_000; i++) cache.set(generatePasscode(), i % 2 === 0 ? undefined : `acc_${i}`, 'revoked', now, cache.generation)
    expect(cache.size).toBe(1_000)
    expect(cache.get(first, 'acc_1', now)).toBeUndefined()
  })

  it('never shows its values', () => {
    const cache = new RefusalCache<Reason>({ ttlMs: 10_000, maxEntries: 10 })
    const value = generatePasscode()
    cache.set(value, 'acc_1', 'expired', now, cache.generation)
    expect(inspect(cache)).not.toContain(value)
    expect(JSON.stringify(cache)).toBe('{"size":1}')
  })
})
