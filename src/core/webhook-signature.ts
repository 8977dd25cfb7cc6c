import { hmac } from '@noble/hashes/hmac.js'
import { sha256 } from '@noble/hashes/sha2.js'
import { utf8ToBytes } from '@noble/hashes/utils.js'
import { toBase64 } from './webhook-secret'

/**
 * Standard Webhooks signing (SPEC §5.53): a signature is `v1,` and the base64 of
 * HMAC-SHA256 over `id.timestamp.body`, where `timestamp` is whole seconds. Pure: no
 * clock, no I/O; synchronous, for the dispatcher (receivers verify with WebCrypto in
 * `passcode-auth/webhooks`, which stays light).
 */

/**
 * The `v1,<base64>` signature of one message under one key.
 *
 * @param key - the secret's key bytes (`webhookSecretKey`, core/webhook-secret.ts)
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
