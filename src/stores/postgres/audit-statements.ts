import {
  ACCOUNT_COLUMNS,
  ACCOUNT_PATCH,
  ACCOUNT_PATCH_PARAMS,
  closeLeakOnEnable,
  COMPLETE_LEAK_NOTICE_PARAMS,
  COMPLETE_NOTIFICATION_PARAMS,
  completeLeakNoticeChange,
  completeNotificationChange,
  DELETE_ACCOUNT_PASSCODE_PARAMS,
  deleteAccountPasscodeChange,
  GRANT_USER_PASSCODE_PARAMS,
  INSERT_ACCOUNT_PASSCODE_PARAMS,
  insertAccountPasscodeChange,
  insertUserPasscodeChange,
  replaceUserPasscodeChange,
  RESET_USER_PASSCODE_PARAMS,
  resetUserPasscodeChange,
  REVOKE_USER_PASSCODE_PARAMS,
  revokeUserPasscodeChange,
  ROTATE_PARAMS,
  rotateChange,
  SET_ACCEPTED_PASSCODES_PARAMS,
  setAcceptedPasscodesChange,
  USER_COLUMNS,
} from './statements'

const AUDIT_COLUMNS = 'account_id, sequence, at, actor, action, target, target_id, changes, request_id, client_address, previous_hash, hash'
// Page filters; $1 is the account, $2 the sequence to continue after, $3 the page size.
// $8 is the actor column's exact texts for one user (canonical JSON, one per role), so
// the filter needs no column of its own and never parses a row that was edited into
// something that is not JSON.
const FILTERS = `($4::text[] IS NULL OR action = ANY($4::text[]))
        AND ($5::text IS NULL OR target_id = $5::text)
        AND ($6::bigint IS NULL OR at >= $6::bigint)
        AND ($7::bigint IS NULL OR at < $7::bigint)
        AND ($8::text[] IS NULL OR actor = ANY($8::text[]))`

/**
 * The audit trail's statements for one schema (SPEC §5.40), the same for `pg` and
 * PGlite. A page reads the primary key (account, sequence) in one direction from a
 * bound, so its cost does not grow with other accounts' records nor with the page's depth.
 */
