import type { Principal } from '../../core/entities'
import { constantTimeEqual } from '../../core/hashing'
import { bindingAllows } from '../../core/rules'
import type { CredentialMatch } from '../../ports/passcode-store'

/**
 * Step 6 of the verification pipeline (see pipeline.ts): the rules a credential the
 * store found must pass. Pure functions of what was read and the time. (The principal
 * a credential makes, and what a restricted one allows, are in restrictions.ts.)
 */

/** Why a credential's own account is refused with it; none of these changes by time passing alone, save into `expired`. */
export type OwnerRefusal = 'not_accepted' | 'revoked' | 'disabled' | 'expired'

/** Accepted kind (SPEC §5.15): the account takes this kind of passcode. */
function isAccepted(match: CredentialMatch): boolean {
  return match.acceptedPasscodes === 'both' || match.acceptedPasscodes === match.kind
}

/**
 * How the credential's own account would be answered at `now`: a refusal, or
 * `undefined` (accepted). Accepted kind, then status (a revoked user passcode, a
 * disabled account passcode), then expiry.
 */
export function ownerRefusalOf(match: CredentialMatch, now: number): OwnerRefusal | undefined {
  if (!isAccepted(match)) return 'not_accepted'
  if (match.kind === 'user' && match.record.revokedAt !== null) return 'revoked'
  // Before expiry: a disabled passcode gets the 400 of an unknown one, never the 401 (SPEC §5.38).
  if (match.kind === 'account' && match.record.disabledAt != null) return 'disabled'
  const { expiresAt } = match.record
  if (expiresAt !== null && now >= expiresAt) return 'expired'
  return undefined
}

/**
 * Until when a match verifies: the passcode's expiry for its current value; for a
 * value replaced by a rotation, also the end of its overlap (SPEC §5.26). `undefined`
 * when the hash is neither, or the overlap has ended.
 */
export function verifiedUntil(match: CredentialMatch, hash: string, now: number): number | null | undefined {
  const { record } = match
  if (constantTimeEqual(record.hash, hash)) return record.expiresAt
  if (match.kind !== 'account') return undefined
  const { previousHash, previousHashEndsAt, expiresAt } = match.record
  if (previousHash === null || previousHashEndsAt === null || now >= previousHashEndsAt || !constantTimeEqual(previousHash, hash)) {
    return undefined
  }
  return expiresAt === null ? previousHashEndsAt : Math.min(expiresAt, previousHashEndsAt)
}

/**
 * Partner binding (SPEC §5.25): whether a verified principal may connect to
 * `partner` (trimmed, lower case). Only account passcodes carry a binding; applied by
 * `auth.connect` once it knows the partner.
 *
 * @example
 * ```ts
 * if (!partnerAllowed(outcome.principal, 'acme')) return partnerNotWhitelisted('acme')
 * ```
 */
export function partnerAllowed(principal: Principal, partner: string): boolean {
  return principal.kind !== 'account' || bindingAllows(principal.partners, partner)
}
