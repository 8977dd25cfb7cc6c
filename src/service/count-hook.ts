import type { Principal } from '../core/entities'
import type { UsageOutcome } from '../ports/passcode-store'

/**
 * Marks the credentials `connect` passes to the verification pipeline: their success
 * is counted by `connect`, per partner (SPEC §5.41), not as a plain verification. Not
 * exported from the package, so no caller of `auth.authenticate` can set it. Shared by
 * verify/ and connect/ from the root of src/service/.
 */
export const COUNTED_BY_CONNECT: unique symbol = Symbol('passcode-auth.countedByConnect')

/** The mark on credentials as `connect` passes them to the pipeline. */
export interface CountedByConnect {
  readonly [COUNTED_BY_CONNECT]?: true
}

/** Whether `connect` counts this verification's success itself. */
export function isCountedByConnect(input: object): boolean {
  return (input as CountedByConnect)[COUNTED_BY_CONNECT] === true
}

/** A refusal usage over time counts against the credential it matched. */
export type CountedRefusal = Exclude<UsageOutcome, 'succeeded'>

const COUNTED: Partial<Record<string, CountedRefusal>> = {
  expired: 'expired',
  disabled: 'disabled',
  revoked: 'revoked',
  // SPEC §5.48, §5.49: a valid credential refused for its route's scopes or its address.
  missing_scope: 'missing_scope',
  address_not_allowed: 'address',
  // SPEC §5.50: the day's 429s of the passcode's own limits.
  rate_limit_exceeded: 'rate_limited',
  credits_exhausted: 'credits_exhausted',
}

/**
 * How usage over time counts a refusal of `accountId`'s request (SPEC §5.41): the
 * refusals that matched a credential of that very account (expired, disabled,
 * revoked, a missing scope, an address not allowed, its rate limit or credits; `unknown_passcode` with a `credential` is a value rotated out), else
 * `undefined` (not counted: another account's credential, a credential the account
 * does not accept, no credential at all).
 */
export function countedOutcome(reason: string, credential: Principal | undefined, accountId: string): CountedRefusal | undefined {
  if (credential !== undefined && credential.accountId !== accountId) return undefined
  if (reason === 'unknown_passcode') return credential === undefined ? undefined : 'rotated_out'
  return COUNTED[reason]
}
