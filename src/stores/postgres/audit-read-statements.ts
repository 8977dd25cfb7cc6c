/** The audit trail's reads and its chain head's statements: the head's lock and creation, a page, the rows from a sequence, the ends, the prune. */
import { GENESIS_HASH } from '../../core/audit'
import { AUDIT_COLUMNS, NO_HEAD, NO_RECORD, recordColumns } from './audit-record-columns'
import { namedStatement, orNull, sqlType, type Placeholders } from './named-statement'

/** The inputs of a page of an account's records ({@link auditStatements}' `list`): the account, where to continue, the size and the filters. */
const LIST_INPUTS = {
  accountId: sqlType.text,
  /** The sequence to continue below (`null`: from the head). */
  after: orNull(sqlType.bigint),
  limit: sqlType.integer,
  actions: orNull(sqlType.textArray),
  targetId: orNull(sqlType.text),
  from: orNull(sqlType.bigint),
  to: orNull(sqlType.bigint),
  /**
   * The actor column's exact texts for one user (canonical JSON, one per role), so the
   * filter needs no column of its own and never parses a row that was edited into
   * something that is not JSON.
   */
  actors: orNull(sqlType.textArray),
} as const

/** The page filters (`null`: no filter), from the placeholders of {@link LIST_INPUTS}. */
const filters = ($: Placeholders<typeof LIST_INPUTS>): string => `(${$.actions} IS NULL OR r.action = ANY(${$.actions}))
        AND (${$.targetId} IS NULL OR r.target_id = ${$.targetId})
        AND (${$.from} IS NULL OR r.at >= ${$.from})
        AND (${$.to} IS NULL OR r.at < ${$.to})
        AND (${$.actors} IS NULL OR r.actor = ANY(${$.actors}))`

/** The inputs of the rows of an account from a sequence on (`from`, inclusive; `null`: the first). */
const RECORDS_INPUTS = { accountId: sqlType.text, from: orNull(sqlType.bigint), limit: sqlType.integer } as const

/** The inputs of a prune of an account's kept records up to a sequence (`through`). */
const PRUNE_INPUTS = { accountId: sqlType.text, through: sqlType.bigint } as const

/** An account, the only input of the head's and the chain ends' statements. */
const ACCOUNT_ONLY = { accountId: sqlType.text } as const

