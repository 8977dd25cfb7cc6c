import { setClassName } from '../core/class-name'
import { ConnectError } from './connect-error'

// The errors of a request that got no usable answer: none in time, none at all, one not
// understood, or the caller's abort.

/**
 * No answer within `timeoutMs`, the deadline that covers every attempt and the waits
 * between them.
 *
 * @example
 * ```ts
 * createConnectClient({ ...options, timeoutMs: 3_000 }) // TimeoutError after 3 s in total
 * ```
 */
export class TimeoutError extends ConnectError {
  static {
    setClassName(this, 'TimeoutError')
  }

  /** The deadline that passed, in milliseconds. */
  readonly timeoutMs: number

  constructor(timeoutMs: number) {
    super('ERR_TIMEOUT', `No answer within ${timeoutMs} ms`)
    this.timeoutMs = timeoutMs
  }
}

/**
 * The request failed below HTTP (DNS, refused or reset connection, TLS), on the last
 * attempt. The runtime's error is kept as `cause`. In a browser, a CORS refusal is one
 * too, indistinguishable from the rest (`opaque`), and is not retried.
 *
 * @example
 * ```ts
 * if (error instanceof NetworkError) console.warn('service unreachable', error.cause)
 * ```
 */
export class NetworkError extends ConnectError {
  static {
    setClassName(this, 'NetworkError')
  }

  /**
   * The runtime said nothing of why: a browser's `TypeError` ("Failed to fetch"), which
   * looks the same for a refused connection and for a CORS refusal (the service does not
   * allow this page's origin). Such a failure is not retried.
   */
  readonly opaque: boolean

  constructor(options?: { cause?: unknown }) {
    const opaque = isOpaqueBrowserFailure(options?.cause)
    super(
      'ERR_NETWORK',
      opaque
        ? "The service could not be reached, or it refused this page's origin (CORS): a browser does not say which"
        : 'The service could not be reached',
      options,
    )
    this.opaque = opaque
  }
}

/** A fetch `TypeError` with no `cause`, in a browser or a worker (Node, Deno and Bun give reasons). */
function isOpaqueBrowserFailure(error: unknown): boolean {
  const inBrowser =
    typeof (globalThis as { document?: unknown }).document !== 'undefined' ||
    typeof (globalThis as { WorkerGlobalScope?: unknown }).WorkerGlobalScope !== 'undefined'
  return inBrowser && error instanceof TypeError && error.cause === undefined
}

/** Why a response was not understood. */
export type UnexpectedResponseReason = 'status' | 'content_type' | 'invalid_json' | 'schema' | 'too_large'

const REASON_TEXT: Readonly<Record<UnexpectedResponseReason, string>> = {
  status: 'a status /v1/connect does not answer with',
  content_type: 'not JSON',
  invalid_json: 'a body that is not valid JSON',
  schema: 'a body of the wrong shape',
  too_large: 'a body larger than the client reads',
}

/**
 * The answer was not one /v1/connect gives: an unknown status (a proxy's 404 or 502, a
 * redirect), a non-JSON content type, invalid JSON, a body of the wrong shape, or a body
 * too large. Keeps the status, the content type and at most 1 KB of the body.
 *
 * @example
 * ```ts
 * if (error instanceof UnexpectedResponseError) log.warn({ status: error.status, body: error.bodyExcerpt })
 * ```
 */
export class UnexpectedResponseError extends ConnectError {
  static {
    setClassName(this, 'UnexpectedResponseError')
  }

  /** The HTTP status. */
  readonly status: number
  /** The `Content-Type` header, or `null` when absent. */
  readonly contentType: string | null
  /** What was wrong. */
  readonly reason: UnexpectedResponseReason
  /** The start of the body (at most 1 024 bytes of it), with the passcode blanked out should the server echo it. */
  readonly bodyExcerpt: string

  constructor(details: { status: number; contentType: string | null; reason: UnexpectedResponseReason; bodyExcerpt: string }) {
    super('ERR_UNEXPECTED_RESPONSE', `Unexpected response: HTTP ${details.status} with ${REASON_TEXT[details.reason]}`)
    this.status = details.status
    this.contentType = details.contentType
    this.reason = details.reason
    this.bodyExcerpt = details.bodyExcerpt
  }
}

/**
 * The caller's `AbortSignal` fired; the request was cancelled at once. The signal's
 * reason is kept as `cause`.
 *
 * @example
 * ```ts
 * const controller = new AbortController()
 * const pending = client.connect('acme', { signal: controller.signal })
 * controller.abort() // pending rejects with AbortedError
 * ```
 */
export class AbortedError extends ConnectError {
  static {
    setClassName(this, 'AbortedError')
  }

  constructor(options?: { cause?: unknown }) {
    super('ERR_ABORTED', 'The request was aborted', options)
  }
}
