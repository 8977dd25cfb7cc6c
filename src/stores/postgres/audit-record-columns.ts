/** The columns of `audit_records`: each with its input's name and SQL type, and the lists the audit statements write them in. */
import { orNull, sqlType } from './named-statement'

/**
 * Every column of `audit_records`, with the name and SQL type of its input when a record
 * is appended (`record…`, so that it never meets a change's own input in one statement;
 * `recordInput`, postgres-audit-log.ts, gives the values). The cast types the NULLs of
 * the audit trail's list too (audit-read-statements.ts).
 */
export const RECORD_COLUMNS = {
  recordAccountId: { column: 'account_id', type: sqlType.text },
  recordSequence: { column: 'sequence', type: sqlType.bigint },
  recordAt: { column: 'at', type: sqlType.bigint },
  recordActor: { column: 'actor', type: sqlType.text },
  recordAction: { column: 'action', type: sqlType.text },
  recordTarget: { column: 'target', type: sqlType.text },
  recordTargetId: { column: 'target_id', type: orNull(sqlType.text) },
  recordChanges: { column: 'changes', type: sqlType.text },
  recordRequestId: { column: 'request_id', type: orNull(sqlType.text) },
  recordClientAddress: { column: 'client_address', type: orNull(sqlType.text) },
  recordPreviousHash: { column: 'previous_hash', type: sqlType.text },
  recordHash: { column: 'hash', type: sqlType.text },
  recordVersion: { column: 'version', type: sqlType.smallint },
  recordKeyId: { column: 'key_id', type: orNull(sqlType.text) },
} as const
export type RecordInputName = keyof typeof RECORD_COLUMNS
export const RECORD_NAMES = Object.keys(RECORD_COLUMNS) as RecordInputName[]

/** The inputs of an audit record's insert ({@link RECORD_COLUMNS}). */
export const RECORD_INPUTS = Object.fromEntries(RECORD_NAMES.map((name) => [name, RECORD_COLUMNS[name].type])) as {
  readonly [Name in RecordInputName]: (typeof RECORD_COLUMNS)[Name]['type']
}

export const AUDIT_COLUMNS = RECORD_NAMES.map((name) => RECORD_COLUMNS[name].column).join(', ')
export const recordColumns = (alias: string): string => RECORD_NAMES.map((name) => `${alias}.${RECORD_COLUMNS[name].column}`).join(', ')
// Named in the first branch of a UNION, which names the columns of all.
export const NO_HEAD =
  'NULL::bigint AS head_sequence, NULL::text AS head_hash, NULL::bigint AS start_sequence, NULL::text AS start_hash, NULL::bigint AS stray'
export const NO_RECORD = RECORD_NAMES.map((name) => `NULL::${RECORD_COLUMNS[name].type.cast}`).join(', ')