export function auditStatements(s: string) {
  const { head, insert } = appendCtes(s, (n) => `$${n}`)
  return {
    // One statement, one round trip (appendCtes): the head row's upsert, then the record.
    append: `
      WITH ${head}, record AS (${insert})
      SELECT sequence, previous_hash, hash FROM record`,
    // The same, and the write's NOTIFY ($13 channel, $14 payload) in that round trip.
    appendAndNotify: `
      WITH ${head}, record AS (${insert})
      SELECT sequence, previous_hash, hash, pg_notify($13::text, $14::text) FROM record`,
    // The notifier's completion of a claim and of a leak notice, each with its record (appendAfter).
    completeNotificationAndAppend: appendAfter(s, {
      change: completeNotificationChange(s),
      params: COMPLETE_NOTIFICATION_PARAMS,
      gate: 'sent',
      result: 'passcode_id',
    }),
    completeLeakNoticeAndAppend: appendAfter(s, {
      change: completeLeakNoticeChange(s),
      params: COMPLETE_LEAK_NOTICE_PARAMS,
      gate: 'sent',
      result: 'id',
    }),
    // Writes whose record the service makes whole, each with its record (appendAfter):
    // an account passcode's insert (in its create's transaction, after the cap and name
    // checks), a user passcode's grant (after its row's lock; a replacing one with its
    // NOTIFY), a revoke with its NOTIFY.
    insertAccountPasscodeAndAppend: appendAfter(s, {
      change: insertAccountPasscodeChange(s),
      params: INSERT_ACCOUNT_PASSCODE_PARAMS,
      gate: 'changed',
      result: ACCOUNT_COLUMNS,
    }),
    insertUserPasscodeAndAppend: appendAfter(s, {
      change: insertUserPasscodeChange(s),
      params: GRANT_USER_PASSCODE_PARAMS,
      gate: 'changed',
      result: USER_COLUMNS,
    }),
    replaceUserPasscodeAndAppend: appendAfter(s, {
      change: replaceUserPasscodeChange(s),
      params: GRANT_USER_PASSCODE_PARAMS,
      gate: 'changed',
      result: USER_COLUMNS,
      notify: true,
    }),
    revokeUserPasscodeAndAppend: appendAfter(s, {
      change: revokeUserPasscodeChange(s),
      params: REVOKE_USER_PASSCODE_PARAMS,
      gate: 'changed',
      result: USER_COLUMNS,
      notify: true,
    }),
    // An account passcode's edit with its record, without and with its NOTIFY (editStatement).
    edit: editStatement(s, false),
    editAndNotify: editStatement(s, true),
    // An account passcode's rotation with its record and its NOTIFY (rotateStatement).
    rotateAndNotify: rotateStatement(s),
    // An account passcode's delete with its record and its NOTIFY (deleteStatement).
    deleteAndNotify: deleteStatement(s),
    // A user passcode's reset and a change of the accepted passcodes, each with its
    // record (its before and after from the row) and its NOTIFY (changeStatement).
    resetAndNotify: changeStatement(s, {
      change: resetUserPasscodeChange(s),
      params: RESET_USER_PASSCODE_PARAMS,
      compared: `('expiresAt', e.prior_expires_at::text, e.expires_at::text)`,
      result: `${USER_COLUMNS}, prior_expires_at`,
    }),
    setAcceptedAndNotify: changeStatement(s, {
      change: setAcceptedPasscodesChange(s),
      params: SET_ACCEPTED_PASSCODES_PARAMS,
      // toAccepted() (rows.ts): anything but 'user' or 'both' reads as 'account'.
      compared: `('acceptedPasscodes', to_json(CASE WHEN e.prior_accepted IN ('user', 'both') THEN e.prior_accepted ELSE 'account' END)::text,
            to_json(e.accepted_passcodes)::text)`,
      result: 'prior_accepted',
    }),
    newest: `
      SELECT ${AUDIT_COLUMNS} FROM ${s}.audit_records
      WHERE account_id = $1::text AND sequence < coalesce($2::bigint, 9223372036854775807)
        AND ${FILTERS}
      ORDER BY sequence DESC LIMIT $3::integer`,
    oldest: `
      SELECT ${AUDIT_COLUMNS} FROM ${s}.audit_records
      WHERE account_id = $1::text AND sequence > coalesce($2::bigint, 0)
        AND ${FILTERS}
      ORDER BY sequence LIMIT $3::integer`,
    ends: `SELECT sequence, hash, start_sequence, start_hash FROM ${s}.audit_heads WHERE account_id = $1::text`,
    // Per account: the newest record older than the cut-off; everything up to it goes.
    pruneCandidates: `
      SELECT account_id, max(sequence) AS through FROM ${s}.audit_records WHERE at < $1::bigint GROUP BY account_id`,
    lockHeadForPrune: `SELECT sequence FROM ${s}.audit_heads WHERE account_id = $1::text FOR UPDATE`,
    pruneThrough: `
      WITH gone AS (
        DELETE FROM ${s}.audit_records WHERE account_id = $1::text AND sequence <= $2::bigint RETURNING sequence, hash
      ), last AS (
        SELECT sequence, hash FROM gone ORDER BY sequence DESC LIMIT 1
      ), moved AS (
        UPDATE ${s}.audit_heads h SET start_sequence = last.sequence, start_hash = last.hash
        FROM last WHERE h.account_id = $1::text AND last.sequence > h.start_sequence
        RETURNING 1
      )
      SELECT (SELECT count(*) FROM gone) AS removed, (SELECT count(*) FROM moved) AS moved`,
  }
}

/**
 * The CTEs of an append (SPEC §5.40), its parameters numbered by `p` (1 the account,
 * 2 at, 3 actor, 4 action, 5 target, 6 target id, 7 changes, 8 request id, 9 client
 * address, 10 the genesis hash, 11–12 the hash input's parts around the previous
 * hash: `appendParams` makes them): `head` upserts the account's head row, which locks
 * it (DO UPDATE waits for a concurrent append's commit and then works on the head that
 * one left), moves it one record on and hashes the new record in SQL (SHA-256 of the
 * canonical encoding); `insert` (the body of a CTE `record`) inserts the record from
 * the head's new values. With `gate`, the name of a CTE of the same statement, the
 * record is appended only when that CTE returns a row (the change was made).
 */
