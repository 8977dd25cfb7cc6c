import { setClassName } from '../core/class-name'
import type { WebhookEvent } from '../core/webhook-events'
import { equalInConstantTime, toBase64, webhookSecretKey } from '../core/webhook-secret'

/** Why {@link verifyWebhook} refused a request. */
export type WebhookVerificationReason = 'missing_headers' | 'bad_timestamp' | 'stale_timestamp' | 'bad_signature' | 'bad_secret' | 'bad_body'

/**
 * A webhook request that is not a genuine, recent delivery: answer it with a 400 (or
 * 401) and do nothing with its body. The message says why, never a secret.
 *
 * @example
 * ```ts
 * try {
 *   await verifyWebhook(secret, request.headers, body)
 * } catch (error) {
 *   if (error instanceof WebhookVerificationError) return new Response(null, { status: 400 })
 *   throw error
 * }
 * ```
 */
export class WebhookVerificationError extends Error {
  static {
    setClassName(this, 'WebhookVerificationError')
  }
  /** Always `ERR_WEBHOOK_VERIFICATION`. */
  readonly code = 'ERR_WEBHOOK_VERIFICATION'
  /** Which check failed. */
  readonly reason: WebhookVerificationReason
  constructor(reason: WebhookVerificationReason, message: string) {
    super(message)
    this.name = 'WebhookVerificationError'
    this.reason = reason
  }
}

/**
 * The headers of a request: a web `Headers`, or an object of them (Node's
 * `IncomingHttpHeaders`, or any object). An object's names are read in any case (HTTP
 * header names are case-insensitive; of two names that differ only in case the last
 * counts, as in the `standardwebhooks` package); an array value (a header given more
 * than once) is read as its values joined with `, `, as `Headers` joins them.
 *
 * @example
 * ```ts
 * const headers: WebhookHeaders = { 'Webhook-Id': 'msg_1', 'Webhook-Timestamp': '1767603600', 'Webhook-Signature': 'v1,…' }
 * ```
 */
export type WebhookHeaders =
  | {
      /** A header's value by name, as a fetch `Headers` gives it; `null` when absent. */
      get(name: string): string | null
    }
  | Readonly<Record<string, string | readonly string[] | undefined>>

/** Options of {@link verifyWebhook}. */
export interface VerifyWebhookOptions {
  /** How far `webhook-timestamp` may be from now, in seconds, either way (replays are refused past it). @default 300 */
  toleranceSeconds?: number
  /** The current time in epoch ms. @default Date.now */
  now?: () => number
}

/** What a verified delivery holds (Standard Webhooks: `{ type, timestamp, data }`), and its `webhook-id`. */
export interface VerifiedWebhook {
  /** The `webhook-id`: the same on every attempt of one event to one endpoint, so a receiver can drop repeats. */
  readonly id: string
  /** The event type, for example `passcode.leaked`. */
  readonly type: WebhookEvent['type']
  /** When the change happened, ISO 8601. */
  readonly timestamp: string
  /** The event's data: the passcode's id, name and hint, never a value, hash or key. */
  readonly data: WebhookEvent['data']
}

/** The value of the header `name` (lower case), or `undefined` when it is absent or empty. */
const header = (headers: WebhookHeaders, name: string): string | undefined => {
  let value: unknown
  if (typeof (headers as { get?: unknown }).get === 'function') value = (headers as { get(name: string): string | null }).get(name)
  else for (const key of Object.keys(headers)) if (key.toLowerCase() === name) value = (headers as Readonly<Record<string, unknown>>)[key]
  const text = typeof value === 'string' ? value : Array.isArray(value) ? value.join(', ') : undefined
  return text === '' ? undefined : text
}

const encoder = new TextEncoder()

