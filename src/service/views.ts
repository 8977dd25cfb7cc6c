import type { AccountPasscodeRecord, PasscodeView, UserPasscodeRecord, UserPasscodeView } from '../core/entities'
import { isUnused } from '../core/rules'
import { passcodeStatus } from '../core/status'

/** Uses this instance saw but has not flushed yet: newer than what the store holds. */
export interface PendingUse {
  readonly at: number
  readonly partner: string | null
}

/** The latest of the stored use and this instance's pending one. */
function lastUse(record: { lastUsedAt: number | null; lastUsedPartner: string | null }, pending: PendingUse | undefined) {
  if (pending === undefined || (record.lastUsedAt !== null && record.lastUsedAt >= pending.at)) {
    return { at: record.lastUsedAt, partner: record.lastUsedPartner }
  }
  return { at: pending.at, partner: pending.partner ?? record.lastUsedPartner }
}

/**
 * The public view of an account passcode, with its status at `now`. No hash.
 * `partnersNotWhitelisted` is for the caller to work out (it needs the registry).
 */
export function toPasscodeView(
  record: AccountPasscodeRecord,
  now: number,
  expiringSoonDays: number,
  extra: { partnersNotWhitelisted?: readonly string[]; pending?: PendingUse | undefined } = {},
): PasscodeView {
  const used = lastUse(record, extra.pending)
  const previousEnds = record.previousHashEndsAt
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
    disabledAt: record.disabledAt == null ? null : new Date(record.disabledAt),
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- a host's store written before descriptions (SPEC §5.39) has none
    description: record.description ?? '',
    partners: record.partners === null ? null : [...record.partners],
    partnersNotWhitelisted: extra.partnersNotWhitelisted ?? [],
    previousValueEndsAt: previousEnds !== null && previousEnds > now ? new Date(previousEnds) : null,
    lastUsedAt: used.at === null ? null : new Date(used.at),
    lastUsedPartner: used.partner,
    unused: isUnused(used.at, now),
  }
}

/** The public view of a user passcode, with its status at `now`. No hash, no ciphertext. */
export function toUserPasscodeView(
  record: UserPasscodeRecord,
  now: number,
  expiringSoonDays: number,
  pending?: PendingUse,
): UserPasscodeView {
  const used = lastUse(record, pending)
  return {
    accountId: record.accountId,
    userId: record.userId,
    hint: record.hint,
    validity: record.validity,
    grantedAt: new Date(record.grantedAt),
    expiresAt: new Date(record.expiresAt),
    revokedAt: record.revokedAt === null ? null : new Date(record.revokedAt),
    status: passcodeStatus(record, now, expiringSoonDays),
    lastUsedAt: used.at === null ? null : new Date(used.at),
    lastUsedPartner: used.partner,
    unused: isUnused(used.at, now),
  }
}