function appendCtes(s: string, p: (n: number) => string, gate?: string): { head: string; insert: string } {
  const head = `head AS (
        INSERT INTO ${s}.audit_heads AS h (account_id, sequence, hash, previous_hash, start_sequence, start_hash)
        SELECT ${p(1)}::text, 1, encode(sha256(convert_to(${p(11)}::text || ${p(10)}::text || ${p(12)}::text, 'UTF8')), 'hex'), ${p(10)}::text, 0, ${p(10)}::text
        ${gate === undefined ? '' : `WHERE EXISTS (SELECT FROM ${gate})`}
        ON CONFLICT (account_id) DO UPDATE SET
          sequence = h.sequence + 1,
          hash = encode(sha256(convert_to(${p(11)}::text || h.hash || ${p(12)}::text, 'UTF8')), 'hex'),
          previous_hash = h.hash
        RETURNING sequence, hash, previous_hash
      )`
  const insert = `
        INSERT INTO ${s}.audit_records (${AUDIT_COLUMNS})
        SELECT ${p(1)}::text, head.sequence, ${p(2)}::bigint, ${p(3)}::text, ${p(4)}::text, ${p(5)}::text, ${p(6)}::text, ${p(7)}::text, ${p(8)}::text, ${p(9)}::text, head.previous_hash, head.hash
        FROM head
        RETURNING sequence, previous_hash, hash`
  return { head, insert }
}

/**
 * A change and its audit record in one statement, for a change whose record the caller
 * makes whole (a create, a grant, a revoke, the notifier's completions): the change's
 * CTEs (`change`, parameters 1 to `params`), then {@link appendCtes} gated on its CTE
 * `gate`, with the append's 12 parameters after the change's, then with `notify` the
 * change's `NOTIFY` (channel and payload, the last two); the statement's rows are
 * `result` of `gate`, as the change alone answers. The record commits with the change
 * (in the statement's transaction, implicit or the caller's), and without a change (no
 * row in `gate`: the claim did not hold, a concurrent grant came first) there is none,
 * nor a `NOTIFY`.
 */
function appendAfter(
  s: string,
  { change, params, gate, result, notify = false }: { change: string; params: number; gate: string; result: string; notify?: boolean },
): string {
  const { head, insert } = appendCtes(s, (n) => `$${params + n}`, gate)
  return `
      WITH ${change}, ${head}, record AS (${insert})
      SELECT ${result}${notify ? `, pg_notify($${params + 13}::text, $${params + 14}::text)` : ''} FROM ${gate}`
}

// The columns an edit may change, read before it (prior_*) and after.
const EDITED_COLUMNS = [
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
]

/**
 * The canonical JSON (core/audit.ts) of each field an edit's record shows, as
 * core/audit-fields.ts's EDITED_FIELDS, from the columns `c` names: the same text
 * canonicalJson() makes of the same values (to_json escapes a string as JSON.stringify
 * does; an empty description is none; no expiry day count is 'forever').
 */
const editedFieldsJson = (c: (column: string) => string): [field: string, json: string][] => [
  ['description', `CASE WHEN coalesce(${c('description')}, '') = '' THEN 'null' ELSE to_json(${c('description')})::text END`],
  ['disabled', `CASE WHEN ${c('disabled_at')} IS NULL THEN 'false' ELSE 'true' END`],
  ['expiresAt', `coalesce(${c('expires_at')}::text, 'null')`],
  ['expiry', `coalesce(${c('expiry_days')}::text, '"forever"')`],
  ['name', `to_json(${c('name')})::text`],
  ['partners', `coalesce(to_json(${c('partners')})::text, 'null')`],
  // SPEC §5.48–5.51: every scope (NULL), any address and no tags (empty) are none; metadata is shown as its JSON text.
  ['scopes', `coalesce(to_json(${c('scopes')})::text, 'null')`],
  [
    'allowedAddresses',
    `CASE WHEN coalesce(cardinality(${c('allowed_addresses')}), 0) = 0 THEN 'null' ELSE to_json(${c('allowed_addresses')})::text END`,
  ],
  ['metadata', `coalesce(to_json(${c('metadata')})::text, 'null')`],
  ['tags', `CASE WHEN coalesce(cardinality(${c('tags')}), 0) = 0 THEN 'null' ELSE to_json(${c('tags')})::text END`],
]

