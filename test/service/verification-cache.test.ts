import { describe, expect, it } from 'vitest'
import type { Principal } from '../../src/index'
import { VerificationCache } from '../../src/service/verify/verification-cache'

const principal = (accountId: string, passcodeId: string): Principal => ({ accountId, kind: 'account', passcodeId, passcodeName: passcodeId })
const A = principal('acc_1', 'pc_a')
const B = principal('acc_1', 'pc_b')
const C = principal('acc_2', 'pc_c')

describe('VerificationCache', () => {
  it('keeps an entry at most ttlMs and at least half of it, whatever the time of insertion', () => {
    for (const insertedAfter of [0, 1, 249, 250, 499, 500, 777]) {
      const cache = new VerificationCache({ ttlMs: 1000, maxEntries: 10 })
      const start = 1_000_000
      cache.get('warm-up', 'acc_1', start) // starts the first half at `start`
      const at = start + insertedAfter
      cache.set('value-a', A, null, at, cache.generation)
      for (let t = at; t < at + 1000; t += 50) {
        const hit = cache.get('value-a', 'acc_1', t)
        if (t < at + 500) expect(hit, `inserted at +${insertedAfter}, read at +${t - at}`).toBe(A)
        if (hit === undefined) break
      }
      expect(cache.get('value-a', 'acc_1', at + 1000)).toBeUndefined()
    }
  })

  it('drops both halves after a pause longer than ttlMs', () => {
    const cache = new VerificationCache({ ttlMs: 1000, maxEntries: 10 })
    cache.set('value-a', A, null, 0, cache.generation)
    cache.set('value-b', B, null, 600, cache.generation) // after the first rotation: another half
    expect(cache.size).toBe(2)
    expect(cache.get('value-a', 'acc_1', 5_000)).toBeUndefined()
    expect(cache.get('value-b', 'acc_1', 5_000)).toBeUndefined()
    expect(cache.size).toBe(0)
  })

  it('ends an entry at its passcode expiry when that comes before its half ends', () => {
    const cache = new VerificationCache({ ttlMs: 1000, maxEntries: 10 })
    cache.set('value-a', A, 300, 0, cache.generation)
    expect(cache.get('value-a', 'acc_1', 299)).toBe(A)
    expect(cache.get('value-a', 'acc_1', 300)).toBeUndefined()
    expect(cache.size).toBe(0)
  })

  it('serves a principal to its own account only', () => {
    const cache = new VerificationCache({ ttlMs: 1000, maxEntries: 10 })
    cache.set('value-c', C, null, 0, cache.generation)
    expect(cache.get('value-c', 'acc_1', 1)).toBeUndefined()
    expect(cache.get('value-c', 'acc_2', 1)).toBe(C)
  })

  it('stays within maxEntries across both halves, evicting the oldest insertion first', () => {
    const cache = new VerificationCache({ ttlMs: 1000, maxEntries: 2 })
    cache.set('value-a', A, null, 0, cache.generation)
    cache.set('value-b', B, null, 600, cache.generation) // newer half; value-a is in the older one
    cache.set('value-c', C, null, 700, cache.generation)
    expect(cache.size).toBe(2)
    expect(cache.get('value-a', 'acc_1', 700)).toBeUndefined()
    expect(cache.get('value-b', 'acc_1', 700)).toBe(B)
    expect(cache.get('value-c', 'acc_2', 700)).toBe(C)
    // Setting a key of the older half again moves it, without counting it twice.
    const again = new VerificationCache({ ttlMs: 1000, maxEntries: 2 })
    again.set('value-a', A, null, 0, again.generation)
    again.set('value-a', A, null, 600, again.generation)
    expect(again.size).toBe(1)
  })

  it('invalidates entries in either half, and refuses a read that raced with an invalidation', () => {
    const cache = new VerificationCache({ ttlMs: 1000, maxEntries: 10 })
    cache.set('value-a', A, null, 0, cache.generation)
    cache.set('value-b', B, 800, 600, cache.generation) // newer half, with its own end
    cache.set('value-c', C, null, 600, cache.generation)
    const before = cache.generation
    cache.invalidate({ type: 'account_passcode', accountId: 'acc_1', passcodeId: 'pc_a' })
    cache.invalidate({ type: 'account_passcode', accountId: 'acc_1', passcodeId: 'pc_b' })
    expect(cache.get('value-a', 'acc_1', 601)).toBeUndefined()
    expect(cache.get('value-b', 'acc_1', 601)).toBeUndefined()
    expect(cache.get('value-c', 'acc_2', 601)).toBe(C)
    cache.set('value-a', A, null, 601, before)
    expect(cache.get('value-a', 'acc_1', 602)).toBeUndefined()
    cache.invalidate({ type: 'account', accountId: 'acc_2' })
    expect(cache.size).toBe(0)
  })

  it('shows no cached value in inspect or JSON', () => {
    const cache = new VerificationCache({ ttlMs: 1000, maxEntries: 10 })
    cache.set('psc_secret-value', A, null, 0, cache.generation)
    expect(JSON.stringify(cache)).toBe('{"size":1}')
    expect((cache as unknown as Record<symbol, () => string>)[Symbol.for('nodejs.util.inspect.custom')]!()).not.toContain('secret')
  })
})
