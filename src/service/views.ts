import type { AccountPasscodeRecord, PasscodeView, UserPasscodeRecord, UserPasscodeView } from '../core/entities'
import { passcodeStatus } from '../core/status'

/** The public view of an account passcode, with its status at `now`. No hash. */
export function toPasscodeView(record: AccountPasscodeRecord, now: number, expiringSoonDays: number): PasscodeView {
  return {
    id: record.id,
    accountId: record.accountId,
    name: record.name,
    hint: record.hint,
    expiry: record.expiry,
    createdAt: new Date(record.createdAt),
    updatedAt: new Date(record.updatedAt),
    expiresAt: record.expiresAt === null ? null : new Date(record.expiresAt),
    status: passcodeStatus(record, now, expiringSoonDays),
  }
}

/** The public view of a user passcode, with its status at `now`. No hash, no ciphertext. */
export function toUserPasscodeView(record: UserPasscodeRecord, now: number, expiringSoonDays: number): UserPasscodeView {
  return {
    accountId: record.accountId,
    userId: record.userId,
    hint: record.hint,
    validity: record.validity,
    grantedAt: new Date(record.grantedAt),
    expiresAt: new Date(record.expiresAt),
    revokedAt: record.revokedAt === null ? null : new Date(record.revokedAt),
    status: passcodeStatus(record, now, expiringSoonDays),
  }
}