/**
 * The CTEs that make a change's audit record from the row the change found and left,
 * and append it, in the change's own statement: so one round trip and one implicit
 * transaction (SPEC §5.40).
 * - `fields` is the changed fields' `{"after":…,"before":…}`: `compared`, rows of
 *   (field, canonical JSON before, after) over the CTE `from` (as `e`), which returns
 *   no row when the change found none, kept only where before and after differ unless
 *   `always`; with the entry's changes of other fields (names and canonical JSON);
 * - `entry` joins them into the record's changes (keys sorted) and makes the target
 *   (the passcode with its name in `from`, unless the entry's is another; always the
 *   entry's when not `passcodeTarget`, for a `from` that has no passcode's name);
 * - `head` and `record` append it as `append` does, hashing the parts the caller made
 *   with auditHashInputParts(entry, ['changes', 'target']) around the changes, the
 *   previous hash and the target. No row in `from`: no record.
 * The record's parameters are numbered from 1 after the change's (`p(n)`): 1 at,
 * 2 actor, 3 action, 4 target or null, 5 target id, 6–7 other changes, 8 request id,
 * 9 client address, 10 the genesis hash, 11–14 the hash input's parts
 * (rowRecordParams makes them).
 */
function recordFromRow(s: string, p: (n: number) => string, from: string, compared: string, always: boolean, passcodeTarget = true): string {
  const target = passcodeTarget
    ? `coalesce(${p(4)}::text, '{"id":' || to_json(${p(5)}::text)::text || ',"name":' || (SELECT to_json(name)::text FROM ${from}) || ',"type":"passcode"}')`
    : `${p(4)}::text`
  return `fields AS (
        SELECT f.field, '{"after":' || f.after || ',"before":' || f.before || '}' AS change
        FROM ${from} e CROSS JOIN LATERAL (VALUES
          ${compared}
        ) AS f(field, before, after)${always ? '' : '\n        WHERE f.before <> f.after'}
        UNION ALL
        SELECT * FROM unnest(${p(6)}::text[], ${p(7)}::text[])
      ), entry AS (
        SELECT '{' || coalesce(string_agg(to_json(field)::text || ':' || change, ',' ORDER BY field COLLATE "C"), '') || '}' AS changes,
          ${target} AS target
        FROM fields
        HAVING EXISTS (SELECT FROM ${from})
      ), head AS (
        INSERT INTO ${s}.audit_heads AS h (account_id, sequence, hash, previous_hash, start_sequence, start_hash)
        SELECT $1::text, 1, encode(sha256(convert_to(${p(11)}::text || changes || ${p(12)}::text || ${p(10)}::text || ${p(13)}::text || target || ${p(14)}::text, 'UTF8')), 'hex'),
          ${p(10)}::text, 0, ${p(10)}::text
        FROM entry
        ON CONFLICT (account_id) DO UPDATE SET
          sequence = h.sequence + 1,
          hash = encode(sha256(convert_to(
            (SELECT ${p(11)}::text || changes || ${p(12)}::text FROM entry) || h.hash || (SELECT ${p(13)}::text || target || ${p(14)}::text FROM entry), 'UTF8')), 'hex'),
          previous_hash = h.hash
        RETURNING sequence, hash, previous_hash
      ), record AS (
        INSERT INTO ${s}.audit_records (${AUDIT_COLUMNS})
        SELECT $1::text, head.sequence, ${p(1)}::bigint, ${p(2)}::text, ${p(3)}::text, entry.target, ${p(5)}::text, entry.changes, ${p(8)}::text, ${p(9)}::text,
          head.previous_hash, head.hash
        FROM head, entry
        RETURNING sequence
      )`
}

/**
 * An account passcode's edit and its audit record in one statement, with the change's
 * `NOTIFY` when `notify`: `prior` locks the row and reads it, so a concurrent edit is
 * waited for, and the record's `before` is the value this edit replaced, never one read
 * earlier; `edited` changes it; {@link recordFromRow} records the fields that differ
 * between the two, and the target with its name after the edit.
 * Parameters: the patch's ($1–$22, as `updateAccountPasscode`), then the record's
 * (1–14 after them), then 15–16 the NOTIFY.
 */
