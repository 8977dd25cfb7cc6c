import type { UserPasscodeRecord } from '../core/passcode-records'
import type { AuditAppend } from './audit-log'

/** Result of {@link UserPasscodesPart.grantUserPasscode}. */
export type GrantResult =
  | {
      /** Done. */
      readonly ok: true
      /** The record as stored now. */
      readonly record: UserPasscodeRecord
    }
  | {
      /** Refused; nothing was written. */
      readonly ok: false
      /** The user holds a live (not revoked) passcode already. */
      readonly reason: 'already_granted'
    }

/**
 * The user passcodes of a store, a required part of {@link PasscodeStore}: grant,
 * reset, revoke and read them.
 *
 * @example
 * ```ts
 * const users: UserPasscodesPart = memoryStore()
 * const current = await users.getUserPasscode('acc_1', 'user_1')
 * ```
 */
export interface UserPasscodesPart {
  /**
   * Stores a user passcode unless the user holds one that is neither revoked nor
   * expired at `now`; a revoked or expired one is replaced.
   */
  grantUserPasscode(record: UserPasscodeRecord, now: number, audit: AuditAppend): Promise<GrantResult>
  /**
   * Replaces the value of a live user passcode; `null` when none is live. Publishes an
   * invalidation. Its `audit` record shows `expiresAt` before and after as in the row it
   * changed (`resetUserPasscodeEntry`, core/audit-fields.ts).
   */
  resetUserPasscode(
    accountId: string,
    userId: string,
    fields: Pick<UserPasscodeRecord, 'hash' | 'ciphertext' | 'hint' | 'grantedAt' | 'expiresAt' | 'pepperId'>,
    audit: AuditAppend,
  ): Promise<UserPasscodeRecord | null>
  /** Marks the user passcode revoked; `null` when there is none or it is revoked already. Publishes an invalidation. */
  revokeUserPasscode(accountId: string, userId: string, revokedAt: number, audit: AuditAppend): Promise<UserPasscodeRecord | null>
  /** The user's passcode, revoked or not, or `null`. */
  getUserPasscode(accountId: string, userId: string): Promise<UserPasscodeRecord | null>
  /** Every user passcode of the account, revoked and expired ones included, by user ID (code-point order). */
  listUserPasscodes(accountId: string): Promise<UserPasscodeRecord[]>
}
