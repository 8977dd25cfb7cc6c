import { GENESIS_HASH } from '../../core/audit'
import { namedStatement, type Placeholders } from './named-statement'
import {
  ACCOUNT_COLUMNS,
  accountPatch,
  closeLeakOnEnable,
  COMPLETE_LEAK_NOTICE_PARAMS,
  COMPLETE_NOTIFICATION_PARAMS,
  completeLeakNoticeChange,
  completeNotificationChange,
  DELETE_INPUTS,
  deleteAccountPasscodeChange,
  EDIT_INPUTS,
  type EditInputs,
  GRANT_USER_PASSCODE_PARAMS,
  INSERT_ACCOUNT_PASSCODE_PARAMS,
  insertAccountPasscodeChange,
  LEAK_INPUTS,
  LEAK_RESULTS,
  leakChanges,
  insertUserPasscodeChange,
  replaceUserPasscodeChange,
  RESET_INPUTS,
  resetUserPasscodeChange,
  REVOKE_USER_PASSCODE_PARAMS,
  revokeUserPasscodeChange,
  ROTATE_INPUTS,
  rotateChange,
  SET_ACCEPTED_INPUTS,
  setAcceptedPasscodesChange,
  USER_COLUMNS,
} from './statements'

/** Every column of `audit_records`, with its type (for the typed NULLs of {@link auditStatements}' list). */
const RECORD_COLUMNS = [
  ['account_id', 'text'],
  ['sequence', 'bigint'],
  ['at', 'bigint'],
  ['actor', 'text'],
  ['action', 'text'],
  ['target', 'text'],
  ['target_id', 'text'],
  ['changes', 'text'],
  ['request_id', 'text'],
  ['client_address', 'text'],
  ['previous_hash', 'text'],
  ['hash', 'text'],
  ['version', 'smallint'],
  ['key_id', 'text'],
] as const

const AUDIT_COLUMNS = RECORD_COLUMNS.map(([column]) => column).join(', ')
const recordColumns = (alias: string): string => RECORD_COLUMNS.map(([column]) => `${alias}.${column}`).join(', ')
// Named in the first branch of a UNION, which names the columns of all.
const NO_HEAD =
  'NULL::bigint AS head_sequence, NULL::text AS head_hash, NULL::bigint AS start_sequence, NULL::text AS start_hash, NULL::bigint AS stray'
const NO_RECORD = RECORD_COLUMNS.map(([, type]) => `NULL::${type}`).join(', ')

