import { auditReadStatements } from './audit-read-statements'
import { AUDIT_COLUMNS, RECORD_INPUTS, RECORD_NAMES } from './audit-record-columns'
import { joinInputs, namedStatement, orNull, sqlType, type InputOf, type Inputs, type NamedStatement, type Placeholders } from './named-statement'
import {
  closeLeakOnEnable,
  accountPatch,
  DELETE_INPUTS,
  deleteAccountPasscodeChange,
  CREATE_ACCOUNT_INPUTS,
  createAccountPasscodeChange,
  ROTATE_INPUTS,
  rotateChange,
} from './account-passcode-statements'
import { ACCOUNT_INPUT, SET_ACCEPTED_INPUTS, setAcceptedPasscodesChange } from './account-statements'
import { completeLeakNoticeChange, LEAK_INPUTS, LEAK_NOTICE_SENT_INPUTS, LEAK_RESULTS, leakChanges } from './leak-statements'
import { completeNotificationChange, NOTIFICATION_SENT_INPUTS } from './notification-statements'
import { ACCOUNT_COLUMNS, EDIT_INPUTS, type EditInputs, GRANT_USER_INPUTS, USER_COLUMNS } from './statement-columns'
import {
  insertUserPasscodeChange,
  replaceUserPasscodeChange,
  RESET_INPUTS,
  resetUserPasscodeChange,
  REVOKE_INPUTS,
  revokeUserPasscodeChange,
} from './user-passcode-statements'

/**
 * The audit trail's statements for one schema (SPEC §5.40, §5.44), the same for `pg`
 * and PGlite. A record's hash is an HMAC made in the process (core/audit.ts,
 * `AuditSigner.chain`): no statement hashes, and none is given a key. Two ways to join
 * a record to its change, both named and prepared where the driver can:
 * - a change whose record shows its row (an edit, a rotation, a delete, a reset, a
 *   setting, a leak report) and a change inside a transaction of its own (a create, a
 *   grant): the change, which then locks the account's chain head row (`…AndLock`,
 *   {@link lockingHead}: the head is the last lock any audited write takes, so two never
 *   wait on each other), then, once the process has placed and signed the record after
 *   that head, `append` (with the change's `NOTIFY`: `appendAndNotify`), in one transaction;
 * - a change whose record the service made whole (a revoke, the notifier's completions,
 *   an append that changes nothing): the head read without a lock (`ends`), then the change
 *   and the record placed after that head in one statement (`…Appending`,
 *   {@link appendingAt}), which commits both or, when another append moved the head in
 *   between, neither.
 */
