import type { HeaderValue } from '../../protocol/credentials'
import type { RequestReader } from '../request-reader'

/**
 * A header of a Fetch `Headers` by lower-case name. A repeated header comes back joined
 * with `", "`, which SPEC §5.4 then refuses, as from Node's `req.headers`.
 *
 * @example
 * ```ts
 * const passcode = fetchHeader(request.headers, 'x-service-passcode')
 * ```
 */
export function fetchHeader(headers: Headers, lowerCaseName: string): HeaderValue {
  return headers.get(lowerCaseName) ?? undefined
}

/**
 * The {@link RequestReader} of a host object that holds a web-standard `Request`: the
 * `Request` itself, or Hono's context (`c.req.raw`). The request target is the full
 * URL, whose query the shared layer reads as text, never through `URLSearchParams` of
 * a parsed `URL` (which would drop what follows a `#`), so every adapter answers alike.
 *
 * @param requestOf - the `Request` of the host's object
 * @param clientAddress - the caller's address, which fetch does not carry: the host's runtime tells it
 * @example
 * ```ts
 * const reader = fetchRequestReader((c: Context) => c.req.raw, (c) => getConnInfo(c).remote.address)
 * ```
 */
export function fetchRequestReader<Source>(
  requestOf: (source: Source) => Request,
  clientAddress: (source: Source) => string | undefined,
): RequestReader<Source> {
  return {
    header: (source, name) => fetchHeader(requestOf(source).headers, name),
    clientAddress,
    method: (source) => requestOf(source).method,
    target: (source) => requestOf(source).url,
  }
}
