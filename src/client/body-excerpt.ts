/** Most bytes of a body kept in an UnexpectedResponseError. */
export const MAX_EXCERPT_BYTES = 1024

const REDACTED = '[redacted]'

/**
 * The start of a body as text, for error reports: at most {@link MAX_EXCERPT_BYTES} of
 * it, decoded as UTF-8 without a broken trailing character, and with `secret` blanked
 * out, including a piece of it cut by the end of the excerpt, in case a misbehaving
 * server echoes the request headers.
 */
export function bodyExcerpt(bytes: Uint8Array, secret: string): string {
  // stream: true holds back an incomplete trailing sequence instead of emitting U+FFFD.
  const text = new TextDecoder('utf-8').decode(bytes.subarray(0, MAX_EXCERPT_BYTES), { stream: true })
  const redacted = text.split(secret).join(REDACTED)
  for (let length = Math.min(secret.length - 1, redacted.length); length > 0; length--) {
    if (redacted.endsWith(secret.slice(0, length))) return redacted.slice(0, -length) + REDACTED
  }
  return redacted
}
