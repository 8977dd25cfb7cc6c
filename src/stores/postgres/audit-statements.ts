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
  const head = `head AS (
        INSERT INTO ${s}.audit_heads AS h (account_id, sequence, hash, previous_hash, start_sequence, start_hash)
        VALUES ($1::text, 1, encode(sha256(convert_to($11::text || $10::text || $12::text, 'UTF8')), 'hex'), $10::text, 0, $10::text)
        ON CONFLICT (account_id) DO UPDATE SET
          sequence = h.sequence + 1,
          hash = encode(sha256(convert_to($11::text || h.hash || $12::text, 'UTF8')), 'hex'),
          previous_hash = h.hash
        RETURNING sequence, hash, previous_hash
      )`
  const insert = `
        INSERT INTO ${s}.audit_records (${AUDIT_COLUMNS})
        SELECT $1::text, head.sequence, $2::bigint, $3::text, $4::text, $5::text, $6::text, $7::text, $8::text, $9::text, head.previous_hash, head.hash
        FROM head
        RETURNING sequence, previous_hash, hash`
  return {
    // One statement, one round trip: the upsert locks the account's head row (DO UPDATE
    // waits for a concurrent append's commit and then works on the head that one left),
    // moves it one record on and hashes the new record in SQL: SHA-256 of the canonical
    // encoding, whose two parts around the previous hash ($11, $12) the caller made with
    // auditHashInputAround(). The record is inserted from the head's new values.
    append: `
      WITH ${head}, record AS (${insert})
      SELECT sequence, previous_hash, hash FROM record`,
    // The same, and the write's NOTIFY ($13 channel, $14 payload) in that round trip.
    appendAndNotify: `
      WITH ${head}, record AS (${insert})
      SELECT sequence, previous_hash, hash, pg_notify($13::text, $14::text) FROM record`,
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

/** The audit statements of one schema. */
export type AuditStatements = ReturnType<typeof auditStatements>
