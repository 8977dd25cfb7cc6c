import type { AccountPasscodeExpiry } from '../core/entities'
import type { AccountPasscodeRecord } from '../core/passcode-records'
import type { RateLimitSetting, StoredCredits } from '../core/limits'
import type { AuditAppend } from './audit-log'

/** Result of {@link AccountPasscodesPart.createAccountPasscode}. */
export type CreateResult =
  | {
      /** Done. */
      readonly ok: true
      /** The record as stored now. */
      readonly record: AccountPasscodeRecord
    }
  | {
      /** Refused; nothing was written. */
      readonly ok: false
      /** The account holds the maximum already, or the name is taken. */
      readonly reason: 'cap_reached' | 'duplicate_name'
    }

/** Fields an edit may change; `nameKey` travels with `name`. */
export interface AccountPasscodePatch {
  /** A new name (normalised and trimmed). */
  readonly name?: string
  /** The key of the new name, given whenever `name` is. */
  readonly nameKey?: string
  /** A new expiry as chosen, given with `expiresAt`. */
  readonly expiry?: AccountPasscodeExpiry
  /** The new expiry instant (UTC milliseconds), `null` for `'forever'`. */
  readonly expiresAt?: number | null
  /** A new binding (normalised names), or `null` to unbind (SPEC §5.25). */
  readonly partners?: readonly string[] | null
  /** A new description (checked and normalised), `''` for none (SPEC §5.39). */
  readonly description?: string
  /** Disables (the instant) or enables (`null`) the passcode (SPEC §5.38). */
  readonly disabledAt?: number | null
  // Restricted passcodes (SPEC §5.48, §5.49, §5.51)
  /** New scopes (sorted, no repeats), `null` for every scope. */
  readonly scopes?: readonly string[] | null
  /** New address ranges (canonical text), `[]` for any address. */
  readonly allowedAddresses?: readonly string[]
  /** New metadata, `null` for none. */
  readonly metadata?: AccountPasscodeRecord['metadata']
  /** New tags, `[]` for none. */
  readonly tags?: readonly string[]
  /** A new rate limit, or `null` to remove it (SPEC §5.50). */
  readonly rateLimit?: RateLimitSetting | null
  /** New credits (a new epoch), or `null` to remove them (SPEC §5.50). */
  readonly credits?: StoredCredits | null
  /** The time of the edit, UTC milliseconds. */
  readonly updatedAt: number
}

/**
 * A rotation (SPEC §5.26): the new value's hash and hint replace the current ones.
 * With `previousHashEndsAt`, the current hash becomes the previous one until then,
 * replacing any earlier previous hash; with `null`, the current value stops at once.
 */
export interface PasscodeRotation {
  /** The hash of the new value. */
  readonly hash: string
  /** The hint of the new value. */
  readonly hint: string
  /** Until when the replaced value keeps verifying (UTC milliseconds); `null` for no overlap. */
  readonly previousHashEndsAt: number | null
  /** The time of the rotation, UTC milliseconds. */
  readonly updatedAt: number
  /** The id of the pepper that keyed `hash` (SPEC §5.28). @default null (unknown) */
  readonly pepperId?: string | null
}

/** What an edit of an account passcode answers: the record as stored, or why nothing was written. */
export type UpdateResult =
  | {
      /** Done. */
      readonly ok: true
      /** The record as stored now. */
      readonly record: AccountPasscodeRecord
    }
  | {
      /** Refused; nothing was written. */
      readonly ok: false
      /** No such passcode in the account, or the new name is taken. */
      readonly reason: 'not_found' | 'duplicate_name'
    }

/**
 * The account passcodes of a store, a required part of {@link PasscodeStore}: create,
 * edit, rotate, delete and read them.
 *
 * @example
 * ```ts
 * const passcodes: AccountPasscodesPart = memoryStore()
 * const all = await passcodes.listAccountPasscodes('acc_1')
 * ```
 */
export interface AccountPasscodesPart {
  /** Inserts a passcode unless the account is at `maxPerAccount` or the name key is taken. Atomic. */
  createAccountPasscode(record: AccountPasscodeRecord, maxPerAccount: number, audit: AuditAppend): Promise<CreateResult>
  /**
   * Applies a patch; keeps name uniqueness atomic. Publishes an invalidation when the
   * name, expiry, binding, disabled state, scopes, address ranges, metadata, rate limit or
   * credits change (a description or tags alone change nothing a verification reads). Its `audit` record shows the edited fields, before
   * and after, and a passcode target's name as in the row it changed, not as in the
   * entry, which was made from an earlier read (`editedPasscodeEntry`, core/audit-fields.ts).
   */
  updateAccountPasscode(accountId: string, passcodeId: string, patch: AccountPasscodePatch, audit: AuditAppend): Promise<UpdateResult>
  /**
   * Replaces the passcode's hash and hint, keeping the old hash as the previous one
   * for the overlap (see {@link PasscodeRotation}), unless the passcode has an open leak
   * mark or `valueLeaked`: a leaked value gets no overlap, whatever `previousHashEndsAt`
   * asks (SPEC §5.45); the mark is closed and `valueLeaked` cleared (the new value is not
   * leaked). `null` when there is no such passcode. Publishes an invalidation. Its `audit` record shows `previousValueEndsAt`
   * before and after, and a passcode target's name, as in the row it changed
   * (`rotatedPasscodeEntry`, core/audit-fields.ts).
   */
  rotateAccountPasscode(accountId: string, passcodeId: string, rotation: PasscodeRotation, audit: AuditAppend): Promise<AccountPasscodeRecord | null>
  /**
   * Deletes at once (its current and previous value); returns the deleted record, or
   * `null`. Publishes an invalidation. Its `audit` record shows the fields and a passcode
   * target's name of the row it deleted (`deletedPasscodeEntry`, core/audit-fields.ts).
   */
  deleteAccountPasscode(accountId: string, passcodeId: string, audit: AuditAppend): Promise<AccountPasscodeRecord | null>
  /** One passcode of the account, or `null`. */
  getAccountPasscode(accountId: string, passcodeId: string): Promise<AccountPasscodeRecord | null>
  /** Every non-deleted passcode of the account, oldest first. */
  listAccountPasscodes(accountId: string): Promise<AccountPasscodeRecord[]>
}
