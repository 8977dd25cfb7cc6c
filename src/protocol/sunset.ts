/** The header that announces a passcode's expiry instant (RFC 8594). */
export const SUNSET_HEADER = 'sunset'

/**
 * The response headers that tell a caller its passcode stops working at `expiresAt`:
 * `Sunset` with the instant as an HTTP-date (RFC 8594, RFC 9110 IMF-fixdate), sent on
 * the answers a passcode authenticates while it is in its last days.
 *
 * @param expiresAt - the passcode's `expiresAt`, epoch milliseconds
 * @example
 * ```ts
 * sunsetHeaders(Date.UTC(2026, 0, 31)) // { sunset: 'Sat, 31 Jan 2026 00:00:00 GMT' }
 * ```
 */
export function sunsetHeaders(expiresAt: number): Readonly<Record<string, string>> {
  return Object.freeze({ [SUNSET_HEADER]: new Date(expiresAt).toUTCString() })
}
