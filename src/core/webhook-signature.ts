import { hmac } from '@noble/hashes/hmac.js'
import { sha256 } from '@noble/hashes/sha2.js'
import { utf8ToBytes } from '@noble/hashes/utils.js'

/**
 * Standard Webhooks signing (SPEC §5.53): a secret is `whsec_` and the base64 of its key
 * bytes; a signature is `v1,` and the base64 of HMAC-SHA256 over `id.timestamp.body`,
 * where `timestamp` is whole seconds. Pure: no clock, no I/O. The light
 * `passcode-auth/webhooks` entry verifies with it too, so it runs in browsers and edge
 * runtimes (`btoa`/`atob`, no `Buffer`).
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

/**
 * The `v1,<base64>` signature of one message under one key.
 *
 * @param key - the secret's key bytes ({@link webhookSecretKey})
 * @param id - the `webhook-id` header
 * @param timestamp - the `webhook-timestamp` header, whole seconds since the epoch
 * @param body - the exact body sent
 * @example
 * ```ts
 * const header = signWebhook(webhookSecretKey(secret)!, 'msg_1', Math.floor(Date.now() / 1000), body)
 * ```
 */
export function signWebhook(key: Uint8Array, id: string, timestamp: number, body: string | Uint8Array): string {
  const head = utf8ToBytes(`${id}.${timestamp}.`)
  const tail = typeof body === 'string' ? utf8ToBytes(body) : body
  const message = new Uint8Array(head.length + tail.length)
  message.set(head)
  message.set(tail, head.length)
  return `v1,${toBase64(hmac(sha256, key, message))}`
}

/** Whether two texts are equal, in a time that depends on their lengths only. */
export function equalInConstantTime(a: string, b: string): boolean {
  if (a.length !== b.length) return false
  let difference = 0
  for (let i = 0; i < a.length; i++) difference |= a.charCodeAt(i) ^ b.charCodeAt(i)
  return difference === 0
}
