import type { AcceptedPasscodes, PasscodeMetadata } from '../../core/entities'
import type { AccountPasscodeRecord, UserPasscodeRecord } from '../../core/passcode-records'
import type { RateLimitSetting, StoredCredits } from '../../core/limits'
import type { NotificationKind } from '../../core/notifications'
import type { LeakMark, StoredUsageCount, UsageCount, UsageEntry, UsageOutcome } from '../../ports/passcode-store'
import type { Row } from './database-interface'
import type { InputOf } from './named-statement'
import type { GRANT_USER_INPUTS, INSERT_ACCOUNT_INPUTS } from './statement-columns'
import type { RECORD_USAGE_COUNTS_INPUTS, RECORD_USAGE_INPUTS } from './usage-statements'

// `pg` returns bigint as a string, PGlite as a number: both convert exactly for
// epoch milliseconds (well inside Number.MAX_SAFE_INTEGER).
const ms = (value: unknown): number => Number(value)
const optionalMs = (value: unknown): number | null => (value === null || value === undefined ? null : Number(value))
const text = (value: unknown): string => String(value)
// eslint-disable-next-line @typescript-eslint/no-base-to-string -- text columns of the driver's row
const optionalText = (value: unknown): string | null => (value === null || value === undefined ? null : String(value))
// Both drivers parse text[] into an array (PGlite's fast lookup through JSON).
const textList = (value: unknown): string[] | null => (Array.isArray(value) ? value.map(String) : null)

/** A row of `account_passcodes` as a record. */
export function toAccountPasscode(row: Row): AccountPasscodeRecord {
  return {
    id: text(row.id),
    accountId: text(row.account_id),
    name: text(row.name),
    nameKey: text(row.name_key),
    hash: text(row.hash),
    hint: text(row.hint),
    expiry: row.expiry_days === null ? 'forever' : Number(row.expiry_days),
    createdAt: ms(row.created_at),
    updatedAt: ms(row.updated_at),
    expiresAt: optionalMs(row.expires_at),
    partners: textList(row.partners),
    previousHash: optionalText(row.previous_hash),
    previousHashEndsAt: optionalMs(row.previous_hash_ends_at),
    lastUsedAt: optionalMs(row.last_used_at),
    lastUsedPartner: optionalText(row.last_used_partner),
    ...pepperOf(row),
    ...previousPepperOf(row),
    disabledAt: optionalMs(row.disabled_at),
    // Only when set (SPEC §5.45; version 19), so that other records read as they were.
    ...(row.value_leaked === true && { valueLeaked: true }),
    description: row.description === null || row.description === undefined ? '' : text(row.description),
    ...accountRestrictionsOf(row),
    ...limitsOf(row),
  }
}

// Restricted passcodes (SPEC §5.48, §5.49, §5.51; version 14): a row without them (NULL)
// grants every scope from any address, with no metadata and no tags.
const restrictionsOf = (row: Row): { scopes: string[] | null; allowedAddresses: string[] } => ({
  scopes: textList(row.scopes),
  allowedAddresses: textList(row.allowed_addresses) ?? [],
})
const accountRestrictionsOf = (row: Row): Pick<AccountPasscodeRecord, 'scopes' | 'allowedAddresses' | 'metadata' | 'tags'> => ({
  ...restrictionsOf(row),
  metadata: typeof row.metadata === 'string' ? (JSON.parse(row.metadata) as PasscodeMetadata) : null,
  tags: textList(row.tags) ?? [],
})
// Limits and credits (SPEC §5.50; version 15): jsonb, which both drivers parse; absent when NULL.
const limitsOf = (row: Row): Pick<AccountPasscodeRecord, 'rateLimit' | 'credits'> => ({
  ...(row.rate_limit != null && { rateLimit: row.rate_limit as RateLimitSetting }),
  ...(row.credits != null && { credits: row.credits as StoredCredits }),
})
/** The limit columns' values (version 15): NULL for none. */
const limitInput = (record: { readonly rateLimit?: RateLimitSetting | null; readonly credits?: StoredCredits | null }) => ({
  rateLimit: record.rateLimit == null ? null : JSON.stringify(record.rateLimit),
  credits: record.credits == null ? null : JSON.stringify(record.credits),
})
/** The restriction columns' values (version 14): every scope is NULL. */
const restrictionInput = (record: { readonly scopes?: readonly string[] | null; readonly allowedAddresses?: readonly string[] }) => ({
  scopes: record.scopes == null ? null : [...record.scopes],
  allowedAddresses: [...(record.allowedAddresses ?? [])],
})

// Only when known, so that records written before schema version 3 read as they were.
const pepperOf = (row: Row): { pepperId?: string } => (row.pepper_id === null || row.pepper_id === undefined ? {} : { pepperId: text(row.pepper_id) })
// Only when known too (SPEC §5.47): a row with no previous hash has none; the lookup's rows do not read it.
const previousPepperOf = (row: Row): { previousPepperId?: string } =>
  row.previous_pepper_id === null || row.previous_pepper_id === undefined ? {} : { previousPepperId: text(row.previous_pepper_id) }

