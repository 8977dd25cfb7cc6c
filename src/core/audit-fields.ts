import { canonicalJson, type AuditChanges, type AuditEntry, type AuditValue } from './audit'
import type { AcceptedPasscodes } from './entities'
import type { AccountPasscodeRecord, UserPasscodeRecord } from './passcode-records'
import type { CreditsSetting, RateLimitSetting } from './limits'
import type { AccountPolicy } from './policy'
import { storedAddresses, storedScopes, storedTags } from './restrictions'

/** What of an account passcode a record may show of it: never its hash, hint or value. */
type ShownPasscode = Pick<
  AccountPasscodeRecord,
  'name' | 'expiry' | 'expiresAt' | 'partners' | 'description' | 'scopes' | 'allowedAddresses' | 'metadata' | 'tags'
>

/**
 * The fields of an account passcode a record may show: never its hash, hint or value.
 * An empty description is no description (absent, so `null` in a change); so are every
 * scope, any address, no metadata and no tags (SPEC §5.48, §5.49, §5.51), so that a passcode
 * without them shows what it showed before they existed. Metadata is shown as its JSON
 * text.
 */
export function passcodeFields(record: ShownPasscode): Record<string, AuditValue> {
  const scopes = storedScopes(record)
  const addresses = storedAddresses(record)
  const tags = storedTags(record)
  return {
    name: record.name,
    expiry: record.expiry,
    expiresAt: record.expiresAt,
    partners: record.partners === null ? null : [...record.partners],
    ...(record.description !== '' && { description: record.description }),
    ...(scopes !== null && { scopes: [...scopes] }),
    ...(addresses.length > 0 && { allowedAddresses: [...addresses] }),
    ...(record.metadata != null && { metadata: JSON.stringify(record.metadata) }),
    ...(tags.length > 0 && { tags: [...tags] }),
  }
}

/**
 * The fields {@link passcodeFields} may show, which a delete's record shows before. The
 * SQL store computes the same values in its delete statement
 * (`src/stores/postgres/audit-statements.ts`). A field of a passcode a record shows but
 * this list leaves out does not compile.
 */
export const SHOWN_FIELDS = Object.keys({
  allowedAddresses: true,
  description: true,
  expiresAt: true,
  expiry: true,
  metadata: true,
  name: true,
  partners: true,
  scopes: true,
  tags: true,
} satisfies { readonly [field in keyof ShownPasscode]-?: true }) as readonly (keyof ShownPasscode)[]

/** The fields of a user passcode's restrictions (SPEC §5.48, §5.49) a record shows, as {@link passcodeFields} does. */
export function userRestrictionFields(record: Pick<UserPasscodeRecord, 'scopes' | 'allowedAddresses'>): Record<string, AuditValue> {
  const scopes = storedScopes(record)
  const addresses = storedAddresses(record)
  return { ...(scopes !== null && { scopes: [...scopes] }), ...(addresses.length > 0 && { allowedAddresses: [...addresses] }) }
}

/** An account's policy (SPEC §5.52) as a record shows it: each rule, `null` for the host's default (no policy of its own). */
export function policyFields(policy: AccountPolicy | null): Record<string, AuditValue> {
  return {
    maxLifetimeDays: policy?.maxLifetimeDays ?? null,
    requireExpiry: policy?.requireExpiry ?? null,
    requireDescription: policy?.requireDescription ?? null,
  }
}

/** `before`/`after` for the fields whose values differ (arrays compared by content). */
export function changedFields(before: Record<string, AuditValue> | null, after: Record<string, AuditValue> | null): AuditChanges {
  const changes: Record<string, { before: AuditValue; after: AuditValue }> = {}
  for (const field of new Set([...Object.keys(before ?? {}), ...Object.keys(after ?? {})])) {
    const from = before?.[field] ?? null
    const to = after?.[field] ?? null
    if (JSON.stringify(from) !== JSON.stringify(to)) changes[field] = { before: from, after: to }
  }
  return changes
}

