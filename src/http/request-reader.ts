import type { HeaderValue } from '../protocol/credentials'

/**
 * How to read what passcode-auth needs from a host's request object, whatever its shape
 * (a Node request, a framework context, a Fetch `Request`). Each member takes the
 * request, so that reading one costs no closure per request.
 *
 * @example
 * ```ts
 * const reader: RequestReader<Request> = {
 *   header: (request, name) => request.headers.get(name) ?? undefined,
 *   clientAddress: () => undefined,
 *   method: (request) => request.method,
 *   target: (request) => request.url,
 * }
 * ```
 */
export interface RequestReader<Source> {
  /** A header's value by lower-case name, as the host holds it (repeated: an array, or joined with `", "`). */
  header(this: void, request: Source, lowerCaseName: string): HeaderValue
  /**
   * The request's headers as an object keyed by lower-case name, when the host has one
   * (Node's `req.headers`): the warm path then reads the two credential headers as
   * plain property loads, measurably cheaper than two calls of `header`. Optional.
   */
  readonly headerRecord?: ((request: Source) => Readonly<Record<string, HeaderValue>>) | undefined
  /** The caller's address as the framework sees it (its trust-proxy settings applied). */
  clientAddress(this: void, request: Source): string | undefined
  /** The request method; `undefined` counts as `GET`. */
  method(this: void, request: Source): string | undefined
  /** The request target (path and query) or the full URL. */
  target(this: void, request: Source): string
}
