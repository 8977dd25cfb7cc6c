/**
 * CORS for `GET /v1/connect` (SPEC §5.30), as headers: what a preflight from an allowed
 * origin is answered with, and what every answer to an allowed origin carries. Which
 * origins are allowed is the host's option (`http/cors.ts` applies it).
 */

/** The methods a browser may use on `/v1/connect`. */
export const CORS_ALLOW_METHODS = 'GET, HEAD'

/** The request headers a browser may send: the two credential headers. */
export const CORS_ALLOW_HEADERS = 'X-Service-Account-Id, X-Service-Passcode'

/** The response headers a page may read: the 429's and 503's wait, and a deprecation date. */
export const CORS_EXPOSE_HEADERS = 'Retry-After, Sunset'

/** How long a browser may reuse a preflight's answer, in seconds, by default. */
export const DEFAULT_CORS_MAX_AGE_SECONDS = 600

/** Headers of the 204 answer to a preflight from an allowed origin. */
export function corsPreflightHeaders(origin: string, maxAgeSeconds: number): Readonly<Record<string, string>> {
  return {
    'access-control-allow-origin': origin,
    'access-control-allow-methods': CORS_ALLOW_METHODS,
    'access-control-allow-headers': CORS_ALLOW_HEADERS,
    'access-control-max-age': String(maxAgeSeconds),
    vary: 'Origin',
  }
}

/** Headers added to every other answer to an allowed origin (200, 400, 401, 403, 405, 429, 5xx). */
export function corsResponseHeaders(origin: string): Readonly<Record<string, string>> {
  return {
    'access-control-allow-origin': origin,
    'access-control-expose-headers': CORS_EXPOSE_HEADERS,
    vary: 'Origin',
  }
}
