import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { BASE62_ALPHABET, randomBase62 } from '../../src/core/base62'
import { crc32 } from '../../src/core/crc32'
import {
  CHECKSUM_LENGTH,
  PASSCODE_PATTERN,
  SECRET_LENGTH,
  generatePasscode,
  isWellFormedPasscode,
  passcodeHint,
  passcodePattern,
} from '../../src/core/passcode-format'

describe('SPEC 5.5 passcode format', () => {
  it('is <prefix>_<secret><checksum> with the default prefix psc', () => {
    const value = generatePasscode()
    expect(value).toMatch(/^psc_[0-9A-Za-z]{36}$/)
    expect(isWellFormedPasscode(value)).toBe(true)
  })

  it('carries at least 160 bits of CSPRNG entropy in base62', () => {
    expect(SECRET_LENGTH * Math.log2(62)).toBeGreaterThanOrEqual(160)
    const secrets = new Set(Array.from({ length: 2000 }, () => generatePasscode().slice(4, 4 + SECRET_LENGTH)))
    expect(secrets.size).toBe(2000)
  })

  it('maps bytes to base62 without modulo bias (bytes >= 248 are rejected)', () => {
    // One pass over all 256 byte values: 0..247 give each digit exactly 4 times, 248..255 nothing.
    const allBytes = (n: number) => Uint8Array.from({ length: n }, (_, i) => i % 256)
    const out = randomBase62(248, allBytes)
    const counts = new Map<string, number>()
    for (const ch of out) counts.set(ch, (counts.get(ch) ?? 0) + 1)
    expect(counts.size).toBe(62)
    expect(new Set(counts.values())).toEqual(new Set([4]))
    expect(randomBase62(3, () => Uint8Array.from([255, 250, 248, 0, 61, 62, 0, 0, 0, 0, 0]))).toBe('0z0')
  })

  it('ends with the CRC32 of prefix+secret in 6 base62 characters', () => {
    const value = generatePasscode({ prefix: 'acme' })
    const secret = value.slice(5, 5 + SECRET_LENGTH)
    const checksum = value.slice(-CHECKSUM_LENGTH)
    let n = 0
    for (const ch of checksum) n = n * 62 + BASE62_ALPHABET.indexOf(ch)
    expect(n).toBe(crc32(`acme${secret}`))
  })

  it('computes the standard CRC-32 (check value of "123456789" is 0xCBF43926)', () => {
    expect(crc32('123456789')).toBe(0xcbf43926)
  })

  it('rejects every single-character change (property)', () => {
    const value = generatePasscode()
    const chars = `${BASE62_ALPHABET}_-.`
    fc.assert(
      fc.property(fc.nat({ max: value.length - 1 }), fc.constantFrom(...chars), (index, replacement) => {
        fc.pre(value[index] !== replacement)
        const changed = value.slice(0, index) + replacement + value.slice(index + 1)
        expect(isWellFormedPasscode(changed)).toBe(false)
      }),
      { numRuns: 5000, seed: 42 },
    )
  })

  it('rejects truncations, extensions and non-strings without throwing (property)', () => {
    const value = generatePasscode()
    expect(isWellFormedPasscode(value.slice(0, -1))).toBe(false)
    expect(isWellFormedPasscode(`${value}x`)).toBe(false)
    expect(isWellFormedPasscode(undefined)).toBe(false)
    expect(isWellFormedPasscode(42)).toBe(false)
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), (text) => {
        expect(typeof isWellFormedPasscode(text)).toBe('boolean')
      }),
      { numRuns: 2000, seed: 7 },
    )
  })

  it('accepts any valid prefix so passcodes survive a prefix change', () => {
    expect(isWellFormedPasscode(generatePasscode({ prefix: 'zz9' }))).toBe(true)
    expect(() => generatePasscode({ prefix: 'A' })).toThrow(/prefix/)
    expect(() => generatePasscode({ prefix: '9abc' })).toThrow(/prefix/)
  })

  it('publishes a pattern that finds passcodes in text for secret scanners', () => {
    const a = generatePasscode()
    const b = generatePasscode()
    const text = `config: token=${a}\nother ${b}, not psc_short`
    expect([...text.matchAll(PASSCODE_PATTERN)].map((m) => m[0])).toEqual([a, b])
    const custom = generatePasscode({ prefix: 'acme' })
    expect(`x ${custom} y`.match(passcodePattern('acme'))?.[0]).toBe(custom)
  })

  it('builds a hint of the prefix and the last 4 characters', () => {
    const value = generatePasscode()
    expect(passcodeHint(value)).toBe(`psc_…${value.slice(-4)}`)
  })
})
