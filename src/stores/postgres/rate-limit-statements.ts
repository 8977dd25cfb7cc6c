import { namedStatement, sqlType } from './named-statement'

/**
 * The SQL of the fleet-wide limiter, for one schema. `recordFailures` takes one batch
 * as parallel arrays (keys, instants, limits, windows), the flush's `now` and the
 * channel; it keeps per key the newest `limit` instants inside the window,
 * returns each key with the instant it stops being limited (NULL when it is not), and
 * announces every limited key on the channel in the same statement.
 */
export function rateLimitStatements(schema: string) {
  const table = `${schema}.rate_limit_failures`
  return {
    recordFailures: namedStatement(
      {
        keys: sqlType.textArray,
        instants: sqlType.bigintArray,
        limits: sqlType.integerArray,
        windows: sqlType.bigintArray,
        now: sqlType.bigint,
        channel: sqlType.text,
      },
      ($) => `
      WITH batch AS (
        SELECT b.key, array_agg(b.at ORDER BY b.at) AS ats, max(b.lim) AS lim, max(b.win) AS win
        FROM unnest(${$.keys}, ${$.instants}, ${$.limits}, ${$.windows}) AS b(key, at, lim, win)
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
              WHERE t > ${$.now} - excluded.window_ms
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
        CASE WHEN until > ${$.now}
          THEN pg_notify(${$.channel}, jsonb_build_object('type', 'rate_limited', 'key', key, 'until', until)::text) END AS announced
      FROM limited`,
    ),
    // At most `limit` rows whose window passed, found through the expires_at index: the
    // cost follows the rows removed, and each statement holds few row locks.
    deleteExpired: namedStatement(
      { now: sqlType.bigint, limit: sqlType.integer },
      ($) => `
      WITH gone AS (
        DELETE FROM ${table} WHERE key IN (
          SELECT key FROM ${table} WHERE expires_at <= ${$.now} ORDER BY expires_at LIMIT ${$.limit} FOR UPDATE SKIP LOCKED
        )
        RETURNING 1
      )
      SELECT count(*)::integer AS deleted FROM gone`,
    ),
    /** The instant `key` stops being limited at `now` under `limit` and `windowMs` (NULL when it is not): the shared count, read. */
    limitedUntil: namedStatement(
      { key: sqlType.text, limit: sqlType.integer, windowMs: sqlType.bigint, now: sqlType.bigint },
      ($) => `
      SELECT CASE WHEN cardinality(kept) >= ${$.limit} THEN kept[cardinality(kept) - ${$.limit} + 1] + ${$.windowMs} END::float8 AS until
      FROM (
        SELECT ARRAY(SELECT t FROM unnest(instants) AS t WHERE t > ${$.now} - ${$.windowMs} ORDER BY t) AS kept
        FROM ${table} WHERE key = ${$.key}
      ) AS k`,
    ),
  }
}
