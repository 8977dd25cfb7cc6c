import type { AccountPasscodeExpiry, UserPasscodeValidity } from '../core/entities'
import { PolicyViolationError } from '../core/errors'
import { accountPasscodeViolations, userPasscodeViolations, type AccountPolicy } from '../core/policy'

/*
 * The account policy (SPEC §5.52) as the management jobs enforce it: a create, an edit,
 * a grant or a reset that would break it is refused with a `PolicyViolationError` on the
 * field at fault, naming the rule. Shared below the service's folders.
 */

/** Reads an account's policy: its own, or the host's default. */
export type PolicyReader = (accountId: string) => Promise<AccountPolicy>

/**
 * Refuses an account passcode that would break `policy`: at create every rule; at an
 * edit only the rules of the fields it changes (`changes`), so a passcode made before
 * the policy can still be renamed.
 */
export function assertAccountPasscodePolicy(
  policy: AccountPolicy,
  passcode: { readonly expiry: AccountPasscodeExpiry; readonly description: string },
  changes: { readonly expiry: boolean; readonly description: boolean } = { expiry: true, description: true },
): void {
  for (const rule of accountPasscodeViolations(policy, passcode)) {
    if (rule === 'requireExpiry' && changes.expiry) {
      throw new PolicyViolationError('expiry', rule, '"forever" is not allowed: every passcode of this account needs an expiry')
    }
    if (rule === 'maxLifetimeDays' && changes.expiry) {
      const most = `${policy.maxLifetimeDays} days`
      throw new PolicyViolationError(
        'expiry',
        rule,
        passcode.expiry === 'forever' ? `"forever" is longer than this account's maximum lifetime of ${most}` : `must be at most ${most}`,
      )
    }
    if (rule === 'requireDescription' && changes.description) {
      throw new PolicyViolationError('description', rule, 'is required: every passcode of this account needs a description')
    }
  }
}

/**
 * Refuses a user passcode whose validity, from `from` (a grant or a reset), would break
 * `policy`: an `infinite` one lives 10 calendar years, longer than any maximum.
 */
export function assertUserPasscodePolicy(policy: AccountPolicy, validity: UserPasscodeValidity, from: number, reset = false): void {
  if (userPasscodeViolations(policy, validity, from).length === 0) return
  const most = `this account's maximum lifetime of ${policy.maxLifetimeDays} days`
  if (reset) {
    throw new PolicyViolationError(
      'validity',
      'maxLifetimeDays',
      `${validity.type === 'infinite' ? '"infinite" (10 years)' : `${validity.days} days`}, kept by a reset, is longer than ${most}: revoke it and grant one within it`,
    )
  }
  if (validity.type === 'infinite') throw new PolicyViolationError('validity', 'maxLifetimeDays', `"infinite" (10 years) is longer than ${most}`)
  throw new PolicyViolationError('validity.days', 'maxLifetimeDays', `must be at most ${policy.maxLifetimeDays} days`)
}
