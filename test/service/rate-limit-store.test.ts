import { inspect } from 'node:util'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { memoryRateLimitStore } from '../../src/memory'
import { clientAddressKey } from '../../src/service/client-address'
import { rateLimitStoreConformance } from '../conformance/rate-limit-store'

rateLimitStoreConformance('memoryRateLimitStore', async () => ({ store: memoryRateLimitStore(), close: async () => {} }))

describe('memoryRateLimitStore: bounds', () => {
  it('forgets the key whose last failure is oldest past maxKeys, and never holds more', () => {
    const store = memoryRateLimitStore({ maxKeys: 10 })
    for (let i = 0; i < 1_000; i++) {
      store.recordFailure(`key-${i}`, 1, 60_000, 1_000 + i)
      expect(store.size).toBeLessThanOrEqual(10)
    }
    expect(store.size).toBe(10)
    expect(store.retryAfterMs('key-0', 1, 60_000, 2_000)).toBe(0) // forgotten: let through, never locked out
    expect(store.retryAfterMs('key-999', 1, 60_000, 2_000)).toBeGreaterThan(0)
  })

  it('keeps a key that keeps failing, however many other keys come and go', () => {
    const store = memoryRateLimitStore({ maxKeys: 5 })
    for (let i = 0; i < 100; i++) {
      store.recordFailure('attacker', 3, 60_000, 1_000 + i)
      store.recordFailure(`sprayed-${i}`, 3, 60_000, 1_000 + i)
    }
    expect(store.retryAfterMs('attacker', 3, 60_000, 1_100)).toBeGreaterThan(0)
  })

  it('keeps at most `limit` instants per key', () => {
    const store = memoryRateLimitStore()
    for (let i = 0; i < 10_000; i++) store.recordFailure('k', 4, 1e9, i)
    // Exactly the newest four count: the key frees when instant 9_996 leaves.
    expect(store.retryAfterMs('k', 4, 1e9, 10_000)).toBe(9_996 + 1e9 - 10_000)
    expect(inspect(store)).toBe('MemoryRateLimitStore { size: 1 }')
  })

  describe('uses no timers', () => {
    afterEach(() => vi.restoreAllMocks())
    it('sets no timeout or interval, so it never keeps a process alive', () => {
      const timeout = vi.spyOn(globalThis, 'setTimeout')
      const interval = vi.spyOn(globalThis, 'setInterval')
      const store = memoryRateLimitStore({ maxKeys: 3 })
      for (let i = 0; i < 100; i++) {
        store.recordFailure(`k${i % 7}`, 2, 1_000, i * 10)
        store.retryAfterMs(`k${i % 5}`, 2, 1_000, i * 10)
      }
      expect(timeout).not.toHaveBeenCalled()
      expect(interval).not.toHaveBeenCalled()
    })
  })

  it('refuses a maxKeys that is not a positive integer', () => {
    expect(() => memoryRateLimitStore({ maxKeys: 0 })).toThrow(RangeError)
    expect(() => memoryRateLimitStore({ maxKeys: 1.5 })).toThrow(RangeError)
  })
})

describe('clientAddressKey', () => {
  it('keys IPv4 as it is, also when IPv4-mapped', () => {
    expect(clientAddressKey('192.0.2.7')).toBe('192.0.2.7')
    expect(clientAddressKey('::ffff:192.0.2.7')).toBe('192.0.2.7')
    expect(clientAddressKey('::FFFF:192.0.2.7')).toBe('192.0.2.7')
  })

  it('keys IPv6 by its /64, whatever the spelling', () => {
    const key = '2001:db8:1:2::/64'
    expect(clientAddressKey('2001:db8:1:2::1')).toBe(key)
    expect(clientAddressKey('2001:0db8:0001:0002:ffff:ffff:ffff:ffff')).toBe(key)
    expect(clientAddressKey('2001:DB8:1:2:a:b:c:d%eth0')).toBe(key)
    expect(clientAddressKey('::1')).toBe('0:0:0:0::/64')
    expect(clientAddressKey('2001:db8::')).toBe('2001:db8:0:0::/64')
  })

  it('takes anything else as it is, cut to 64 characters, and nothing for no address', () => {
    expect(clientAddressKey('not:an:ip:address:at:all:x:y:z')).toBe('not:an:ip:address:at:all:x:y:z')
    expect(clientAddressKey('1::2::3')).toBe('1::2::3')
    expect(clientAddressKey('x'.repeat(100))).toBe('x'.repeat(64))
    expect(clientAddressKey('')).toBeUndefined()
    expect(clientAddressKey(undefined)).toBeUndefined()
    expect(clientAddressKey(42)).toBeUndefined()
  })
})
