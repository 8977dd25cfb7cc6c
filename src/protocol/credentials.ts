import { isVisibleAscii } from '../core/rules'

/** The header carrying the account ID. */
export const ACCOUNT_ID_HEADER = 'x-service-account-id'
/** The header carrying the passcode. */
export const PASSCODE_HEADER = 'x-service-passcode'

/**
 * A header value as Node and most frameworks expose it: a string, an array when the
 * header was repeated, or `undefined` when absent.
 *
 * @example
 * ```ts
 * const value: HeaderValue = req.headers['x-service-account-id']
 * ```
 */
export type HeaderValue = string | readonly string[] | undefined

/**
 * The two credential headers, read and checked (SPEC §5.4), as `auth.connect` takes
 * them from an adapter that has read them already.
 *
 * @example
 * ```ts
 * const credentials: Credentials = { accountId: 'acc_123', passcode: process.env.PASSCODE! }
 * const result = await auth.connect({ credentials, partner: 'acme' })
 * ```
 */
export interface Credentials {
  /** The `X-Service-Account-Id` value. */
  readonly accountId: string
  /** The `X-Service-Passcode` value. */
  readonly passcode: string
}

/**
 * Checks one raw header value (SPEC §5.4): present, not repeated, 1 to 256 bytes,
 * visible ASCII only. A repeated header arrives either as an array or, from Node's
 * parser, joined with `", "`; the space makes the joined form fail the ASCII check.
 */
export function headerValue(value: HeaderValue): string | undefined {
  if (typeof value === 'string') return isVisibleAscii(value) ? value : undefined
  if (value?.length === 1 && typeof value[0] === 'string' && isVisibleAscii(value[0])) {
    return value[0]
  }
  return undefined
}

/**
 * Reads the credential headers through a lookup by lower-case name, from any header
 * source: Node's `req.headers`, a Fetch `Headers`, a framework's request. Returns
 * `undefined` when either header breaks SPEC §5.4. `get` takes the source, so that a
 * caller needs no closure per request.
 *
 * @param source - whatever holds the headers
 * @param get - a header's value in `source` by lower-case name
 * @example
 * ```ts
 * const credentials = readCredentials(req.headers, (headers, name) => headers[name])
 * ```
 */
export function readCredentials<Source>(source: Source, get: (source: Source, lowerCaseName: string) => HeaderValue): Credentials | undefined {
  const accountId = headerValue(get(source, ACCOUNT_ID_HEADER))
  if (accountId === undefined) return undefined
  const passcode = headerValue(get(source, PASSCODE_HEADER))
  if (passcode === undefined) return undefined
  return { accountId, passcode }
}

/**
 * Headers in any of the shapes hosts hand over: a Fetch `Headers`, or a plain object
 * of header name → value (any case).
 *
 * @example
 * ```ts
 * // In a Fetch-style handler (Hono, Next.js route handlers, Deno, Bun):
 * const result = await auth.connect({ headers: request.headers, partner: new URL(request.url).searchParams.getAll('partner') })
 * ```
 */
export type HeaderSource =
  | {
      /** A header's value by name (case-insensitive), or `null`: a Fetch `Headers`. */
      get(name: string): string | null
    }
  | Readonly<Record<string, HeaderValue>>

interface FetchHeaders {
  get(name: string): string | null
}

const fromFetchHeaders = (headers: FetchHeaders, name: string): HeaderValue => headers.get(name) ?? undefined

// Keys may use any case; two keys that differ only by case count as a repeated header.
function fromRecord(record: Readonly<Record<string, HeaderValue>>, name: string): HeaderValue {
  let found: HeaderValue
  let count = 0
  for (const key of Object.keys(record)) {
    if (key.length === name.length && key.toLowerCase() === name) {
      const value = record[key]
      if (value === undefined) continue
      found = value
      count += typeof value === 'string' ? 1 : value.length
    }
  }
  return count > 1 ? ['', ''] : found
}

/**
 * Reads the credential headers from a Fetch `Headers` or a plain object whose keys may
 * use any case. Two keys that differ only by case count as a repeated header.
 *
 * @example
 * ```ts
 * const credentials = readCredentialsFrom(request.headers) // { accountId, passcode } | undefined
 * ```
 */
export function readCredentialsFrom(headers: HeaderSource): Credentials | undefined {
  return typeof headers.get === 'function'
    ? readCredentials(headers as FetchHeaders, fromFetchHeaders)
    : readCredentials(headers as Readonly<Record<string, HeaderValue>>, fromRecord)
}

/**
 * Reads `partner` from a request URL's query. Returns `undefined` when absent, and the
 * array when the parameter is repeated (which the connect logic treats as missing).
 * Parsing is the same for every framework, so all answer alike.
 */
export function readPartner(url: string): string | string[] | undefined {
  const question = url.indexOf('?')
  if (question < 0) return undefined
  const values = new URLSearchParams(url.slice(question + 1)).getAll('partner')
  if (values.length === 0) return undefined
  return values.length === 1 ? values[0] : values
}