function editStatement(s: string, notify: boolean): string {
  const p = (n: number) => `$${ACCOUNT_PATCH_PARAMS + n}`
  const changed = editedFieldsJson((column) => `e.prior_${column}`)
    .map(([field, before], index) => `('${field}', ${before}, ${editedFieldsJson((column) => `e.${column}`)[index]![1]})`)
    .join(',\n          ')
  return `
      WITH prior AS (
        SELECT ${EDITED_COLUMNS.join(', ')} FROM ${s}.account_passcodes
        WHERE account_id = $1::text AND id = $2::text
        FOR NO KEY UPDATE
      ), edited AS (
        UPDATE ${s}.account_passcodes AS p SET ${ACCOUNT_PATCH}
        FROM prior WHERE p.account_id = $1::text AND p.id = $2::text
        RETURNING ${ACCOUNT_COLUMNS.split(', ')
          .map((column) => `p.${column}`)
          .join(', ')}, ${EDITED_COLUMNS.map((column) => `prior.${column} AS prior_${column}`).join(', ')}
      ), ${closeLeakOnEnable(s, 'edited')}, ${recordFromRow(s, p, 'edited', changed, false)}
      SELECT ${ACCOUNT_COLUMNS}, (SELECT sequence FROM record) AS audit_sequence${notify ? `, pg_notify(${p(15)}::text, ${p(16)}::text)` : ''}
      FROM edited`
}

/**
 * An account passcode's rotation, its audit record and its `NOTIFY` in one statement:
 * the rotation's CTEs (`rotateChange`: `prior` locks the row and reads the overlap end
 * the rotation replaces), then {@link recordFromRow} with that end before and the new
 * one after, as canonical JSON (a whole number or `null`), kept even when both are
 * `null`, as `rotatedPasscodeEntry` (core/audit-fields.ts) keeps it, and the target
 * with the row's name. Parameters: the rotation's ($1–$7, as `rotateAccountPasscode`),
 * then the record's (1–14 after them), then 15–16 the NOTIFY.
 */
function rotateStatement(s: string): string {
  const p = (n: number) => `$${ROTATE_PARAMS + n}`
  const ends = `('previousValueEndsAt', coalesce(e.prior_ends::text, 'null'), coalesce(e.previous_hash_ends_at::text, 'null'))`
  return `
      WITH ${rotateChange(s)}, ${recordFromRow(s, p, 'changed', ends, true)}
      SELECT ${ACCOUNT_COLUMNS}, (SELECT sequence FROM record) AS audit_sequence, pg_notify(${p(15)}::text, ${p(16)}::text)
      FROM changed`
}

/**
 * An account passcode's delete, its audit record and its `NOTIFY` in one statement:
 * the delete's CTEs (`deleteAccountPasscodeChange`), then {@link recordFromRow} with
 * each field the deleted row showed before (and `null` after; a field that was `null`,
 * or an empty description, is left out), as `deletedPasscodeEntry`
 * (core/audit-fields.ts) makes them, and the target with the row's name. Parameters:
 * the delete's ($1 account, $2 passcode), then the record's (1–14 after them), then
 * 15–16 the NOTIFY.
 */
function deleteStatement(s: string): string {
  const p = (n: number) => `$${DELETE_ACCOUNT_PASSCODE_PARAMS + n}`
  const deleted = editedFieldsJson((column) => `e.${column}`)
    .filter(([field]) => field !== 'disabled')
    .map(([field, before]) => `('${field}', ${before}, 'null')`)
    .join(',\n          ')
  return `
      WITH ${deleteAccountPasscodeChange(s)}, ${recordFromRow(s, p, 'changed', deleted, false)}
      SELECT ${ACCOUNT_COLUMNS}, (SELECT sequence FROM record) AS audit_sequence, pg_notify(${p(15)}::text, ${p(16)}::text)
      FROM changed`
}

/**
 * A change whose record shows one field before and after as the change's row has
 * them (a user passcode's reset: `expiresAt`; the accepted passcodes), with its record
 * and its `NOTIFY`, in one statement: the change's CTEs (`change`, parameters 1 to
 * `params`, its row in `changed`), then {@link recordFromRow} with `compared` (the
 * field's row, kept even when before and after are equal, as `resetUserPasscodeEntry`
 * and `acceptedPasscodesEntry` in core/audit-fields.ts keep it) and the entry's own
 * target. Parameters: the change's, then the record's (1–14 after them), then 15–16
 * the NOTIFY. Its rows are `result` of `changed`.
 */
function changeStatement(
  s: string,
  { change, params, compared, result }: { change: string; params: number; compared: string; result: string },
): string {
  const p = (n: number) => `$${params + n}`
  return `
      WITH ${change}, ${recordFromRow(s, p, 'changed', compared, true, false)}
      SELECT ${result}, pg_notify(${p(15)}::text, ${p(16)}::text) FROM changed`
}

/** The audit statements of one schema. */
export type AuditStatements = ReturnType<typeof auditStatements>
