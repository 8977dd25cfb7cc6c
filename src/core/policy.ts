import type { AccountPasscodeExpiry, PolicyRule, UserPasscodeValidity } from './entities'
import { userPasscodeExpiresAt } from './rules'
import { DAY_MS } from './time'

export type { PolicyRule }

/**
 * An account's policy for the passcodes it makes (SPEC §5.52): each rule off by
 * default. The host's `policy` option is every account's default; an account's admins
 * may set their own, which replaces it whole.
 *
 * @example
 * ```ts
 * const policy: AccountPolicy = { maxLifetimeDays: 90, requireExpiry: true, requireDescription: false }
 * ```
 */
export interface AccountPolicy {
  /** The longest a passcode may live, in days (1 to 3650): account passcodes' expiry, user passcodes' validity; `null` for no maximum. */
  readonly maxLifetimeDays: number | null
  /** No account passcode without an expiry ("Forever" refused). */
  readonly requireExpiry: boolean
  /** No account passcode without a description. */
  readonly requireDescription: boolean
}

/** The policy of an account that has none: every rule off. */
export const NO_POLICY: AccountPolicy = Object.freeze({ maxLifetimeDays: null, requireExpiry: false, requireDescription: false })

/** `maxLifetimeDays`: 1 to 3650 (SPEC §5.52), as an account passcode's expiry. */
export const POLICY_LIFETIME_DAYS = {
  /** Fewest days allowed. */
  min: 1,
  /** Most days allowed. */
  max: 3650,
} as const

/**
 * The rules of `policy` an account passcode with this expiry and description breaks,
 * in the order a refusal names them: `requireExpiry`, `maxLifetimeDays` (a "Forever"
 * passcode breaks any maximum), `requireDescription`.
 *
 * @example
 * ```ts
 * accountPasscodeViolations({ maxLifetimeDays: 90, requireExpiry: false, requireDescription: true }, { expiry: 365, description: '' })
 * // ['maxLifetimeDays', 'requireDescription']
 * ```
 */
export function accountPasscodeViolations(
  policy: AccountPolicy,
  passcode: { readonly expiry: AccountPasscodeExpiry; readonly description?: string },
): PolicyRule[] {
  const rules: PolicyRule[] = []
  if (policy.requireExpiry && passcode.expiry === 'forever') rules.push('requireExpiry')
  if (policy.maxLifetimeDays !== null && (passcode.expiry === 'forever' || passcode.expiry > policy.maxLifetimeDays)) rules.push('maxLifetimeDays')
  if (policy.requireDescription && (passcode.description ?? '') === '') rules.push('requireDescription')
  return rules
}

/**
 * The rules of `policy` a user passcode of this validity, granted or reset at `from`,
 * breaks: `maxLifetimeDays` when it lives longer (an `infinite` one lives 10 calendar
 * years, longer than any maximum allowed).
 *
 * @example
 * ```ts
 * userPasscodeViolations({ maxLifetimeDays: 30, requireExpiry: false, requireDescription: false }, { type: 'finite', days: 60 }, Date.now())
 * // ['maxLifetimeDays']
 * ```
 */
export function userPasscodeViolations(policy: AccountPolicy, validity: UserPasscodeValidity, from: number): PolicyRule[] {
  if (policy.maxLifetimeDays === null) return []
  return userPasscodeExpiresAt(from, validity) - from > policy.maxLifetimeDays * DAY_MS ? ['maxLifetimeDays'] : []
}
