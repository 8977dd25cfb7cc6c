/**
 * Standard Webhooks secrets (SPEC §5.53): `whsec_` and the base64 of the key bytes.
 * Pure and without a package, so the light `passcode-auth/webhooks` entry (browsers, edge
 * runtimes: `btoa`/`atob`, no `Buffer`) uses it as the service does.
 */

/** What every signing secret starts with. */
export const WEBHOOK_SECRET_PREFIX = 'whsec_'

/** How many random bytes a new signing secret holds. */
export const WEBHOOK_SECRET_BYTES = 32

/** Base64 (standard alphabet, padded) of bytes. */
export function toBase64(bytes: Uint8Array): string {
  let binary = ''
  for (const byte of bytes) binary += String.fromCharCode(byte)
  return btoa(binary)
}

/** The bytes of a base64 text; `undefined` when it is not base64. */
export function fromBase64(text: string): Uint8Array | undefined {
  try {
    const binary = atob(text)
    const bytes = new Uint8Array(binary.length)
    for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i)
    return bytes
  } catch {
    return undefined
  }
}

/**
 * A new signing secret: `whsec_` and the base64 of 32 bytes from the platform's CSPRNG.
 *
 * @example
 * ```ts
 * const secret = generateWebhookSecret() // 'whsec_…' (shown once, then only used to sign)
 * ```
 */
export function generateWebhookSecret(): string {
  return WEBHOOK_SECRET_PREFIX + toBase64(crypto.getRandomValues(new Uint8Array(WEBHOOK_SECRET_BYTES)))
}

/**
 * The key bytes of a secret (with or without `whsec_`, as Standard Webhooks libraries
 * accept it); `undefined` for a text that is not base64 of at least one byte.
 */
export function webhookSecretKey(secret: string): Uint8Array | undefined {
  const key = fromBase64(secret.startsWith(WEBHOOK_SECRET_PREFIX) ? secret.slice(WEBHOOK_SECRET_PREFIX.length) : secret)
  return key === undefined || key.length === 0 ? undefined : key
}

/** Whether two texts are equal, in a time that depends on their lengths only. */
export function equalInConstantTime(a: string, b: string): boolean {
  if (a.length !== b.length) return false
  let difference = 0
  for (let i = 0; i < a.length; i++) difference |= a.charCodeAt(i) ^ b.charCodeAt(i)
  return difference === 0
}
