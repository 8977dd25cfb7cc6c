import type { AcceptedPasscodes } from './entities'
import type { PasscodeStatus } from './status'

/*
 * The words people read for the service's values, in one place for every screen that
 * shows them: the dashboard's pages (src/dashboard/client/) and the command's output
 * (src/cli/). The labels of SPEC §5.29 ("Expiring soon") are among them.
 */

/**
 * Each passcode status as the dashboard and the command show it.
 *
 * @example
 * ```ts
 * import { STATUS_LABELS } from 'passcode-auth/dashboard'
 *
 * STATUS_LABELS.expiring_soon // 'Expiring soon'
 * ```
 */
export const STATUS_LABELS: Readonly<Record<PasscodeStatus, string>> = {
  active: 'Active',
  expiring_soon: 'Expiring soon',
  expired: 'Expired',
  revoked: 'Revoked',
  disabled: 'Disabled',
}

/**
 * A status in words: `expiring_soon` → "Expiring soon"; a value it does not know, as it is.
 *
 * @example
 * ```ts
 * import { statusLabel } from 'passcode-auth/dashboard'
 *
 * statusLabel('disabled') // 'Disabled'
 * ```
 */
export function statusLabel(status: string): string {
  return Object.hasOwn(STATUS_LABELS, status) ? STATUS_LABELS[status as PasscodeStatus] : status
}

/**
 * Which passcodes an account accepts (SPEC §5.11), as the end of a sentence: "This
 * account accepts account and user passcodes."
 *
 * @example
 * ```ts
 * import { ACCEPTED_PASSCODES_LABELS } from 'passcode-auth/dashboard'
 *
 * `Account acc_1 now accepts ${ACCEPTED_PASSCODES_LABELS.both}.` // 'Account acc_1 now accepts account and user passcodes.'
 * ```
 */
export const ACCEPTED_PASSCODES_LABELS: Readonly<Record<AcceptedPasscodes, string>> = {
  account: 'account passcodes only',
  user: 'user passcodes only',
  both: 'account and user passcodes',
}

/**
 * What to do about an account passcode whose value was found in public (SPEC §5.42,
 * §5.45): the dashboard's leak banner and row mark say it in these words.
 *
 * @example
 * ```ts
 * import { LEAK_ADVICE } from 'passcode-auth/dashboard'
 *
 * `“Billing” was found in public. ${LEAK_ADVICE}`
 * ```
 */
export const LEAK_ADVICE = 'Rotate this passcode: the public value stops at once and never works again.'
