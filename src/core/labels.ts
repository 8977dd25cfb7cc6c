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

// What to do about a passcode found in public (SPEC §5.42, §5.45), in one place: the
// leak email, the dashboard's banner and row marks, and docs/leaks.md say these words,
// so an admin reads one advice wherever they learn of the leak.

/**
 * The advice for an account passcode a leak report disabled. "It" is the passcode; the
 * dashboard's banner lists the leaked passcodes above it.
 *
 * @example
 * ```ts
 * const lines = [`${name} was found in public and disabled.`, `What to do: ${LEAKED_PASSCODE_ADVICE}`]
 * ```
 */
export const LEAKED_PASSCODE_ADVICE =
  'Rotate it: it gets a new value, and the public one never works again (a leaked value gets no overlap). ' +
  'Then enable it and give the new value to the partners that use it, or delete it if nothing needs it. ' +
  'Enabling it without rotating puts its public value back in service.'

/**
 * The advice for a user passcode a leak report revoked.
 *
 * @example
 * ```ts
 * const line = `What to do: ${LEAKED_USER_PASSCODE_ADVICE}`
 * ```
 */
export const LEAKED_USER_PASSCODE_ADVICE =
  'Grant the user a new passcode: the public value never works again, and the user sees the new one on their own Settings page.'

/**
 * The advice for an account passcode a leak report deleted (`leaks.action: 'revoke'`):
 * nothing is left to rotate.
 *
 * @example
 * ```ts
 * const line = `What to do: ${DELETED_LEAKED_PASSCODE_ADVICE}`
 * ```
 */
export const DELETED_LEAKED_PASSCODE_ADVICE = 'Create a new passcode and give it to the partners that used this one.'

/**
 * What enabling a leaked passcode without rotating it means, for the confirmation an
 * admin answers first (SPEC §5.45: only such an explicit enable brings the value back).
 *
 * @example
 * ```ts
 * const question = `Enable “${name}”? ${LEAKED_ENABLE_WARNING}`
 * ```
 */
export const LEAKED_ENABLE_WARNING =
  'Its value was found in public: enabling it without rotating puts that public value back in service, and anyone who found it can call the API with it. Rotate it instead to give it a new value.'

/**
 * Why an overlap is refused when rotating a leaked passcode: the message of the
 * validation error on `overlapMinutes` (SPEC §5.45), as the API answers it after
 * `Invalid overlapMinutes: `.
 *
 * @example
 * ```ts
 * new InvalidInputError('overlapMinutes', LEAKED_OVERLAP_REFUSAL)
 * ```
 */
export const LEAKED_OVERLAP_REFUSAL =
  'must be 0: this passcode was found in public, and a leaked value gets no overlap (it never works again once rotated)'
