import { createHash, createHmac } from 'node:crypto'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { constantTimeEqual, createPasscodeHasher } from '../../src/core/hashing'

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
  })
})
