import type { AuditAction, AuditChanges, AuditEntry, AuditSigner, AuditTarget } from '../core/audit'
import type { Actor } from '../core/entities'
import type { AccountPasscodeRecord } from '../core/passcode-records'
import type { AuditAppend } from '../ports/audit-log'

/** Who acted, as a record keeps it; `system` for the library's own work (the notifier). */
export type AuditWho = Actor | 'system'

/**
 * Builds the audit record a management action hands to the store with its change
 * (SPEC §5.40): the actor's user ID and role (never more of the session), the
 * request ID and client address when the actor carries them, and the service's signer
 * (SPEC §5.44), with which the store signs it once it has placed it in the chain.
 */
export function auditEntry(
  signer: AuditSigner,
  who: AuditWho,
  accountId: string,
  at: number,
  action: AuditAction,
  target: AuditTarget,
  changes: AuditChanges = {},
): AuditAppend {
  const entry: AuditEntry = {
    accountId,
    at,
    actor: who === 'system' ? { type: 'system' } : { type: 'user', userId: who.userId, role: who.role },
    action,
    target,
    changes,
    requestId: who === 'system' ? null : (who.requestId ?? null),
    clientAddress: who === 'system' ? null : (who.clientAddress ?? null),
  }
  return { entry, signer }
}

/** An account passcode as an audit target: its ID and its name at the time. */
export const passcodeTarget = (record: Pick<AccountPasscodeRecord, 'id' | 'name'>): AuditTarget => ({
  type: 'passcode',
  id: record.id,
  name: record.name,
})

/** A user's passcode as an audit target. */
export const userTarget = (userId: string): AuditTarget => ({ type: 'user', id: userId })

// The fields a record shows of a passcode: in core, where the stores find them for an edit.
export { changedFields, limitFields, passcodeFields } from '../core/audit-fields'
