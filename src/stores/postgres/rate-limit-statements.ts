/**
 * The SQL of the fleet-wide limiter, for one schema. `recordFailures` takes one batch
 * as parallel arrays ($1 keys, $2 instants, $3 limits, $4 windows), $5 the flush's "now"
 * and $6 the channel; it keeps per key the newest `limit` instants inside the window,
 * returns each key with the instant it stops being limited (NULL when it is not), and
 * announces every limited key on the channel in the same statement.
 */
export function rateLimitStatements(schema: string) {
  const table = `${schema}.rate_limit_failures`
  return {
    recordFailures: `
      WITH batch AS (
        SELECT b.key, array_agg(b.at ORDER BY b.at) AS ats, max(b.lim) AS lim, max(b.win) AS win
        FROM unnest($1::text[], $2::bigint[], $3::integer[], $4::bigint[]) AS b(key, at, lim, win)
        GROUP BY b.key
      ), written AS (
        INSERT INTO ${table} AS f (key, instants, limit_count, window_ms, expires_at)
        SELECT key, ats[greatest(1, cardinality(ats) - lim + 1):cardinality(ats)], lim, win, ats[cardinality(ats)] + win
        FROM batch
        ON CONFLICT (key) DO UPDATE SET
          instants = (
            SELECT coalesce(array_agg(newest.t ORDER BY newest.t), '{}')
            FROM (
              SELECT t FROM unnest(f.instants || excluded.instants) AS t
              WHERE t > $5::bigint - excluded.window_ms
              ORDER BY t DESC LIMIT excluded.limit_count
            ) AS newest
          ),
          limit_count = excluded.limit_count,
          window_ms = excluded.window_ms,
          expires_at = greatest(f.expires_at, excluded.expires_at)
        RETURNING key, instants, limit_count, window_ms
      ), limited AS (
        SELECT key,
          CASE WHEN cardinality(instants) >= limit_count
            THEN instants[cardinality(instants) - limit_count + 1] + window_ms END AS until
        FROM written
      )
      SELECT key, until::float8 AS until,
        CASE WHEN until > $5::bigint
          THEN pg_notify($6::text, jsonb_build_object('type', 'rate_limited', 'key', key, 'until', until)::text) END AS announced
      FROM limited`,
    // At most $2 rows whose window passed, found through the expires_at index: the
    // cost follows the rows removed, and each statement holds few row locks.
    deleteExpired: `
      WITH gone AS (
        DELETE FROM ${table} WHERE key IN (
          SELECT key FROM ${table} WHERE expires_at <= $1::bigint ORDER BY expires_at LIMIT $2::integer FOR UPDATE SKIP LOCKED
        )
        RETURNING 1
      )
      SELECT count(*)::integer AS deleted FROM gone`,
    /** The instant key $1 stops being limited at $4 under limit $2 and window $3 (NULL when it is not): the shared count, read. */
    limitedUntil: `
      SELECT CASE WHEN cardinality(kept) >= $2::integer THEN kept[cardinality(kept) - $2::integer + 1] + $3::bigint END::float8 AS until
      FROM (
        SELECT ARRAY(SELECT t FROM unnest(instants) AS t WHERE t > $4::bigint - $3::bigint ORDER BY t) AS kept
        FROM ${table} WHERE key = $1::text
      ) AS k`,
  }
}