export function auditStatements(s: string) {
  return {
    ...auditReadStatements(s),
    append: appendStatement(s, false),
    appendAndNotify: appendStatement(s, true),

    // Each change whose record the service made whole, then the head lock.
    // A create answers its counts also when it inserted nothing (`same_name`, `total`: why not).
    createAccountPasscodeAndLock: namedStatement(CREATE_ACCOUNT_INPUTS, ($) =>
      lockingHead(s, {
        change: createAccountPasscodeChange(s, $),
        account: $.accountId,
        gate: 'changed',
        result: `counts.total, counts.same_name, ${ACCOUNT_COLUMNS}`,
        from: 'counts LEFT JOIN changed ON true',
      }),
    ),
    insertUserPasscodeAndLock: namedStatement(GRANT_USER_INPUTS, ($) =>
      lockingHead(s, { change: insertUserPasscodeChange(s, $), account: $.accountId, gate: 'changed', result: USER_COLUMNS }),
    ),
    replaceUserPasscodeAndLock: namedStatement(GRANT_USER_INPUTS, ($) =>
      lockingHead(s, { change: replaceUserPasscodeChange(s, $), account: $.accountId, gate: 'changed', result: USER_COLUMNS }),
    ),
    revokeUserPasscodeAndLock: namedStatement(REVOKE_INPUTS, ($) =>
      lockingHead(s, { change: revokeUserPasscodeChange(s, $), account: $.accountId, gate: 'changed', result: USER_COLUMNS }),
    ),
    // The completions name no account: the record's is their `accountId`.
    completeNotificationAndLock: namedStatement(joinInputs(NOTIFICATION_SENT_INPUTS, ACCOUNT_INPUT), ($) =>
      lockingHead(s, { change: completeNotificationChange(s, $), account: $.accountId, gate: 'sent', result: 'passcode_id' }),
    ),
    completeLeakNoticeAndLock: namedStatement(joinInputs(LEAK_NOTICE_SENT_INPUTS, ACCOUNT_INPUT), ($) =>
      lockingHead(s, { change: completeLeakNoticeChange(s, $), account: $.accountId, gate: 'sent', result: 'id' }),
    ),
    // The same four, and an append that changes nothing, with their record in one statement.
    revokeUserPasscodeAppending: appendingAt(s, REVOKE_INPUTS, {
      change: ($) => revokeUserPasscodeChange(s, $),
      gate: 'changed',
      result: USER_COLUMNS,
      notify: true,
    }),
    completeNotificationAppending: appendingAt(s, NOTIFICATION_SENT_INPUTS, {
      change: ($) => completeNotificationChange(s, $),
      gate: 'sent',
      result: 'passcode_id',
    }),
    completeLeakNoticeAppending: appendingAt(s, LEAK_NOTICE_SENT_INPUTS, {
      change: ($) => completeLeakNoticeChange(s, $),
      gate: 'sent',
      result: 'id',
    }),
    appendAt: appendingAt(s, {}, { change: () => 'nothing AS (SELECT 1 AS appended)', gate: 'nothing', result: 'appended' }),
    // A leak report's three responses, each then locking the head (its record shows the passcode it acted on).
    leakDisableAndLock: namedStatement(LEAK_INPUTS, ($) =>
      lockingHead(s, { change: leakChanges(s).disable($), account: $.accountId, gate: 'changed', result: LEAK_RESULTS.disable }),
    ),
    leakDeleteAndLock: namedStatement(LEAK_INPUTS, ($) =>
      lockingHead(s, { change: leakChanges(s).delete($), account: $.accountId, gate: 'changed', result: LEAK_RESULTS.delete }),
    ),
    leakRevokeAndLock: namedStatement(LEAK_INPUTS, ($) =>
      lockingHead(s, { change: leakChanges(s).revoke($), account: $.accountId, gate: 'changed', result: LEAK_RESULTS.revoke }),
    ),
    // Each change whose record shows its row before and after (core/audit-fields.ts), then the head lock.
    editAndLock: namedStatement(EDIT_INPUTS, ($) =>
      lockingHead(s, {
        change: editChange(s, $),
        account: $.accountId,
        gate: 'changed',
        result: `${ACCOUNT_COLUMNS}, ${EDITED_COLUMNS.map((column) => `prior_${column}`).join(', ')}`,
      }),
    ),
    rotateAndLock: namedStatement(ROTATE_INPUTS, ($) =>
      lockingHead(s, { change: rotateChange(s, $), account: $.accountId, gate: 'changed', result: `${ACCOUNT_COLUMNS}, prior_ends` }),
    ),
    deleteAndLock: namedStatement(DELETE_INPUTS, ($) =>
      lockingHead(s, { change: deleteAccountPasscodeChange(s, $), account: $.accountId, gate: 'changed', result: ACCOUNT_COLUMNS }),
    ),
    resetAndLock: namedStatement(RESET_INPUTS, ($) =>
      lockingHead(s, { change: resetUserPasscodeChange(s, $), account: $.accountId, gate: 'changed', result: `${USER_COLUMNS}, prior_expires_at` }),
    ),
    setAcceptedAndLock: namedStatement(SET_ACCEPTED_INPUTS, ($) =>
      lockingHead(s, {
        change: setAcceptedPasscodesChange(s, $),
        account: $.accountId,
        gate: 'changed',
        result: 'prior_accepted, accepted_passcodes',
      }),
    ),
  }
}

/** The inputs of a change's `NOTIFY`, sent with its record (`null` when a statement sends none). */
const NOTIFY_INPUTS = { notifyChannel: orNull(sqlType.text), notifyPayload: orNull(sqlType.text) } as const

/** What a statement that appends a record takes besides its change's inputs. */
export type AppendInput = InputOf<typeof RECORD_INPUTS> & InputOf<typeof NOTIFY_INPUTS>

const APPEND_INPUTS = joinInputs(RECORD_INPUTS, NOTIFY_INPUTS)

/** The record's values in the order of {@link AUDIT_COLUMNS}; its sequence `sequence` when given. */
const recordValues = ($: Placeholders<typeof RECORD_INPUTS>, sequence?: string): string =>
  RECORD_NAMES.map((name) => (name === 'recordSequence' && sequence !== undefined ? sequence : $[name])).join(', ')

/**
 * The record's insert and the head row's move (the placeholders of
 * {@link RECORD_INPUTS}), with the change's `NOTIFY` when `notify`. The head moves only
 * from the record before (its sequence − 1, its hash the record's previous hash), which
 * the caller's lock holds: `moved` is 1, or the caller rolls back.
 */
function appendStatement(s: string, notify: boolean): NamedStatement<AppendInput> {
  return namedStatement(
    APPEND_INPUTS,
    ($) => `
      WITH record AS (
        INSERT INTO ${s}.audit_records (${AUDIT_COLUMNS})
        VALUES (${recordValues($)})
        RETURNING sequence
      ), moved AS (
        UPDATE ${s}.audit_heads SET sequence = ${$.recordSequence}, hash = ${$.recordHash}, previous_hash = ${$.recordPreviousHash}
        WHERE account_id = ${$.recordAccountId} AND sequence = ${$.recordSequence} - 1 AND hash = ${$.recordPreviousHash}
        RETURNING 1
      )
      SELECT (SELECT count(*) FROM moved) AS moved, (SELECT count(*) FROM record) AS recorded${notify ? `, pg_notify(${$.notifyChannel}, ${$.notifyPayload})` : ''}`,
  )
}

