import { readCredentials, type Credentials, type HeaderValue } from '../../protocol/credentials'

/**
 * Step 1 of the verification pipeline (see pipeline.ts): reading the two credential
 * headers of a host's request, whatever its shape, and parsing them (SPEC §5.4).
 */

/**
 * How the pipeline reads a host's request (a Node request, a framework context, a
 * Fetch `Request`): each member takes the request, so reading costs no closure per
 * request. The HTTP layer's `RequestReader` is one.
 *
 * @example
 * ```ts
 * const reader: CredentialReader<Request> = {
 *   header: (request, name) => request.headers.get(name) ?? undefined,
 *   clientAddress: () => undefined,
 * }
 * const answer = auth.verifyRequest(request, reader)
 * ```
 */
export interface CredentialReader<Source> {
  /** A header's value by lower-case name, as the host holds it (repeated: an array, or joined with `", "`). */
  header(this: void, request: Source, lowerCaseName: string): HeaderValue
  /**
   * The request's headers as an object keyed by lower-case name, when the host has one
   * (Node's `req.headers`): the warm path then reads the two credential headers as
   * plain property loads, measurably cheaper than two calls of `header`. Optional.
   */
  readonly headerRecord?: ((request: Source) => Readonly<Record<string, HeaderValue>>) | undefined
  /**
   * The caller's address as the framework sees it (its trust-proxy settings applied).
   * Called when the service limits failures per address (`rateLimit`), and for a
   * passcode that may be used only from some addresses (SPEC §5.49): on a cache miss for
   * any well-formed value, on a hit only for such a passcode.
   */
  clientAddress(this: void, request: Source): string | undefined
}

/** The request's header record, when the reader has one: the two reads are then plain property loads. */
export function headerRecordOf<Source>(request: Source, reader: CredentialReader<Source>): Readonly<Record<string, HeaderValue>> | undefined {
  const { headerRecord } = reader
  return headerRecord === undefined ? undefined : headerRecord(request)
}

/** One header's value as sent (`PASSCODE_HEADER`, `ACCOUNT_ID_HEADER`): from the record when there is one. */
export function sentHeader<Source>(
  request: Source,
  reader: CredentialReader<Source>,
  record: Readonly<Record<string, HeaderValue>> | undefined,
  name: string,
): HeaderValue {
  return record === undefined ? reader.header(request, name) : record[name]
}

// Empty credentials are refused as malformed, through the same path (and audit event) as any other refusal.
const NO_CREDENTIALS: Credentials = Object.freeze({ accountId: '', passcode: '' })

/** Both headers parsed (SPEC §5.4: one value each, visible ASCII), or empty credentials, which the pipeline refuses as malformed. */
export function parsedCredentials<Source>(request: Source, reader: CredentialReader<Source>): Credentials {
  return readCredentials(request, reader.header) ?? NO_CREDENTIALS
}
