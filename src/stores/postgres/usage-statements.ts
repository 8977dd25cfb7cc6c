/** The statements of usage: the last use of each passcode and the counts per day (SPEC §5.41). */

/** The usage statements, for one schema (see `statements`). */
export const usageStatements = (s: string) => ({
  // One statement for a whole batch, over both tables; a row is written only when the
  // batch's instant is later than the stored one, and a deleted passcode matches no row.
  recordUsage: `
      WITH entries AS (
        SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::text[]) AS e(kind, account_id, key, at, partner)
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
  // Usage over time (SPEC §5.41), apart from recordUsage: one statement adds a whole
  // batch to the stored counts, so the counts of many instances add up. Rows come
  // sorted by key, so two instances' flushes lock shared rows in the same order.
  recordUsageCounts: `
      INSERT INTO ${s}.usage_days AS u (account_id, kind, key, day, partner, outcome, n)
      SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::date[], $5::text[], $6::text[], $7::bigint[])
      ON CONFLICT (account_id, kind, key, day, partner, outcome) DO UPDATE SET n = u.n + excluded.n`,
  listUsageCounts: `
      SELECT to_char(day, 'YYYY-MM-DD') AS day, partner, outcome, n FROM ${s}.usage_days
      WHERE account_id = $1::text AND kind = $2::text AND key = $3::text AND day >= $4::date
      ORDER BY day, partner COLLATE "C", outcome COLLATE "C"`,
  // Bounded: at most $2 rows per statement, found by the day index.
  pruneUsageCounts: `
      WITH gone AS (
        DELETE FROM ${s}.usage_days WHERE ctid IN (SELECT ctid FROM ${s}.usage_days WHERE day < $1::date LIMIT $2::integer)
        RETURNING 1
      )
      SELECT count(*) AS deleted FROM gone`,
})
