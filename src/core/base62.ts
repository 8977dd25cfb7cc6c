const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'

/** The 62 characters of base62, in digit order. */
export const BASE62_ALPHABET = ALPHABET

/**
 * Encodes a non-negative integer below 2^53 in base62, left-padded with `0` to `width`.
 */
export function encodeBase62(value: number, width: number): string {
  let out = ''
  let rest = value
  do {
    out = ALPHABET.charAt(rest % 62) + out
    rest = Math.floor(rest / 62)
  } while (rest > 0)
  return out.padStart(width, '0')
}

/**
 * Maps random bytes to base62 characters without modulo bias: bytes of 248 or more
 * are rejected (248 = 4 × 62), so each accepted byte gives a uniform digit.
 *
 * @param length - how many characters to produce
 * @param randomBytes - a CSPRNG returning `n` fresh bytes
 */
export function randomBase62(length: number, randomBytes: (n: number) => Uint8Array): string {
  let out = ''
  while (out.length < length) {
    const bytes = randomBytes(length + 8)
    for (let i = 0; i < bytes.length && out.length < length; i++) {
      const byte = bytes[i]!
      if (byte < 248) out += ALPHABET.charAt(byte % 62)
    }
  }
  return out
}