// Page filters; $1 is the account, $2 the sequence to continue below, $3 the page size.
// $8 is the actor column's exact texts for one user (canonical JSON, one per role), so
// the filter needs no column of its own and never parses a row that was edited into
// something that is not JSON.
const FILTERS = `($4::text[] IS NULL OR r.action = ANY($4::text[]))
        AND ($5::text IS NULL OR r.target_id = $5::text)
        AND ($6::bigint IS NULL OR r.at >= $6::bigint)
        AND ($7::bigint IS NULL OR r.at < $7::bigint)
        AND ($8::text[] IS NULL OR r.actor = ANY($8::text[]))`

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
    lockHead: `SELECT sequence, hash FROM ${s}.audit_heads WHERE account_id = $1::text FOR UPDATE`,
    // An account's first record: its head row at the genesis, then locked with lockHead.
    createHead: `
      INSERT INTO ${s}.audit_heads (account_id, sequence, hash, previous_hash, start_sequence, start_hash)
      VALUES ($1::text, 0, '${GENESIS_HASH}', '${GENESIS_HASH}', 0, '${GENESIS_HASH}')
      ON CONFLICT (account_id) DO NOTHING`,
    append: appendStatement(s, false),
    appendAndNotify: appendStatement(s, true),

    // Each change whose record the service made whole, then the head lock.
    insertAccountPasscodeAndLock: lockingHead(s, {
      change: insertAccountPasscodeChange(s),
      params: INSERT_ACCOUNT_PASSCODE_PARAMS,
      gate: 'changed',
      result: ACCOUNT_COLUMNS,
    }),
    insertUserPasscodeAndLock: lockingHead(s, {
      change: insertUserPasscodeChange(s),
      params: GRANT_USER_PASSCODE_PARAMS,
      gate: 'changed',
      result: USER_COLUMNS,
    }),
    replaceUserPasscodeAndLock: lockingHead(s, {
      change: replaceUserPasscodeChange(s),
      params: GRANT_USER_PASSCODE_PARAMS,
      gate: 'changed',
      result: USER_COLUMNS,
    }),
    revokeUserPasscodeAndLock: lockingHead(s, {
      change: revokeUserPasscodeChange(s),
      params: REVOKE_USER_PASSCODE_PARAMS,
      gate: 'changed',
      result: USER_COLUMNS,
    }),
    completeNotificationAndLock: lockingHead(s, {
      change: completeNotificationChange(s),
      params: COMPLETE_NOTIFICATION_PARAMS,
      gate: 'sent',
      result: 'passcode_id',
    }),
    completeLeakNoticeAndLock: lockingHead(s, {
      change: completeLeakNoticeChange(s),
      params: COMPLETE_LEAK_NOTICE_PARAMS,
      gate: 'sent',
      result: 'id',
    }),
    // The same four, and an append that changes nothing, with their record in one statement.
    revokeUserPasscodeAppending: appendingAt(s, {
      change: revokeUserPasscodeChange(s),
      params: REVOKE_USER_PASSCODE_PARAMS,
      gate: 'changed',
      result: USER_COLUMNS,
      notify: true,
    }),
    completeNotificationAppending: appendingAt(s, {
      change: completeNotificationChange(s),
      params: COMPLETE_NOTIFICATION_PARAMS,
      gate: 'sent',
      result: 'passcode_id',
    }),
    completeLeakNoticeAppending: appendingAt(s, {
      change: completeLeakNoticeChange(s),
      params: COMPLETE_LEAK_NOTICE_PARAMS,
      gate: 'sent',
      result: 'id',
    }),
    appendAt: appendingAt(s, { change: 'nothing AS (SELECT 1 AS appended)', params: 0, gate: 'nothing', result: 'appended' }),
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

    // One page and what vouches for it (core/audit-page.ts, AuditListing), in one
    // statement, so one snapshot: the head row, the page (inside the chain's ends, by the
    // primary key from a bound, so its cost grows neither with other accounts' records nor
    // with the page's depth), the record at the head and the one after the start (one
    // probe each), the newest prune record (one probe of its partial index) and the first
    // row outside the ends (two probes). Rows come tagged by `part`.
    list: `
      WITH h AS (
        SELECT sequence, hash, start_sequence, start_hash FROM ${s}.audit_heads WHERE account_id = $1::text
      ), page AS (
        SELECT ${recordColumns('r')} FROM ${s}.audit_records r, h
        WHERE r.account_id = $1::text AND r.sequence > h.start_sequence AND r.sequence <= h.sequence
          AND r.sequence < coalesce($2::bigint, 9223372036854775807)
          AND ${FILTERS}
        ORDER BY r.sequence DESC LIMIT $3::integer
      )
      SELECT 'page' AS part, ${AUDIT_COLUMNS}, ${NO_HEAD} FROM page
      UNION ALL
      SELECT 'head', ${recordColumns('r')}, ${NO_HEAD} FROM ${s}.audit_records r, h WHERE r.account_id = $1::text AND r.sequence = h.sequence
      UNION ALL
      SELECT 'first', ${recordColumns('r')}, ${NO_HEAD} FROM ${s}.audit_records r, h
      WHERE r.account_id = $1::text AND r.sequence = h.start_sequence + 1
      UNION ALL (
        SELECT 'pruned', ${recordColumns('r')}, ${NO_HEAD} FROM ${s}.audit_records r, h
        WHERE r.account_id = $1::text AND r.action = 'audit.pruned' AND r.sequence > h.start_sequence AND r.sequence <= h.sequence
          AND (h.start_sequence <> 0 OR h.start_hash <> '${GENESIS_HASH}')
        ORDER BY r.sequence DESC LIMIT 1
      )
      UNION ALL
      SELECT 'ends', ${NO_RECORD}, h.sequence, h.hash, h.start_sequence, h.start_hash,
        CASE WHEN h.sequence IS NULL THEN (SELECT min(sequence) FROM ${s}.audit_records WHERE account_id = $1::text)
        ELSE coalesce(
          (SELECT min(sequence) FROM ${s}.audit_records WHERE account_id = $1::text AND sequence <= h.start_sequence),
          (SELECT min(sequence) FROM ${s}.audit_records WHERE account_id = $1::text AND sequence > h.sequence)
        ) END
      FROM (SELECT 1) AS one LEFT JOIN h ON true`,
    // Every row of an account from a sequence on (inclusive): what verification walks.
    // `ctid` orders rows that repeat a sequence (only possible once the primary key was
    // dropped) the same on every page.
    records: `
      SELECT ${AUDIT_COLUMNS} FROM ${s}.audit_records
      WHERE account_id = $1::text AND sequence >= coalesce($2::bigint, -9223372036854775808)
      ORDER BY sequence, ctid LIMIT $3::integer`,
    ends: `SELECT sequence, hash, start_sequence, start_hash FROM ${s}.audit_heads WHERE account_id = $1::text`,
    // Per account: the newest record older than the cut-off; everything kept up to it goes.
    pruneCandidates: `
      SELECT account_id, max(sequence) AS through FROM ${s}.audit_records WHERE at < $1::bigint GROUP BY account_id`,
    // Under the head's lock (lockHead): deletes the kept records up to $2 (never the rows
    // at or below the start: a stray stays for verification to see) and moves the start to
    // the last one deleted; answers how many went, that record, and the start before.
    pruneThrough: `
      WITH prior AS (
        SELECT start_sequence, start_hash FROM ${s}.audit_heads WHERE account_id = $1::text
      ), gone AS (
        DELETE FROM ${s}.audit_records r USING prior
        WHERE r.account_id = $1::text AND r.sequence > prior.start_sequence AND r.sequence <= $2::bigint
        RETURNING r.sequence, r.hash
      ), last AS (
        SELECT sequence, hash FROM gone ORDER BY sequence DESC LIMIT 1
      ), moved AS (
        UPDATE ${s}.audit_heads h SET start_sequence = last.sequence, start_hash = last.hash
        FROM last WHERE h.account_id = $1::text
        RETURNING 1
      )
      SELECT (SELECT count(*) FROM gone) AS removed, last.sequence AS through, last.hash AS through_hash,
        prior.start_sequence, prior.start_hash, (SELECT count(*) FROM moved) AS moved
      FROM prior LEFT JOIN last ON true`,
  }
}

