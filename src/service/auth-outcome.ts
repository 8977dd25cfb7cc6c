import type { Principal } from '../core/entities'
import { FAILURES, type FailureBody, type FailureReason, type FixedFailureReason } from '../protocol/outcomes'

/**
 * What a verification answers, shared below every folder of the service: the
 * verification pipeline (verify/) makes these outcomes, connect/ and telemetry/ read
 * them, and none of the three imports another.
 */

/** The result of `auth.authenticate()`: never an exception for bad credentials. */
export type AuthOutcome =
  | {
      /** The credentials are valid. */
      readonly ok: true
      /** Who called. */
      readonly principal: Principal
      /**
       * Headers for the answer: `Sunset` (RFC 8594) with the passcode's expiry while it
       * is in its last `limits.expiringSoonDays` days, unless `sunsetHeader: false`.
       * The adapters add them to the host's response.
       */
      readonly headers?: Readonly<Record<string, string>>
    }
  | {
      /** Refused. */
      readonly ok: false
      /** Why, for logs only: never send it (every 400 reason gets the same body, SPEC §5.1). */
      readonly reason: FailureReason
      /** The HTTP status to answer with. */
      readonly statusCode: number
      /** The exact body to answer with. */
      readonly body: FailureBody
      /** Extra response headers: `Retry-After` on 429. */
      readonly headers?: Readonly<Record<string, string>>
    }

/** The two credentials, as taken from the headers. */
export interface CredentialsInput {
  /** The `X-Service-Account-Id` value. */
  readonly accountId: string
  /** The `X-Service-Passcode` value. */
  readonly passcode: string
  /**
   * The caller's address, for the `rateLimit` option's per-address limit. The HTTP
   * adapters pass the framework's `req.ip` / `request.ip` / `ctx.ip`, which honour
   * its trust-proxy settings; ignored while the limiter is off. Without it, the
   * request is counted with every other one that has none (SPEC §5.37).
   */
  readonly clientAddress?: string | undefined
}

/** What one verification tells its telemetry, filled in by the pipeline as it goes. */
export interface AuthObservation {
  /** Whether the verification cache held the credentials; unset when it was not asked. */
  cache?: 'hit' | 'miss'
  /** Which limit refused the request with 429. */
  limitedBy?: 'address' | 'account'
}

/** A refusal: the `ok: false` side of {@link AuthOutcome}. */
export type AuthRefusal = AuthOutcome & { ok: false }

const refusals = new Map<FixedFailureReason, AuthRefusal>()

/**
 * The shared, frozen refusal for a reason (bodies from the one outcome table).
 *
 * @example
 * ```ts
 * return refuse('missing_partner') // { ok: false, reason, statusCode: 400, body }
 * ```
 */
export function refuse(reason: FixedFailureReason): AuthRefusal {
  const known = refusals.get(reason)
  if (known !== undefined) return known
  const { statusCode, body } = FAILURES[reason]
  const outcome: AuthRefusal = Object.freeze({ ok: false, reason, statusCode, body })
  refusals.set(reason, outcome)
  return outcome
}

/**
 * The 429 refusal, with `Retry-After` in whole seconds (at least 1).
 *
 * @example
 * ```ts
 * rateLimited(1_500).headers // { 'retry-after': '2' }
 * ```
 */
export function rateLimited(waitMs: number): AuthRefusal {
  const { statusCode, body } = FAILURES.rate_limited
  const seconds = Math.max(1, Math.ceil(waitMs / 1000))
  return Object.freeze({ ok: false, reason: 'rate_limited', statusCode, body, headers: Object.freeze({ 'retry-after': String(seconds) }) })
}

/**
 * A 429 of a passcode's own limits (SPEC §5.50): `Rate limit exceeded` or `Credits
 * exhausted`, with the headers of protocol/rate-limit-headers.ts.
 *
 * @example
 * ```ts
 * limitRefused('rate_limit_exceeded', limitHeaders({ policy: 'rate', quota: 100, windowSeconds: 60, retryAfterMs: 5_000 }))
 * ```
 */
export function limitRefused(reason: 'rate_limit_exceeded' | 'credits_exhausted', headers: Readonly<Record<string, string>>): AuthRefusal {
  const { statusCode, body } = FAILURES[reason]
  return Object.freeze({ ok: false, reason, statusCode, body, headers })
}
