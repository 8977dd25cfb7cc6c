import type { AuditChanges, AuditEntry, AuditValue } from './audit'
import type { AccountPasscodeRecord } from './entities'

/** What of an account passcode a record may show of it: never its hash, hint or value. */
type ShownPasscode = Pick<AccountPasscodeRecord, 'name' | 'expiry' | 'expiresAt' | 'partners' | 'description'>

/**
 * The fields of an account passcode a record may show: never its hash, hint or value.
 * An empty description is no description (absent, so `null` in a change).
 */
export function passcodeFields(record: ShownPasscode): Record<string, AuditValue> {
  return {
    name: record.name,
    expiry: record.expiry,
    expiresAt: record.expiresAt,
    partners: record.partners === null ? null : [...record.partners],
    ...(record.description !== '' && { description: record.description }),
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
export const EDITED_FIELDS = ['description', 'disabled', 'expiresAt', 'expiry', 'name', 'partners'] as const

const editedFields = (record: ShownPasscode & Pick<AccountPasscodeRecord, 'disabledAt'>): Record<string, AuditValue> => ({
  ...passcodeFields(record),
  // A record from a host's code written before SPEC §5.38 may lack the field: not disabled.
  disabled: record.disabledAt != null,
})

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
  const edited = new Set<string>(EDITED_FIELDS)
  const kept = Object.fromEntries(Object.entries(entry.changes).filter(([field]) => !edited.has(field)))
  return {
    ...entry,
    target: entry.target.type === 'passcode' ? { type: 'passcode', id: entry.target.id, name: after.name } : entry.target,
    changes: { ...changedFields(editedFields(before), editedFields(after)), ...kept },
  }
}