/**
 * A change whose record the service made whole, and that record, in one statement:
 * the change's CTEs (`change`, from the placeholders of its `inputs`; its CTE `gate`
 * returns a row when it changed something), then the head's move from the head the
 * caller read before (the record's previous sequence and hash) and the record's insert
 * (the placeholders of {@link RECORD_INPUTS}), then with `notify` the change's `NOTIFY`
 * ({@link NOTIFY_INPUTS}). The head moves only once the change is made
 * (after every lock the change takes) and only from that head; the record's sequence is
 * the sequence the head moved to, so when another append moved the head in between, the
 * record's sequence is NULL and its insert fails (23502, not-null), which undoes the whole
 * statement and its change: the caller reads the head again (or takes the transactional
 * way). No row in `gate`: no change, no record. Its rows are `result` of `gate`.
 */
function appendingAt<I extends Inputs>(
  s: string,
  inputs: I,
  { change, gate, result, notify = false }: { change: ($: Placeholders<I>) => string; gate: string; result: string; notify?: boolean },
): NamedStatement<InputOf<I> & AppendInput> {
  return namedStatement(joinInputs(inputs, APPEND_INPUTS), ($) => {
    return `
      WITH ${change($)}, moved AS (
        UPDATE ${s}.audit_heads SET sequence = ${$.recordSequence}, hash = ${$.recordHash}, previous_hash = ${$.recordPreviousHash}
        WHERE account_id = ${$.recordAccountId} AND sequence = ${$.recordSequence} - 1 AND hash = ${$.recordPreviousHash} AND EXISTS (SELECT FROM ${gate})
        RETURNING sequence
      ), record AS (
        INSERT INTO ${s}.audit_records (${AUDIT_COLUMNS})
        SELECT ${recordValues($, '(SELECT sequence FROM moved)')}
        FROM ${gate}
        RETURNING sequence
      )
      SELECT ${result}${notify ? `, pg_notify(${$.notifyChannel}, ${$.notifyPayload})` : ''} FROM ${gate}`
  })
}

/**
 * A change's CTEs (`change`), then the lock of its account's chain head row (`account`:
 * a named statement's placeholder), taken only once the change's CTE
 * `gate` returned a row: after every lock the change takes, so audited writes always
 * lock the head last. Its rows are `result` of `gate` (or of `from`, which may join
 * `gate` to the change's other CTEs) with `audit_head_sequence` and `audit_head_hash`
 * (both `NULL` when the account has no head row yet or `gate` has no row); no row in
 * `gate`: no change, nothing locked, nothing to record.
 */
function lockingHead(
  s: string,
  { change, account, gate, result, from = gate }: { change: string; account: string; gate: string; result: string; from?: string },
): string {
  return `
      WITH ${change}, audit_head AS (
        SELECT sequence, hash FROM ${s}.audit_heads
        WHERE account_id = ${account} AND EXISTS (SELECT FROM ${gate})
        FOR UPDATE
      )
      SELECT ${result}, (SELECT sequence FROM audit_head) AS audit_head_sequence, (SELECT hash FROM audit_head) AS audit_head_hash
      FROM ${from}`
}

/** The columns an edit's record reads before it (prior_*), as core/audit-fields.ts's EDITED_FIELDS need them. */
export const EDITED_COLUMNS = [
  'name',
  'expiry_days',
  'expires_at',
  'partners',
  'description',
  'disabled_at',
  'scopes',
  'allowed_addresses',
  'metadata',
  'tags',
] as const

/**
 * An account passcode's edit as CTEs (the placeholders of `EDIT_INPUTS`, statements.ts): `prior`
 * locks the row and reads the fields the record shows, so a concurrent edit is waited
 * for and the record's `before` is the value this edit replaced, never one read earlier;
 * `changed` edits it and returns the row with `prior_*`; `leak_closed` closes an open
 * leak mark when the edit enables it (SPEC §5.42).
 */
function editChange(s: string, $: Placeholders<EditInputs>): string {
  return `prior AS (
        SELECT ${EDITED_COLUMNS.join(', ')} FROM ${s}.account_passcodes
        WHERE account_id = ${$.accountId} AND id = ${$.passcodeId}
        FOR NO KEY UPDATE
      ), changed AS (
        UPDATE ${s}.account_passcodes AS p SET ${accountPatch($)}
        FROM prior WHERE p.account_id = ${$.accountId} AND p.id = ${$.passcodeId}
        RETURNING ${ACCOUNT_COLUMNS.split(', ')
          .map((column) => `p.${column}`)
          .join(', ')}, ${EDITED_COLUMNS.map((column) => `prior.${column} AS prior_${column}`).join(', ')}
      ), ${closeLeakOnEnable(s, 'changed', $)}`
}

/** The audit statements of one schema. */
export type AuditStatements = ReturnType<typeof auditStatements>
