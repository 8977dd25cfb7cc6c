import type { AcceptedPasscodes } from '../core/entities'
import type { AccountPasscodeRecord, UserPasscodeRecord } from '../core/passcode-records'

/** A credential found by its hash, with the owning account's setting (one lookup). */
export type CredentialMatch =
  | {
      /** The hash is an account passcode's (its current or, within the overlap, its previous value). */
      readonly kind: 'account'
      /** The matching passcode. */
      readonly record: AccountPasscodeRecord
      /** Which passcodes the owning account accepts (SPEC §5.11). */
      readonly acceptedPasscodes: AcceptedPasscodes
    }
  | {
      /** The hash is a user passcode's. */
      readonly kind: 'user'
      /** The matching user passcode, revoked or not. */
      readonly record: UserPasscodeRecord
      /** Which passcodes the owning account accepts (SPEC §5.11). */
      readonly acceptedPasscodes: AcceptedPasscodes
    }

/**
 * The verification lookup, a required part of {@link PasscodeStore}.
 *
 * @example
 * ```ts
 * const lookup: CredentialLookupPart = memoryStore()
 * const match = await lookup.findCredentialByHash(hash) // null when no credential has it
 * ```
 */
export interface CredentialLookupPart {
  /**
   * The verification lookup: one indexed read by hash, across account and user
   * passcodes, that also finds an account passcode by its previous hash (whether its
   * overlap has ended is the caller's check, against `previousHashEndsAt`), in one
   * statement (one snapshot): a rotation that moves the hash to the previous one is seen
   * whole or not at all.
   */
  findCredentialByHash(hash: string): Promise<CredentialMatch | null>
}
