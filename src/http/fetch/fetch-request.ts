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

/**
 * A shared-layer handler of plain `Request`s made callable as the fetch adapters are
 * called, with the caller's address beside the request (fetch does not carry it).
 * `build` gets the reader to hand to the shared layer; the returned function runs
 * its handler with `clientAddress` as the reader's address. The shared layer reads the
 * address synchronously, within that call, so one slot serves every request without
 * a per-request object.
 *
 * @param build - makes the shared-layer handler from the reader
 * @example
 * ```ts
 * const verifyRequest = withClientAddress((reader) => (request: Request) => auth.verifyRequest(request, reader))
 * const answer = verifyRequest(request, '203.0.113.7')
 * ```
 */
export function withClientAddress<Result>(
  build: (reader: RequestReader<Request>) => (request: Request) => Result,
): (request: Request, clientAddress: string | undefined) => Result {
  let pendingAddress: string | undefined
  const handle = build(
    fetchRequestReader(
      (request: Request) => request,
      () => pendingAddress,
    ),
  )
  return (request, clientAddress) => {
    pendingAddress = clientAddress
    try {
      return handle(request)
    } finally {
      pendingAddress = undefined
    }
  }
}
