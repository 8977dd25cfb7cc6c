/*
 * The bodies of GET /v1/connect (SPEC §4, §5.1, §5.3, §5.15, and the 429 of the optional
 * brute-force limiter), checked by hand rather than with zod so that the client bundles
 * for a browser in a few kilobytes. The zod schemas of the same bodies, from which
 * docs/openapi.json is generated, are in src/protocol/connect-response-schemas.ts;
 * test/client/response-bodies.test.ts checks that both
 * accept exactly the same bodies. Extra fields are allowed, so a server that adds one
 * later does not break older clients.
 */

/**
 * A successful connect, as `client.connect()` resolves it:
 * `{"status":"success","message":"Authorised Successfully."}`.
 */
export interface ConnectSuccess {
  /** Always `'success'`. */
  readonly status: 'success'
  /** Human-readable confirmation, "Authorised Successfully.". */
  readonly message: string
  /**
   * When the passcode stops working, as the service announced it (the `Sunset` header,
   * RFC 8594): present only while the passcode is in its last days. Show it to whoever
   * can get a new passcode before then; absent means no end is near.
   */
  readonly expiresAt?: Date
}

/** An HTTP status that GET /v1/connect answers a GET with. */
export type ConnectResponseStatus = 200 | 400 | 401 | 403 | 429 | 503 | 504

const STATUSES: ReadonlySet<number> = new Set<ConnectResponseStatus>([200, 400, 401, 403, 429, 503, 504])

/** Whether GET /v1/connect answers with this status. */
export function isConnectResponseStatus(status: number): status is ConnectResponseStatus {
  return STATUSES.has(status)
}

const isObject = (json: unknown): json is Record<string, unknown> => typeof json === 'object' && json !== null && !Array.isArray(json)

/** The 200 body (its two fields, extra ones dropped), or `undefined` when the JSON is not one. */
export function asConnectSuccess(json: unknown): ConnectSuccess | undefined {
  return isObject(json) && json.status === 'success' && typeof json.message === 'string' ? { status: 'success', message: json.message } : undefined
}

/**
 * The `error` text of a refusal `{"status":"fail","error":<text>,"code":<code>}` whose
 * code is the one given, or `undefined` when the JSON is not such a body.
 */
export function failureText(json: unknown, code: number): string | undefined {
  return isObject(json) && json.status === 'fail' && json.code === code && typeof json.error === 'string' ? json.error : undefined
}

/** The start of the 403 text; the partner name follows. */
export const PARTNER_NOT_WHITELISTED_PREFIX = 'Partner not whitelisted '