/**
 * The fields an edit of an account passcode may change, as its record shows them: those
 * of {@link passcodeFields} and whether it is disabled. The SQL store computes the same
 * values in its edit statement (`src/stores/postgres/audit-statements.ts`).
 */
export const EDITED_FIELDS = [...SHOWN_FIELDS, 'disabled'] as const

const editedFields = (record: ShownPasscode & Pick<AccountPasscodeRecord, 'disabledAt'>): Record<string, AuditValue> => ({
  ...passcodeFields(record),
  // A record from a host's code written before SPEC §5.38 may lack the field: not disabled.
  disabled: record.disabledAt != null,
})

/**
 * The entry as a store commits it: `changes` (the fields it read from its row, before
 * and after) in place of the entry's changes of the fields named in `replaced`, the
 * entry's changes of other fields kept as given, and a passcode target named `name`
 * (a target that is not the passcode, or no `name`, keeps the entry's). An entry that
 * cannot be encoded is refused whole, as an append refuses it, even in what the row
 * replaces: a caller's bad entry fails the write instead of being hidden.
 */
function fromRow(entry: AuditEntry, name: string | undefined, replaced: Iterable<string>, changes: AuditChanges): AuditEntry {
  canonicalJson(entry.changes)
  const fields = new Set(replaced)
  const kept = Object.fromEntries(Object.entries(entry.changes).filter(([field]) => !fields.has(field)))
  return {
    ...entry,
    target: entry.target.type === 'passcode' && name !== undefined ? { type: 'passcode', id: entry.target.id, name } : entry.target,
    changes: { ...changes, ...kept },
  }
}

/**
 * The record of an edit of an account passcode (a rename, new expiry, binding or
 * description, a disable, an enable) as a store commits it: the fields the edit changed,
 * before and after, and the target's name, from the row as the store found and left it
 * inside the edit's transaction, since the entry was made from a read before it, which
 * a concurrent edit may have outdated. The entry's changes of other fields, and a target
 * that is not the passcode, are kept as given.
 */
export function editedPasscodeEntry(
  entry: AuditEntry,
  before: ShownPasscode & Pick<AccountPasscodeRecord, 'disabledAt'>,
  after: ShownPasscode & Pick<AccountPasscodeRecord, 'disabledAt'>,
): AuditEntry {
  return fromRow(entry, after.name, EDITED_FIELDS, changedFields(editedFields(before), editedFields(after)))
}

/**
 * The field a rotation's record shows: when the replaced value stops. The SQL store
 * computes it in its rotation statement (`src/stores/postgres/audit-statements.ts`).
 */
export const ROTATED_FIELDS = ['previousValueEndsAt'] as const

/**
 * The record of a rotation as a store commits it: when the replaced value stops
 * (`previousValueEndsAt`), before and after, and the target's name, from the row as
 * the store found and left it inside the rotation's transaction, not from the read the
 * entry was made from, which a concurrent rotation or rename may have outdated. The
 * change is there even when both are `null` (a rotation without overlap, none before).
 */
export function rotatedPasscodeEntry(
  entry: AuditEntry,
  before: Pick<AccountPasscodeRecord, 'previousHashEndsAt'>,
  after: Pick<AccountPasscodeRecord, 'name' | 'previousHashEndsAt'>,
): AuditEntry {
  return fromRow(entry, after.name, ROTATED_FIELDS, {
    previousValueEndsAt: { before: before.previousHashEndsAt, after: after.previousHashEndsAt },
  })
}

/**
 * The record of a delete as a store commits it: every field of {@link passcodeFields}
 * the passcode had, before (`after` is `null`), and the target's name, from the row
 * the store deleted, not from the read the entry was made from.
 */
export function deletedPasscodeEntry(entry: AuditEntry, deleted: ShownPasscode): AuditEntry {
  return fromRow(entry, deleted.name, SHOWN_FIELDS, changedFields(passcodeFields(deleted), null))
}

/**
 * The record of a user passcode's reset as a store commits it: its `expiresAt`, before
 * and after, from the row the store found and left, not from an earlier read.
 */
