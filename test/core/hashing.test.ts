import { createHash, createHmac } from 'node:crypto'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import * as nodeCrypto from 'node:crypto'
import { constantTimeEqual, createPasscodeHasher, platformHasher, portableHasher } from '../../src/core/hashing'

describe('SPEC 5.6 keyed hash at rest', () => {
  it('is SHA-256 without a pepper', () => {
    expect(createPasscodeHasher()('psc_example')).toBe(createHash('sha256').update('psc_example').digest('hex'))
  })

  it('is HMAC-SHA256 keyed with the pepper, stable across calls', () => {
    const pepper = 'test-pepper-0123456789'
    const hash = createPasscodeHasher(pepper)
    const expected = createHmac('sha256', pepper).update('psc_example').digest('hex')
    expect(hash('psc_example')).toBe(expected)
    expect(hash('psc_example')).toBe(expected)
    expect(createPasscodeHasher(new TextEncoder().encode(pepper))('psc_example')).toBe(expected)
  })

  it('gives the same hex from the runtime crypto and from @noble/hashes, for any string and pepper (property)', () => {
    const anyString = fc.string({ unit: 'binary', maxLength: 80 }) // lone surrogates included: both encode them as U+FFFD
    fc.assert(
      fc.property(anyString, fc.option(fc.uint8Array({ minLength: 16, maxLength: 100 }), { nil: undefined }), (value, key) => {
        const expected = key === undefined ? createHash('sha256').update(value).digest('hex') : createHmac('sha256', key).update(value).digest('hex')
        expect(platformHasher(key, nodeCrypto)!(value)).toBe(expected)
        expect(portableHasher(key)(value)).toBe(expected)
      }),
      { numRuns: 500, seed: 5 },
    )
  })

  it('falls back to @noble/hashes where the runtime has no crypto module, and keeps its own copy of the pepper', () => {
    expect(platformHasher(undefined, undefined)).toBeUndefined()
    expect(platformHasher(undefined, {} as never)).toBeUndefined()
    const key = new TextEncoder().encode('test-pepper-0123456789')
    const expected = createHmac('sha256', key).update('psc_example').digest('hex')
    const hash = createPasscodeHasher(key)
    const platform = platformHasher(key, nodeCrypto)!
    key.fill(0) // the caller's buffer changes after the hasher was made
    expect(hash('psc_example')).toBe(expected)
    expect(platform('psc_example')).toBe(expected)
  })

  it('hashes through a Hash object where the runtime has no one-shot crypto.hash (Node before 20.12)', () => {
    const { hash: _oneShot, ...withoutOneShot } = nodeCrypto as typeof nodeCrypto & { hash?: unknown }
    const expected = createHash('sha256').update('psc_example').digest('hex')
    expect(platformHasher(undefined, withoutOneShot as never)!('psc_example')).toBe(expected)
  })

  it('refuses a pepper shorter than 16 bytes', () => {
    expect(() => createPasscodeHasher('short')).toThrow(/16 bytes/)
  })

  it('compares in constant time with the right answer (property)', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), (a, b) => {
        expect(constantTimeEqual(a, b)).toBe(a === b)
        expect(constantTimeEqual(a, a)).toBe(true)
      }),
      { numRuns: 2000, seed: 3 },
    )
    // Equal lengths (two hashes) take their own loop.
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 64 }), fc.nat(), fc.nat(0xffff), (a, at, code) => {
        const changed = a.slice(0, at % a.length) + String.fromCharCode(code) + a.slice((at % a.length) + 1)
        expect(constantTimeEqual(a, changed)).toBe(a === changed)
        expect(constantTimeEqual(a, a.slice())).toBe(true)
      }),
      { numRuns: 2000, seed: 3 },
    )
  })
})
