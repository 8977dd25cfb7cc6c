/** The statements of usage: the last use of each passcode and the counts per day (SPEC §5.41). */
import { namedStatement, sqlType } from './named-statement'

/** The inputs of `recordUsage`: one array per column, an entry per position (`keys`: the passcode's id or the user's). */
export const RECORD_USAGE_INPUTS = {
  kinds: sqlType.textArray,
  accountIds: sqlType.textArray,
  keys: sqlType.textArray,
  ats: sqlType.bigintArray,
  partners: sqlType.textOrNullArray,
} as const

/** The inputs of `recordUsageCounts`: one array per column of `usage_days`, a count per position. */
export const RECORD_USAGE_COUNTS_INPUTS = {
  accountIds: sqlType.textArray,
  kinds: sqlType.textArray,
  keys: sqlType.textArray,
  days: sqlType.dateArray,
  partners: sqlType.textArray,
  outcomes: sqlType.textArray,
  counts: sqlType.bigintArray,
} as const

/** The usage statements, for one schema (see `statements`). */
export const usageStatements = (s: string) => ({
  // One statement for a whole batch, over both tables; a row is written only when the
  // batch's instant is later than the stored one, and a deleted passcode matches no row.
  recordUsage: namedStatement(
    RECORD_USAGE_INPUTS,
    ($) => `
      WITH entries AS (
        SELECT * FROM unnest(${$.kinds}, ${$.accountIds}, ${$.keys}, ${$.ats}, ${$.partners}) AS e(kind, account_id, key, at, partner)
      ), accounts AS (
        UPDATE ${s}.account_passcodes p SET last_used_at = e.at, last_used_partner = e.partner
        FROM entries e
        WHERE e.kind = 'account' AND p.id = e.key AND p.account_id = e.account_id
          AND (p.last_used_at IS NULL OR p.last_used_at < e.at)
        RETURNING 1
      ), users AS (
        UPDATE ${s}.user_passcodes u SET last_used_at = e.at, last_used_partner = e.partner
        FROM entries e
        WHERE e.kind = 'user' AND u.account_id = e.account_id AND u.user_id = e.key
          AND (u.last_used_at IS NULL OR u.last_used_at < e.at)
        RETURNING 1
      )
      SELECT (SELECT count(*) FROM accounts) + (SELECT count(*) FROM users) AS written`,
  ),
  // Usage over time (SPEC §5.41), apart from recordUsage: one statement adds a whole
  // batch to the stored counts, so the counts of many instances add up. Rows come
  // sorted by key, so two instances' flushes lock shared rows in the same order.
  recordUsageCounts: namedStatement(
    RECORD_USAGE_COUNTS_INPUTS,
    ($) => `
      INSERT INTO ${s}.usage_days AS u (account_id, kind, key, day, partner, outcome, n)
      SELECT * FROM unnest(${$.accountIds}, ${$.kinds}, ${$.keys}, ${$.days}, ${$.partners}, ${$.outcomes}, ${$.counts})
      ON CONFLICT (account_id, kind, key, day, partner, outcome) DO UPDATE SET n = u.n + excluded.n`,
  ),
  listUsageCounts: namedStatement(
    { accountId: sqlType.text, kind: sqlType.text, key: sqlType.text, from: sqlType.date },
    ($) => `
      SELECT to_char(day, 'YYYY-MM-DD') AS day, partner, outcome, n FROM ${s}.usage_days
      WHERE account_id = ${$.accountId} AND kind = ${$.kind} AND key = ${$.key} AND day >= ${$.from}
      ORDER BY day, partner COLLATE "C", outcome COLLATE "C"`,
  ),
  // Bounded: at most `limit` rows per statement, found by the day index.
  pruneUsageCounts: namedStatement(
    { before: sqlType.date, limit: sqlType.integer },
    ($) => `
      WITH gone AS (
        DELETE FROM ${s}.usage_days WHERE ctid IN (SELECT ctid FROM ${s}.usage_days WHERE day < ${$.before} LIMIT ${$.limit})
        RETURNING 1
      )
      SELECT count(*) AS deleted FROM gone`,
  ),
})
