import type { Principal } from '../../core/entities'
import type { AuthOutcome, AuthRefusal } from '../auth-outcome'
import { isRefusal, type LimitsAdmission, type LimitsGate } from '../credential-limits'
import type { Budget } from '../deadline'
import type { RecordUse } from './record-use'

/**
 * Step 8 of the verification pipeline (see pipeline.ts): the passcode's own rate limit
 * and credits (SPEC §5.50), after the rules (and the route's restrictions), so a request
 * refused for any other reason spends nothing. The gate (limits/limits-gate.ts) answers
 * at once while this instance holds a lease; a 429 is counted for usage over time and
 * reported like any refusal. `auth.connect` runs the gate itself, after its partner
 * check, so the pipeline skips it for the credentials `connect` marked.
 */

/** The limits step as the pipeline's two paths call it. */
export interface LimitsStep {
  /** The warm path: the principal to hand over at once, or the outcome's promise. */
  hit(principal: Principal, now: number): Principal | Promise<AuthOutcome>
  /** A success past the caches; `counted` `false` for `connect`, which runs the gate after its partner check. */
  success(
    principal: Principal,
    now: number,
    headers: Readonly<Record<string, string>> | undefined,
    counted: boolean,
    budget: Budget | undefined,
  ): AuthOutcome | Promise<AuthOutcome>
}

/**
 * The limits step over `gate` (`undefined`: no store part for limits, every request goes on).
 *
 * @example
 * ```ts
 * const limits = limitsStep(gate, record)
 * return limits.hit(principal, now)
 * ```
 */
export function limitsStep(gate: LimitsGate | undefined, record: RecordUse): LimitsStep {
  // A 429 is counted against the credential for usage over time (SPEC §5.41), as every refusal that matched it.
  const limited = (principal: Principal, refusal: AuthRefusal, now: number): AuthOutcome =>
    record.refusal(refusal, principal.accountId, principal, now)
  return {
    hit(principal, now) {
      if (gate === undefined) return record.hit(principal, now)
      const admitted = gate.admit(principal, now, undefined)
      if (!(admitted instanceof Promise) && !isRefusal(admitted)) return record.hit(admitted, now)
      const finish = (answer: LimitsAdmission): AuthOutcome =>
        isRefusal(answer) ? limited(principal, answer, now) : record.success(answer, now, undefined, true)
      return admitted instanceof Promise ? admitted.then(finish) : Promise.resolve(finish(admitted))
    },
    success(principal, now, headers, counted, budget) {
      if (gate === undefined || !counted) return record.success(principal, now, headers, counted)
      const finish = (answer: LimitsAdmission): AuthOutcome =>
        isRefusal(answer) ? limited(principal, answer, now) : record.success(answer, now, headers, counted)
      const admitted = gate.admit(principal, now, budget)
      return admitted instanceof Promise ? admitted.then(finish) : finish(admitted)
    },
  }
}
