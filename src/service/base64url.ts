/**
 * base64url text to bytes (RFC 4648 §5, padding optional), as jose's `base64url.decode`
 * does it without loading jose: the keys of `encryptionKeys` and `auditKeys` given as
 * text. Throws a `TypeError` for text that is not base64url.
 */
export function decodeBase64url(text: string): Uint8Array {
  const native = Uint8Array as { fromBase64?: (text: string, options: { alphabet: 'base64url' }) => Uint8Array }
  if (native.fromBase64 !== undefined) return native.fromBase64(text, { alphabet: 'base64url' })
  if (text.includes('+') || text.includes('/')) throw new TypeError('Invalid base64url')
  return Uint8Array.from(atob(text.replace(/-/g, '+').replace(/_/g, '/')), (char) => char.charCodeAt(0))
}
