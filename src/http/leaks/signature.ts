/**
 * ECDSA P-256 / SHA-256 signature checks over WebCrypto (`globalThis.crypto.subtle`),
 * for leak reports. GitHub sends the signature DER-encoded (ASN.1 `SEQUENCE { r, s }`);
 * WebCrypto verifies the fixed-width `r || s` form (IEEE P1363), so it is converted
 * here. jose verifies JWS, whose ES256 signatures are already `r || s`: no help for DER.
 *
 * One signature, one encoding: the header must be canonical base64 of strict DER (each
 * INTEGER positive and in the fewest bytes, short-form lengths, nothing after the
 * SEQUENCE), as every DER encoder writes it; any other spelling of the same (r, s) is
 * refused. S is not normalised: `(r, s)` and `(r, n − s)` both verify, as in ECDSA
 * itself, because the signers GitHub and others use (Go's `crypto/ecdsa`, OpenSSL) do
 * not write low S, and refusing high S would refuse half of their reports. That
 * second form lets whoever holds a signed report send it under another signature, which
 * gains nothing: the same report can be sent again as it is, and a report acts by the
 * stored state (a replay changes nothing, SPEC §5.42).
 */

const COORDINATE_BYTES = 32

/**
 * One DER INTEGER at `at`, positive and minimal: its bytes without the sign's 0x00, and
 * where the next element starts; `undefined` for a negative or zero value, a redundant
 * leading 0x00, or one longer than a coordinate.
 */
function readInteger(der: Uint8Array, at: number): { value: Uint8Array; next: number } | undefined {
  if (der[at] !== 0x02) return undefined
  const length = der[at + 1]
  if (length === undefined || length === 0 || length > COORDINATE_BYTES + 1) return undefined
  const start = at + 2
  if (start + length > der.length) return undefined
  const first = der[start]!
  // A high bit first is a negative number; a 0x00 first is allowed only to clear the next byte's high bit.
  if (first >= 0x80 || (first === 0 && (length === 1 || der[start + 1]! < 0x80))) return undefined
  const value = der.subarray(first === 0 ? start + 1 : start, start + length)
  if (value.length > COORDINATE_BYTES) return undefined
  return { value, next: start + length }
}

/** Converts a strict DER ECDSA P-256 signature to WebCrypto's 64-byte `r || s`; `undefined` when it is not one. */
export function derToRaw(der: Uint8Array): Uint8Array<ArrayBuffer> | undefined {
  // A P-256 signature's SEQUENCE is at most 72 bytes: short-form length only.
  if (der[0] !== 0x30 || der[1] === undefined || der[1] !== der.length - 2) return undefined
  const r = readInteger(der, 2)
  if (r === undefined) return undefined
  const s = readInteger(der, r.next)
  if (s?.next !== der.length) return undefined
  const raw = new Uint8Array(COORDINATE_BYTES * 2)
  raw.set(r.value, COORDINATE_BYTES - r.value.length)
  raw.set(s.value, COORDINATE_BYTES * 2 - s.value.length)
  return raw
}

/** Decodes standard base64; `undefined` for anything else. */
export function decodeBase64(text: string): Uint8Array<ArrayBuffer> | undefined {
  const compact = text.replace(/\s+/g, '')
  if (compact.length === 0 || compact.length % 4 !== 0 || !/^[A-Za-z0-9+/]+={0,2}$/.test(compact)) return undefined
  const binary = atob(compact)
  const bytes = new Uint8Array(binary.length)
  for (let index = 0; index < binary.length; index++) bytes[index] = binary.charCodeAt(index)
  return bytes
}

const PEM = /^-----BEGIN PUBLIC KEY-----([A-Za-z0-9+/=\s]+)-----END PUBLIC KEY-----$/

/** Whether a text has the shape of a PEM `PUBLIC KEY` (SPKI); the key itself is checked on import. */
export function isPublicKeyPem(pem: unknown): pem is string {
  return typeof pem === 'string' && PEM.test(pem.trim())
}

/** Imports a PEM SPKI P-256 public key for ECDSA verification. Rejects when it is not one. */
export async function importPublicKey(pem: string): Promise<CryptoKey> {
  const body = PEM.exec(pem.trim())?.[1]
  const der = body === undefined ? undefined : decodeBase64(body)
  if (der === undefined) throw new TypeError('not a PEM public key')
  return globalThis.crypto.subtle.importKey('spki', der, { name: 'ECDSA', namedCurve: 'P-256' }, false, ['verify'])
}

/** Standard base64 of `bytes`, with padding. */
function encodeBase64(bytes: Uint8Array): string {
  let binary = ''
  for (const byte of bytes) binary += String.fromCharCode(byte)
  return btoa(binary)
}

/**
 * Whether `signature` (canonical base64 of strict DER) is `key`'s ECDSA P-256 SHA-256
 * signature of `body`. Never throws.
 */
export async function verifySignature(key: CryptoKey, signature: string, body: Uint8Array<ArrayBuffer>): Promise<boolean> {
  const decoded = decodeBase64(signature)
  // Whitespace, or bits that decode to nothing, would be another spelling of the same bytes.
  const der = decoded !== undefined && encodeBase64(decoded) === signature ? decoded : undefined
  const raw = der === undefined ? undefined : derToRaw(der)
  if (raw === undefined) return false
  try {
    return await globalThis.crypto.subtle.verify({ name: 'ECDSA', hash: 'SHA-256' }, key, raw, body)
  } catch {
    return false
  }
}