/**
 * The record's insert and the head row's move, with the change's `NOTIFY` when
 * `notify`: $1 account, $2 sequence, $3–$14 the record's other columns as
 * `recordParams` (postgres-audit-log.ts) lists them, then $15 channel and $16 payload.
 * The head moves only from the record before ($2 − 1, its hash the record's previous
 * hash), which the caller's lock holds: `moved` is 1, or the caller rolls back.
 */
function appendStatement(s: string, notify: boolean): string {
  return `
      WITH record AS (
        INSERT INTO ${s}.audit_records (${AUDIT_COLUMNS})
        VALUES ($1::text, $2::bigint, $3::bigint, $4::text, $5::text, $6::text, $7::text, $8::text, $9::text, $10::text, $11::text, $12::text,
                $13::smallint, $14::text)
        RETURNING sequence
      ), moved AS (
        UPDATE ${s}.audit_heads SET sequence = $2::bigint, hash = $12::text, previous_hash = $11::text
        WHERE account_id = $1::text AND sequence = $2::bigint - 1 AND hash = $11::text
        RETURNING 1
      )
      SELECT (SELECT count(*) FROM moved) AS moved, (SELECT count(*) FROM record) AS recorded${notify ? ', pg_notify($15::text, $16::text)' : ''}`
}

/**
 * A change whose record the service made whole, and that record, in one statement:
 * the change's CTEs (`change`, parameters 1 to `params`; its CTE `gate` returns a row
 * when it changed something), then the head's move from the head the caller read before
 * (the record's previous sequence and hash) and the record's insert, with parameters
 * after the change's as {@link appendStatement}'s ($1–$14 there), then with `notify` the
 * change's `NOTIFY` (channel, payload). The head moves only once the change is made
 * (after every lock the change takes) and only from that head; the record's sequence is
 * the sequence the head moved to, so when another append moved the head in between, the
 * record's sequence is NULL and its insert fails (23502, not-null), which undoes the whole
 * statement and its change: the caller reads the head again (or takes the transactional
 * way). No row in `gate`: no change, no record. Its rows are `result` of `gate`.
 */
function appendingAt(
  s: string,
  { change, params, gate, result, notify = false }: { change: string; params: number; gate: string; result: string; notify?: boolean },
): string {
  const p = (n: number) => `$${params + n}`
  return `
      WITH ${change}, moved AS (
        UPDATE ${s}.audit_heads SET sequence = ${p(2)}::bigint, hash = ${p(12)}::text, previous_hash = ${p(11)}::text
        WHERE account_id = ${p(1)}::text AND sequence = ${p(2)}::bigint - 1 AND hash = ${p(11)}::text AND EXISTS (SELECT FROM ${gate})
        RETURNING sequence
      ), record AS (
        INSERT INTO ${s}.audit_records (${AUDIT_COLUMNS})
        SELECT ${p(1)}::text, (SELECT sequence FROM moved), ${p(3)}::bigint, ${p(4)}::text, ${p(5)}::text, ${p(6)}::text, ${p(7)}::text,
          ${p(8)}::text, ${p(9)}::text, ${p(10)}::text, ${p(11)}::text, ${p(12)}::text, ${p(13)}::smallint, ${p(14)}::text
        FROM ${gate}
        RETURNING sequence
      )
      SELECT ${result}${notify ? `, pg_notify(${p(15)}::text, ${p(16)}::text)` : ''} FROM ${gate}`
}

/**
 * A change's CTEs (`change`), then the lock of its account's chain head row (`account`:
 * a named statement's placeholder, or else parameter `params + 1`), taken only once the change's CTE
 * `gate` returned a row: after every lock the change takes, so audited writes always
 * lock the head last. Its rows are `result` of `gate` with `audit_head_sequence` and
 * `audit_head_hash` (both `NULL` when the account has no head row yet); no row: no
 * change, nothing locked, nothing to record.
 */
function lockingHead(
  s: string,
  { change, gate, result, ...head }: { change: string; gate: string; result: string } & ({ params: number } | { account: string }),
): string {
  const account = 'account' in head ? head.account : `$${head.params + 1}::text`
  return `
      WITH ${change}, audit_head AS (
        SELECT sequence, hash FROM ${s}.audit_heads
        WHERE account_id = ${account} AND EXISTS (SELECT FROM ${gate})
        FOR UPDATE
      )
      SELECT ${result}, (SELECT sequence FROM audit_head) AS audit_head_sequence, (SELECT hash FROM audit_head) AS audit_head_hash
      FROM ${gate}`
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
