import type { Principal } from '../core/entities'
import type { AccountPasscodeRecord, UserPasscodeRecord } from '../core/passcode-records'
import { ConfigurationError } from '../core/errors'
import type { CreditsSetting, RateLimitSetting, StoredCredits } from '../core/limits'
import type { AuthRefusal } from './auth-outcome'
import type { Budget } from './deadline'

/**
 * Limits and credits (SPEC §5.50) between the jobs that meet them, below every folder
 * of src/service/: the verification pipeline (verify/) finds a credential's settings
 * with its record and ties them to the principal it builds; the limits step (limits/)
 * and `auth.connect` (connect/) read them from the principal. None of the three imports
 * another.
 */

/** A credential's limits as the store last gave them with its record. */
export interface CredentialLimits {
  readonly kind: 'account' | 'user'
  readonly accountId: string
  /** The passcode id (`account`) or the user id (`user`). */
  readonly key: string
  readonly rateLimit: RateLimitSetting | null
  readonly credits: StoredCredits | null
}

// Keyed by the principal the acceptance cache holds, so a warm hit finds its limits with one lookup.
const limitsByPrincipal = new WeakMap<Principal, CredentialLimits>()

/**
 * Ties a credential's limits to the principal built from its record (the one the
 * acceptance cache keeps); a record without limits ties none. Returns the principal.
 *
 * @example
 * ```ts
 * const principal = withLimits(principalOf(match), match)
 * ```
 */
export function withLimits(
  principal: Principal,
  match: { readonly kind: 'account'; readonly record: AccountPasscodeRecord } | { readonly kind: 'user'; readonly record: UserPasscodeRecord },
): Principal {
  const rateLimit = match.record.rateLimit ?? null
  const credits = match.record.credits ?? null
  if (rateLimit === null && credits === null) return principal
  const key = match.kind === 'account' ? match.record.id : match.record.userId
  limitsByPrincipal.set(principal, { kind: match.kind, accountId: match.record.accountId, key, rateLimit, credits })
  return principal
}

/** The limits tied to `principal`, or `undefined` when its credential has none. */
export function limitsOf(principal: Principal): CredentialLimits | undefined {
  return limitsByPrincipal.get(principal)
}

/** A request the limits step let through: the principal to hand over (with `credits` where set). */
export type LimitsAdmission = Principal | AuthRefusal

/**
 * The limits step as the pipeline and `auth.connect` call it (SPEC §5.50): last, after
 * the credential, scopes, address and partner, so that a refused request spends
 * nothing. The service builds it (limits/limits-gate.ts).
 */
export interface LimitsGate {
  /**
   * Admits one request of `principal` at `now`: the principal itself when its credential
   * has no limits; with limits, the principal (with `credits.remaining` where set) or a
   * 429 refusal, at once while this instance holds a lease, else a promise while it
   * leases more within `budget` (a failing store: a 503 or 504 refusal). Never rejects.
   */
  admit(principal: Principal, now: number, budget: Budget | undefined): LimitsAdmission | Promise<LimitsAdmission>
}

/** Whether an admission is a refusal. */
export function isRefusal(admission: LimitsAdmission): admission is AuthRefusal {
  return 'ok' in admission
}

/**
 * The limits a create, edit or grant asked for, as the store keeps them: a new setting
 * of credits opens a new epoch (credits leased before it are void); `undefined` fields
 * were not asked for (an edit keeps them). Throws a `ConfigurationError` when limits are
 * asked of a store that cannot keep them (no `leaseLimits`).
 *
 * @example
 * ```ts
 * const limits = storedLimits({ credits: { remaining: 1_000 } }, Date.now(), store) // { credits: { remaining: 1000, refill: null, epoch, setAt } }
 * ```
 */
export function storedLimits(
  input: {
    readonly rateLimit?: RateLimitSetting | null | undefined
    readonly credits?: CreditsSetting | { readonly remaining: number; readonly refill?: CreditsSetting['refill'] | undefined } | null | undefined
  },
  now: number,
  store: { readonly leaseLimits?: unknown },
): { rateLimit?: RateLimitSetting | null; credits?: StoredCredits | null } {
  const { rateLimit, credits } = input
  if ((rateLimit != null || credits != null) && store.leaseLimits === undefined) {
    throw new ConfigurationError('This passcode store cannot keep rate limits or credits (it has no leaseLimits): SPEC §5.50')
  }
  return {
    ...(rateLimit !== undefined && { rateLimit: rateLimit === null ? null : { max: rateLimit.max, windowSeconds: rateLimit.windowSeconds } }),
    ...(credits !== undefined && {
      credits: credits === null ? null : { remaining: credits.remaining, refill: credits.refill ?? null, epoch: crypto.randomUUID(), setAt: now },
    }),
  }
}