/** `v1,` and the base64 HMAC-SHA256 of `id.timestamp.body` under `key`, with the platform's WebCrypto. */
async function signature(key: Uint8Array, id: string, timestamp: number, body: Uint8Array): Promise<string> {
  const head = encoder.encode(`${id}.${timestamp}.`)
  const message = new Uint8Array(head.length + body.length)
  message.set(head)
  message.set(body, head.length)
  const hmacKey = await crypto.subtle.importKey('raw', key as Uint8Array<ArrayBuffer>, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign'])
  return `v1,${toBase64(new Uint8Array(await crypto.subtle.sign('HMAC', hmacKey, message)))}`
}

/**
 * Verifies a webhook delivery of passcode-auth (SPEC §5.53), or of any Standard Webhooks
 * sender: the `webhook-signature` header must hold a `v1,` signature made with `secret`
 * over `webhook-id`, `webhook-timestamp` and the raw body, and the timestamp must be
 * within `toleranceSeconds` of now. Pass the body exactly as received (not parsed and
 * stringified again). During a rotation's 24 h either secret verifies: give both while
 * you move to the new one. Runs in browsers, edge runtimes and Node (no Node-only API).
 *
 * @param secret - the endpoint's signing secret (`whsec_…`), or several
 * @param headers - the request's headers
 * @param rawBody - the request's body as received
 * @returns the delivery's `webhook-id`, type, timestamp and data (a promise: WebCrypto signs asynchronously)
 * @throws {@link WebhookVerificationError} when the request is not a genuine, recent delivery
 * @example
 * ```ts
 * import { verifyWebhook } from 'passcode-auth/webhooks'
 *
 * export default async function handler(request: Request): Promise<Response> {
 *   const event = await verifyWebhook(process.env.WEBHOOK_SECRET!, request.headers, await request.text())
 *   if (event.type === 'passcode.leaked') await page(event.data)
 *   return new Response(null, { status: 204 })
 * }
 * ```
 */
export async function verifyWebhook(
  secret: string | readonly string[],
  headers: WebhookHeaders,
  rawBody: string | Uint8Array | ArrayBuffer,
  options: VerifyWebhookOptions = {},
): Promise<VerifiedWebhook> {
  const id = header(headers, 'webhook-id')
  const timestamp = header(headers, 'webhook-timestamp')
  const signatures = header(headers, 'webhook-signature')
  if (id === undefined || timestamp === undefined || signatures === undefined) {
    throw new WebhookVerificationError('missing_headers', 'The webhook-id, webhook-timestamp and webhook-signature headers are required')
  }
  const seconds = /^\d{1,12}$/.test(timestamp) ? Number(timestamp) : Number.NaN
  if (!Number.isSafeInteger(seconds)) throw new WebhookVerificationError('bad_timestamp', 'webhook-timestamp is not a whole number of seconds')
  const tolerance = options.toleranceSeconds ?? 300
  if (Math.abs((options.now ?? Date.now)() / 1000 - seconds) > tolerance) {
    throw new WebhookVerificationError('stale_timestamp', `webhook-timestamp is more than ${tolerance} s from now`)
  }
  const bytes = typeof rawBody === 'string' ? encoder.encode(rawBody) : new Uint8Array(rawBody)
  const given = signatures.split(' ').flatMap((part) => (part.startsWith('v1,') ? [part] : []))
  let matched = false
  for (const candidate of typeof secret === 'string' ? [secret] : secret) {
    const key = webhookSecretKey(candidate)
    if (key === undefined) throw new WebhookVerificationError('bad_secret', 'The secret is not a whsec_ secret')
    const expected = await signature(key, id, seconds, bytes)
    // Every signature is compared, in time that depends on lengths only.
    for (const signature of given) matched = equalInConstantTime(signature, expected) || matched
  }
  if (!matched) throw new WebhookVerificationError('bad_signature', 'No webhook-signature matches the secret')
  let parsed: unknown
  try {
    parsed = JSON.parse(new TextDecoder().decode(bytes))
  } catch {
    throw new WebhookVerificationError('bad_body', 'The body is not JSON')
  }
  const { type, timestamp: at, data } = (parsed ?? {}) as { type?: unknown; timestamp?: unknown; data?: unknown }
  if (typeof type !== 'string' || typeof at !== 'string' || typeof data !== 'object' || data === null || Array.isArray(data)) {
    throw new WebhookVerificationError('bad_body', 'The body is not { type, timestamp, data }')
  }
  return { id, type: type as VerifiedWebhook['type'], timestamp: at, data: data as VerifiedWebhook['data'] }
}
