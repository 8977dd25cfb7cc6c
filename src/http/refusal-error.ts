import { setClassName } from '../core/class-name'
import { PasscodeAuthError } from '../core/errors'
import type { AuthOutcome } from '../service/auth-outcome'
import { responseHeaders, type FailureBody, type FailureReason } from '../protocol/outcomes'
import { fetchResponse } from './fetch/fetch-response'

/**
 * A request's credentials were refused. Adapters raise it only when the host asks to
 * handle refusals itself: `requirePasscode(auth, { onRefusal: 'next' })` in Express,
 * Koa and Hono, `onRefusal: 'next'` of the Fastify plugin. It carries what
 * passcode-auth would have sent: `statusCode` (also as `status`, which Express's and
 * Koa's error handlers read), `headers` and `body`, and as a `Response` from
 * `getResponse()` (which Hono's error handler sends). Serialising it
 * (`JSON.stringify`) gives only `body`, and the internal `reason` is not enumerable,
 * so a careless error handler cannot tell a caller more than the spec allows.
 *
 * @example
 * ```ts
 * app.use((error, req, res, next) => {
 *   if (error instanceof PasscodeRefusedError) return res.status(error.statusCode).set(error.headers).send(error.body)
 *   next(error)
 * })
 * ```
 */
export class PasscodeRefusedError extends PasscodeAuthError {
  static {
    setClassName(this, 'PasscodeRefusedError')
  }

  /** The HTTP status passcode-auth would send (400, 401, 429, 503 or 504). */
  readonly statusCode: number
  /** Same as `statusCode`, for error handlers that read `status`. */
  readonly status: number
  /** The exact body passcode-auth would send (SPEC §4, §5.1). */
  readonly body: FailureBody
  /** The response headers passcode-auth would send (with `Retry-After` on 429). */
  readonly headers: Readonly<Record<string, string>>
  /** Tells http-errors-style handlers that the message may be shown to the caller. */
  readonly expose = true
  readonly #outcome: AuthOutcome & { ok: false }

  constructor(outcome: AuthOutcome & { ok: false }) {
    super('ERR_PASSCODE_REFUSED', outcome.body.error)
    this.statusCode = outcome.statusCode
    this.status = outcome.statusCode
    this.body = outcome.body
    this.headers = responseHeaders(outcome)
    this.#outcome = outcome
  }

  /** Why, for the host's logs only: never send it, it tells apart what SPEC §5.1 hides. */
  get reason(): FailureReason {
    return this.#outcome.reason
  }

  /**
   * What passcode-auth would have sent, as a web-standard `Response` (a new one per
   * call): status, headers, `Content-Length` and the exact body. Hono's default error
   * handler sends it as it is.
   */
  getResponse(): Response {
    return fetchResponse(this.#outcome)
  }

  /** Only the body that the caller may see. */
  toJSON(): FailureBody {
    return this.body
  }
}