/** The audit trail's reads, the head's statements and the prune, for one schema (part of {@link auditStatements}, audit-statements.ts). */
export function auditReadStatements(s: string) {
  return {
    lockHead: namedStatement(ACCOUNT_ONLY, ($) => `SELECT sequence, hash FROM ${s}.audit_heads WHERE account_id = ${$.accountId} FOR UPDATE`),
    // An account's first record: its head row at the genesis, then locked with lockHead.
    createHead: namedStatement(
      ACCOUNT_ONLY,
      ($) => `
      INSERT INTO ${s}.audit_heads (account_id, sequence, hash, previous_hash, start_sequence, start_hash)
      VALUES (${$.accountId}, 0, '${GENESIS_HASH}', '${GENESIS_HASH}', 0, '${GENESIS_HASH}')
      ON CONFLICT (account_id) DO NOTHING`,
    ),
    // One page and what vouches for it (core/audit-page.ts, AuditListing), in one
    // statement, so one snapshot: the head row, the page (inside the chain's ends, by the
    // primary key from a bound, so its cost grows neither with other accounts' records nor
    // with the page's depth), the record at the head and the one after the start (one
    // probe each), the newest prune record (one probe of its partial index) and the first
    // row outside the ends (two probes). Rows come tagged by `part`.
    list: namedStatement(
      LIST_INPUTS,
      ($) => `
      WITH h AS (
        SELECT sequence, hash, start_sequence, start_hash FROM ${s}.audit_heads WHERE account_id = ${$.accountId}
      ), page AS (
        SELECT ${recordColumns('r')} FROM ${s}.audit_records r, h
        WHERE r.account_id = ${$.accountId} AND r.sequence > h.start_sequence AND r.sequence <= h.sequence
          AND r.sequence < coalesce(${$.after}, 9223372036854775807)
          AND ${filters($)}
        ORDER BY r.sequence DESC LIMIT ${$.limit}
      )
      SELECT 'page' AS part, ${AUDIT_COLUMNS}, ${NO_HEAD} FROM page
      UNION ALL
      SELECT 'head', ${recordColumns('r')}, ${NO_HEAD} FROM ${s}.audit_records r, h WHERE r.account_id = ${$.accountId} AND r.sequence = h.sequence
      UNION ALL
      SELECT 'first', ${recordColumns('r')}, ${NO_HEAD} FROM ${s}.audit_records r, h
      WHERE r.account_id = ${$.accountId} AND r.sequence = h.start_sequence + 1
      UNION ALL (
        SELECT 'pruned', ${recordColumns('r')}, ${NO_HEAD} FROM ${s}.audit_records r, h
        WHERE r.account_id = ${$.accountId} AND r.action = 'audit.pruned' AND r.sequence > h.start_sequence AND r.sequence <= h.sequence
          AND (h.start_sequence <> 0 OR h.start_hash <> '${GENESIS_HASH}')
        ORDER BY r.sequence DESC LIMIT 1
      )
      UNION ALL
      SELECT 'ends', ${NO_RECORD}, h.sequence, h.hash, h.start_sequence, h.start_hash,
        CASE WHEN h.sequence IS NULL THEN (SELECT min(sequence) FROM ${s}.audit_records WHERE account_id = ${$.accountId})
        ELSE coalesce(
          (SELECT min(sequence) FROM ${s}.audit_records WHERE account_id = ${$.accountId} AND sequence <= h.start_sequence),
          (SELECT min(sequence) FROM ${s}.audit_records WHERE account_id = ${$.accountId} AND sequence > h.sequence)
        ) END
      FROM (SELECT 1) AS one LEFT JOIN h ON true`,
    ),
    // Every row of an account from a sequence on (inclusive): what verification walks.
    // `ctid` orders rows that repeat a sequence (only possible once the primary key was
    // dropped) the same on every page.
    records: namedStatement(
      RECORDS_INPUTS,
      ($) => `
      SELECT ${AUDIT_COLUMNS} FROM ${s}.audit_records
      WHERE account_id = ${$.accountId} AND sequence >= coalesce(${$.from}, -9223372036854775808)
      ORDER BY sequence, ctid LIMIT ${$.limit}`,
    ),
    ends: namedStatement(
      ACCOUNT_ONLY,
      ($) => `SELECT sequence, hash, start_sequence, start_hash FROM ${s}.audit_heads WHERE account_id = ${$.accountId}`,
    ),
    // Per account: the newest record older than the cut-off; everything kept up to it goes.
    pruneCandidates: namedStatement(
      { before: sqlType.bigint },
      ($) => `
      SELECT account_id, max(sequence) AS through FROM ${s}.audit_records WHERE at < ${$.before} GROUP BY account_id`,
    ),
    // Under the head's lock (lockHead): deletes the kept records up to `through` (never the rows
    // at or below the start: a stray stays for verification to see) and moves the start to
    // the last one deleted; answers how many went, that record, and the start before.
    pruneThrough: namedStatement(
      PRUNE_INPUTS,
      ($) => `
      WITH prior AS (
        SELECT start_sequence, start_hash FROM ${s}.audit_heads WHERE account_id = ${$.accountId}
      ), gone AS (
        DELETE FROM ${s}.audit_records r USING prior
        WHERE r.account_id = ${$.accountId} AND r.sequence > prior.start_sequence AND r.sequence <= ${$.through}
        RETURNING r.sequence, r.hash
      ), last AS (
        SELECT sequence, hash FROM gone ORDER BY sequence DESC LIMIT 1
      ), moved AS (
        UPDATE ${s}.audit_heads h SET start_sequence = last.sequence, start_hash = last.hash
        FROM last WHERE h.account_id = ${$.accountId}
        RETURNING 1
      )
      SELECT (SELECT count(*) FROM gone) AS removed, last.sequence AS through, last.hash AS through_hash,
        prior.start_sequence, prior.start_hash, (SELECT count(*) FROM moved) AS moved
      FROM prior LEFT JOIN last ON true`,
    ),
  }
}