export function resetUserPasscodeEntry(
  entry: AuditEntry,
  before: Pick<UserPasscodeRecord, 'expiresAt'>,
  after: Pick<UserPasscodeRecord, 'expiresAt'>,
): AuditEntry {
  return fromRow(entry, undefined, ['expiresAt'], { expiresAt: { before: before.expiresAt, after: after.expiresAt } })
}

/**
 * The record of a leak report (SPEC §5.42) as a store commits it: the target's name
 * (`name`, the row's as the store acted on it; `null` for a user passcode, whose target
 * has none) and, for an account passcode, `disabled` only when the report disabled it
 * (`disabledNow`: it was enabled when the store locked it), not as a read before the
 * transaction saw it, which a concurrent rename, disable or enable may have outdated.
 */
export function leakReportedEntry(entry: AuditEntry, name: string | null, disabledNow: boolean): AuditEntry {
  return fromRow(entry, name ?? undefined, ['disabled'], disabledNow ? { disabled: { before: false, after: true } } : {})
}

/**
 * The record of a change of the account's policy (SPEC §5.52) as a store commits it:
 * each rule before and after, from the policy as the store found and left it.
 */
export function policyChangedEntry(entry: AuditEntry, before: AccountPolicy | null, after: AccountPolicy | null): AuditEntry {
  return fromRow(
    entry,
    undefined,
    ['maxLifetimeDays', 'requireExpiry', 'requireDescription'],
    changedFields(policyFields(before), policyFields(after)),
  )
}

/**
 * The record of a change of the account's accepted passcodes as a store commits it:
 * `acceptedPasscodes` before and after, from the setting as the store found and left
 * it, not from an earlier read, which a concurrent change may have outdated.
 */
export function acceptedPasscodesEntry(entry: AuditEntry, before: AcceptedPasscodes, after: AcceptedPasscodes): AuditEntry {
  return fromRow(entry, undefined, ['acceptedPasscodes'], { acceptedPasscodes: { before, after } })
}

// Limits and credits (SPEC §5.50).

/** The limits of a passcode or user passcode as a record shows them. */
interface ShownLimits {
  readonly rateLimit?: RateLimitSetting | null
  readonly credits?: CreditsSetting | null
}

/**
 * A passcode's (or user passcode's) rate limit and credits as an audit record shows
 * them, flat: `rateLimit` `'100/60s'`, `credits` the balance as set, `creditsRefill`
 * `'1000/month'`; a field absent when not set. The service writes them before and after
 * from its read, as given (the stores replace only the fields of `EDITED_FIELDS` and
 * `SHOWN_FIELDS` with their row's).
 *
 * @example
 * ```ts
 * limitFields({ rateLimit: { max: 100, windowSeconds: 60 }, credits: null }) // { rateLimit: '100/60s' }
 * ```
 */
export function limitFields(record: ShownLimits): Record<string, AuditValue> {
  const { rateLimit, credits } = record
  return {
    ...(rateLimit != null && { rateLimit: `${rateLimit.max}/${rateLimit.windowSeconds}s` }),
    ...(credits != null && { credits: credits.remaining }),
    ...(credits?.refill != null && { creditsRefill: `${credits.refill.amount}/${credits.refill.interval}` }),
  }
}

/**
 * The record a prune appends to the chain it shortened (SPEC §5.44), actor the system,
 * target the account: how many records went (`removed`), the chain's start before and
 * after (`through`: the last pruned sequence) and its hash (`lastHash`: the hash of the
 * last record removed, which the next kept record repeats). Verification holds the
 * chain's start to the newest of these records.
 */
export function prunedEntry(
  accountId: string,
  at: number,
  removed: number,
  before: { readonly sequence: number; readonly hash: string },
  after: { readonly sequence: number; readonly hash: string },
): AuditEntry {
  return {
    accountId,
    at,
    actor: { type: 'system' },
    action: 'audit.pruned',
    target: { type: 'account' },
    changes: {
      removed: { before: null, after: removed },
      through: { before: before.sequence, after: after.sequence },
      lastHash: { before: before.hash, after: after.hash },
    },
    requestId: null,
    clientAddress: null,
  }
}
