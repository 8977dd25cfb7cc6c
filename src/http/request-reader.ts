import type { CredentialReader } from '../service/verify/read-headers'

/**
 * How to read what passcode-auth needs from a host's request object, whatever its shape
 * (a Node request, a framework context, a Fetch `Request`): the verification pipeline's
 * {@link CredentialReader} (headers, client address) and, for `GET /v1/connect`, the
 * method and target. Each member takes the request, so that reading one costs no
 * closure per request.
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
export interface RequestReader<Source> extends CredentialReader<Source> {
  /** The request method; `undefined` counts as `GET`. */
  method(this: void, request: Source): string | undefined
  /** The request target (path and query) or the full URL. */
  target(this: void, request: Source): string
}
