import { InvalidOptionsError } from '../core/errors'
import { ownOptions, printableName } from '../core/own-data'
import { corsPreflightHeaders, corsResponseHeaders, DEFAULT_CORS_MAX_AGE_SECONDS } from '../protocol/cors'
import type { HttpResult } from '../protocol/outcomes'

/**
 * CORS for `GET /v1/connect` (SPEC §5.30), off unless given: the origins whose pages
 * may call it from a browser.
 *
 * @example
 * ```ts
 * app.all('/v1/connect', connectHandler(auth, { cors: { origins: ['https://dashboard.partner.example'] } }))
 * ```
 */
export interface CorsOptions {
  /** Allowed origins, each `scheme://host[:port]` with no path, e.g. `https://dashboard.partner.example`. */
  readonly origins: readonly string[]
  /** How long a browser may reuse a preflight's answer, in seconds (0 to 86400). @default 600 */
  readonly maxAgeSeconds?: number
}

/** The answer to a CORS preflight: 204, headers only. */
export interface PreflightAnswer {
  readonly statusCode: 204
  readonly headers: Readonly<Record<string, string>>
  readonly body?: undefined
}

/** CORS options after checking. */
export interface CorsPolicy {
  /** The 204 for an allowed preflight, or `undefined` (the caller answers 405). */
  preflight(origin: string | undefined, requestMethod: string | undefined): PreflightAnswer | undefined
  /** `result` with the CORS headers when `origin` is allowed; `result` itself otherwise. */
  decorate<Result extends HttpResult>(result: Result, origin: string | undefined): Result
}

const ORIGIN_FORM = 'an origin such as https://dashboard.partner.example (scheme, host and port only: no path, no trailing slash)'

/** Checks one configured origin: exactly its own serialisation, so that it can match a browser's `Origin` byte for byte. */
function checkedOrigin(value: unknown, index: number): string {
  let origin: string | undefined
  try {
    origin = typeof value === 'string' ? new URL(value).origin : undefined
  } catch {
    origin = undefined
  }
  if (origin === undefined || origin === 'null' || origin !== value) {
    throw new InvalidOptionsError(`cors.origins.${index}`, `must be ${ORIGIN_FORM}`)
  }
  return origin
}

/**
 * Checks `cors` options when an adapter is created, and returns how to apply them, or
 * `undefined` when CORS is off.
 *
 * @example
 * ```ts
 * const cors = corsPolicy({ origins: ['https://dashboard.partner.example'] })
 * ```
 */
export function corsPolicy(given: CorsOptions | undefined): CorsPolicy | undefined {
  if (given === undefined) return undefined
  // Own properties only: a polluted Object.prototype turns no CORS on (core/own-data.ts).
  // `unknown`: JavaScript hosts can pass anything.
  const copy: unknown = ownOptions(given)
  if (typeof copy !== 'object' || copy === null || !Array.isArray((copy as Partial<CorsOptions>).origins)) {
    throw new InvalidOptionsError('cors', `must be { origins: [...] }, each ${ORIGIN_FORM}`)
  }
  const options = copy as CorsOptions
  for (const key of Object.keys(options)) {
    if (key !== 'origins' && key !== 'maxAgeSeconds')
      throw new InvalidOptionsError(`cors.${printableName(key)}`, 'unknown option; known: origins, maxAgeSeconds')
  }
  const origins = new Set(options.origins.map(checkedOrigin))
  const maxAge = options.maxAgeSeconds ?? DEFAULT_CORS_MAX_AGE_SECONDS
  if (!Number.isInteger(maxAge) || maxAge < 0 || maxAge > 86_400) {
    throw new InvalidOptionsError('cors.maxAgeSeconds', 'must be a whole number of seconds from 0 to 86400')
  }
  const allowed = (origin: string | undefined): origin is string => origin !== undefined && origins.has(origin)
  return {
    preflight(origin, requestMethod) {
      return allowed(origin) && requestMethod === 'GET' ? { statusCode: 204, headers: corsPreflightHeaders(origin, maxAge) } : undefined
    },
    decorate(result, origin) {
      return allowed(origin) ? { ...result, headers: { ...result.headers, ...corsResponseHeaders(origin) } } : result
    },
  }
}