/** A row of `user_passcodes` as a record. */
export function toUserPasscode(row: Row): UserPasscodeRecord {
  return {
    accountId: text(row.account_id),
    userId: text(row.user_id),
    hash: text(row.hash),
    ciphertext: text(row.ciphertext),
    hint: text(row.hint),
    validity: row.validity_type === 'finite' ? { type: 'finite', days: Number(row.validity_days) } : { type: 'infinite' },
    grantedAt: ms(row.granted_at),
    expiresAt: ms(row.expires_at),
    revokedAt: optionalMs(row.revoked_at),
    lastUsedAt: optionalMs(row.last_used_at),
    lastUsedPartner: optionalText(row.last_used_partner),
    ...pepperOf(row),
    ...restrictionsOf(row),
    ...limitsOf(row),
  }
}

/** The input of an account passcode's insert (`INSERT_ACCOUNT_INPUTS`, statements.ts; previous hash and usage start empty). */
export function accountPasscodeInput(record: AccountPasscodeRecord): InputOf<typeof INSERT_ACCOUNT_INPUTS> {
  return {
    id: record.id,
    accountId: record.accountId,
    name: record.name,
    nameKey: record.nameKey,
    hash: record.hash,
    hint: record.hint,
    expiryDays: record.expiry === 'forever' ? null : record.expiry,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
    expiresAt: record.expiresAt,
    partners: record.partners == null ? null : [...record.partners],
    pepperId: record.pepperId ?? null,
    disabledAt: record.disabledAt ?? null,
    // A record from a host's code written before SPEC §5.39 may lack the field: the column's default, not undefined.
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition
    description: record.description ?? '',
    ...restrictionInput(record),
    metadata: record.metadata == null ? null : JSON.stringify(record.metadata),
    tags: [...(record.tags ?? [])],
    ...limitInput(record),
  }
}

/** The input of a user passcode's grant (`GRANT_USER_INPUTS`, statements.ts), first or replacing. */
export function userPasscodeInput(record: UserPasscodeRecord): InputOf<typeof GRANT_USER_INPUTS> {
  return {
    accountId: record.accountId,
    userId: record.userId,
    hash: record.hash,
    ciphertext: record.ciphertext,
    hint: record.hint,
    validityType: record.validity.type,
    validityDays: record.validity.type === 'finite' ? record.validity.days : null,
    grantedAt: record.grantedAt,
    expiresAt: record.expiresAt,
    revokedAt: record.revokedAt,
    pepperId: record.pepperId ?? null,
    ...restrictionInput(record),
    ...limitInput(record),
  }
}

/** The stored setting, or the default for an account without a row. */
export function toAccepted(value: unknown): AcceptedPasscodes {
  return value === 'user' || value === 'both' ? value : 'account'
}

/** A claimed notification's kind as stored. */
export function toKind(value: unknown): NotificationKind {
  return value === 'expired' ? 'expired' : 'expiring_soon'
}

/** The input of `recordUsageCounts`: one array per column, rows sorted by their key. */
export function usageCountInput(counts: readonly UsageCount[]): InputOf<typeof RECORD_USAGE_COUNTS_INPUTS> {
  const sorted = [...counts].sort(
    (a, b) =>
      compare(a.accountId, b.accountId) ||
      compare(a.kind, b.kind) ||
      compare(a.key, b.key) ||
      compare(a.day, b.day) ||
      compare(a.partner, b.partner) ||
      compare(a.outcome, b.outcome),
  )
  return {
    accountIds: sorted.map((c) => c.accountId),
    kinds: sorted.map((c) => c.kind),
    keys: sorted.map((c) => c.key),
    days: sorted.map((c) => c.day),
    partners: sorted.map((c) => c.partner),
    outcomes: sorted.map((c) => c.outcome),
    counts: sorted.map((c) => c.n),
  }
}

/** A stored daily count as the store answers it. */
export function toStoredUsageCount(row: Row): StoredUsageCount {
  return { day: String(row.day), partner: String(row.partner), outcome: row.outcome as UsageOutcome, n: Number(row.n) }
}

const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0)

/** The input of `recordUsage`: one array per column. */
export function usageInput(entries: readonly UsageEntry[]): InputOf<typeof RECORD_USAGE_INPUTS> {
  const kinds: string[] = []
  const accounts: string[] = []
  const keys: string[] = []
  const instants: number[] = []
  const partners: (string | null)[] = []
  for (const entry of entries) {
    kinds.push(entry.kind)
    accounts.push(entry.accountId)
    keys.push(entry.kind === 'account' ? entry.passcodeId : entry.userId)
    instants.push(entry.at)
    partners.push(entry.partner)
  }
  return { kinds, accountIds: accounts, keys, ats: instants, partners }
}

/** A row of `leak_marks` as a mark. */
export function toLeakMark(row: Row): LeakMark {
  return {
    id: text(row.id),
    kind: row.kind === 'user' ? 'user' : 'account',
    accountId: text(row.account_id),
    key: text(row.key),
    reportedAt: ms(row.reported_at),
    url: optionalText(row.url),
    source: text(row.source),
    action: row.action === 'deleted' ? 'deleted' : row.action === 'revoked' ? 'revoked' : 'disabled',
    name: optionalText(row.name),
    hint: optionalText(row.hint),
    notifiedAt: optionalMs(row.notified_at),
  }
}
