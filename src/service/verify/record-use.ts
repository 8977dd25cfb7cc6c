import type { Principal } from '../../core/entities'
import type { FixedFailureReason } from '../../protocol/outcomes'
import { refuse, type AuthOutcome, type AuthRefusal } from '../auth-outcome'
import { countedOutcome, type CountedRefusal } from '../count-hook'
import type { EventInput } from '../events'

/**
 * Step 9 of the verification pipeline (see pipeline.ts): what every answer leaves
 * behind. A success records the last use (the `usage` option) and counts it for usage
 * over time (SPEC §5.41), unless `connect` records it (only once its partner is
 * allowed: a connect refused for its partner is no use, SPEC §5.46), and emits
 * `auth.succeeded`; a refusal that matched a credential of the account counts against
 * that credential, and every refusal emits `auth.failed`. The warm path's hit also
 * counts for telemetry (a verification past the caches is counted by its trace wrapper).
 */

/** Where the pipeline records a use: the usage recorder, or `undefined` with `usage: false`. */
export interface UseRecorder {
  /** A use at `now` with no partner (a protected route), counted as a success of that UTC day. */
  seen(principal: Principal, now: number): void
  /** A refusal that matched `principal`'s credential, counted on the UTC day of `now`. Not a use. */
  refused(principal: Principal, outcome: CountedRefusal, now: number): void
}

/** What recording needs of the service. */
export interface RecordUseDeps {
  readonly emit: ((event: EventInput) => void) | undefined
  readonly usage: UseRecorder | undefined
  /** Counts a cache hit answered synchronously; `undefined` without the `telemetry` option. */
  readonly cacheHit: ((principal: Principal) => void) | undefined
}

/** The three ways an answer is recorded. */
export interface RecordUse {
  /** A hit answered synchronously: the principal itself, no outcome object. */
  hit(principal: Principal, now: number): Principal
  /** A success past the synchronous path, with the `Sunset` header when due; `count` `false` when `connect` records it. */
  success(principal: Principal, now: number, headers: Readonly<Record<string, string>> | undefined, count: boolean): AuthOutcome
  /**
   * A refusal (a reason of the one table, or an answer made for it: a missing scope's),
   * with the account ID as sent (or `''` when it was not well formed); `credential` the
   * one the value matched, if any, for usage over time.
   */
  refusal(reason: FixedFailureReason | AuthRefusal, accountId: string, credential?: Principal, now?: number): AuthOutcome
}

/**
 * The recorder of one service's verifications.
 *
 * @example
 * ```ts
 * const record = recordUse({ emit, usage, cacheHit: undefined })
 * return record.refusal('checksum_mismatch', accountId)
 * ```
 */
export function recordUse({ emit, usage, cacheHit }: RecordUseDeps): RecordUse {
  return {
    hit(principal, now) {
      usage?.seen(principal, now)
      if (emit !== undefined) emit({ type: 'auth.succeeded', accountId: principal.accountId, principal })
      if (cacheHit !== undefined) cacheHit(principal)
      return principal
    },
    success(principal, now, headers, count) {
      if (count) usage?.seen(principal, now)
      emit?.({ type: 'auth.succeeded', accountId: principal.accountId, principal })
      return headers === undefined ? { ok: true, principal } : { ok: true, principal, headers }
    },
    refusal(refusal, accountId, credential, now) {
      const outcome = typeof refusal === 'string' ? refuse(refusal) : refusal
      const { reason } = outcome
      if (usage !== undefined && credential !== undefined && now !== undefined) {
        // Usage over time (SPEC §5.41): a refusal that matched a credential of this very account.
        const counted = countedOutcome(reason, credential, accountId)
        if (counted !== undefined) usage.refused(credential, counted, now)
      }
      emit?.({ type: 'auth.failed', accountId, reason, statusCode: outcome.statusCode })
      return outcome
    },
  }
}
