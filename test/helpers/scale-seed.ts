import type { Database, Queryable } from '../../src/stores/postgres/database-interface'

/**
 * Set-based seeding of a migrated schema with many passcodes, as years of use leave
 * them, for the scale test (test/stores/scale-postgres.test.ts) and `npm run bench:scale`.
 * Rows `from` to `to` (exclusive) of one sequence, so a table grows tier by tier by
 * calling it again with the next range. Account passcode `i` belongs to account
 * `acc_<i / 100>` (every account at the cap of 100); by `i % 100`:
 *
 * - 0–9: `forever`;
 * - 10–59: expired 1 to 700 days before `now`, both emails sent;
 * - 60–89: active, expiring 60 to 3 650 days after `now`, no email yet;
 * - 90–99: expiring soon, 22 to 30 days after `now`, its "expiring soon" email sent.
 *
 * None is due at `now`, nor in the 20 days after it: what a measurement makes due is
 * all that is due. One user passcode per 10 account passcodes (half of them expired),
 * one limiter row per 10 (none past its window). Hashes are md5-based, never values.
 */
export interface ScaleSeed {
  readonly schema: string
  readonly from: number
  readonly to: number
  /** UTC milliseconds the statuses are relative to. */
  readonly now: number
  /** A schema before version 6: the emails sent are in the notifications table only. */
  readonly beforeVersion6?: boolean
}

const DAY = '86400000::bigint'

/** The statements that seed one range, in order (each set-based, one round trip). */
export function scaleSeedStatements({ schema: s, from, to, now, beforeVersion6 = false }: ScaleSeed): { text: string; params: unknown[] }[] {
  const last = to - 1
  const accountRows = `
    SELECT i, i % 100 AS g,
      CASE
        WHEN i % 100 < 10 THEN NULL
        WHEN i % 100 < 60 THEN $3::bigint - (1 + (i * 7919) % 700)::bigint * ${DAY}
        WHEN i % 100 < 90 THEN $3::bigint + (60 + (i * 7919) % 3591)::bigint * ${DAY}
        ELSE $3::bigint + (22 + (i * 7919) % 9)::bigint * ${DAY}
      END AS expires_at
    FROM generate_series($1::bigint, $2::bigint) AS i`
  return [
    {
      text: `INSERT INTO ${s}.accounts (account_id)
        SELECT DISTINCT 'acc_' || (i / 100) FROM generate_series($1::bigint, $2::bigint) AS i
        ON CONFLICT (account_id) DO NOTHING`,
      params: [from, last],
    },
    {
      text: `INSERT INTO ${s}.account_passcodes
          (id, account_id, name, name_key, hash, hint, expiry_days, created_at, updated_at, expires_at, pepper_id,
           last_used_at${beforeVersion6 ? '' : ', soon_sent_for, expired_sent_for'})
        SELECT 'pc_' || lpad(i::text, 10, '0'), 'acc_' || (i / 100), 'Passcode ' || i, 'passcode ' || i,
          md5('a' || i) || md5('A' || i), '…' || substr(md5('a' || i), 1, 4),
          CASE WHEN expires_at IS NULL THEN NULL ELSE 365 END,
          coalesce(expires_at - 365 * ${DAY}, $3::bigint - 800 * ${DAY}), coalesce(expires_at - 365 * ${DAY}, $3::bigint - 800 * ${DAY}),
          expires_at, CASE WHEN i % 10 = 0 THEN 'p0' ELSE 'p1' END,
          CASE WHEN i % 3 = 0 THEN NULL ELSE $3::bigint - (i % 1000) * 60000 END
          ${beforeVersion6 ? '' : ', CASE WHEN g >= 10 AND g < 60 OR g >= 90 THEN expires_at END, CASE WHEN g >= 10 AND g < 60 THEN expires_at END'}
        FROM (${accountRows}) AS r`,
      params: [from, last, now],
    },
    {
      text: `INSERT INTO ${s}.notifications (passcode_id, kind, expires_at, token, claimed_until, sent_at)
        SELECT 'pc_' || lpad(i::text, 10, '0'), k.kind, expires_at, NULL, 0, expires_at - 30 * ${DAY}
        FROM (${accountRows}) AS r
        CROSS JOIN (VALUES ('expiring_soon'), ('expired')) AS k(kind)
        WHERE (g >= 10 AND g < 60) OR (g >= 90 AND k.kind = 'expiring_soon')`,
      params: [from, last, now],
    },
    {
      text: `INSERT INTO ${s}.user_passcodes
          (account_id, user_id, hash, ciphertext, hint, validity_type, validity_days, granted_at, expires_at, pepper_id)
        SELECT 'acc_' || (i / 100), 'u_' || i, md5('u' || i) || md5('U' || i), 'seeded.not.a.real.jwe.' || i,
          '…' || substr(md5('u' || i), 1, 4), 'finite', 90,
          $3::bigint - (i % 180) * ${DAY}, $3::bigint + (90 - i % 180) * ${DAY}, 'p1'
        FROM generate_series($1::bigint, $2::bigint) AS i WHERE i % 10 = 0`,
      params: [from, last, now],
    },
    {
      text: `INSERT INTO ${s}.rate_limit_failures (key, instants, limit_count, window_ms, expires_at)
        SELECT 'seed:' || i, ARRAY[$3::bigint], 10, ${DAY}, $3::bigint + 30 * ${DAY}
        FROM generate_series($1::bigint, $2::bigint) AS i WHERE i % 10 = 0`,
      params: [from, last, now],
    },
  ]
}

/**
 * `database` without the store's statement deadline: a seed statement, an index build or
 * an ANALYZE of a large table is a fixture's bulk work, which may take longer than any
 * request's statement may on a slow machine (the deadline destroyed a seed's connection
 * on a CI machine).
 */
export function withoutDeadline(database: Database): Queryable {
  const unbounded = database.queryUnbounded
  return unbounded === undefined ? database : { query: unbounded }
}

/** Seeds rows `from` to `to` in chunks of `chunk` rows (short transactions), then ANALYZEs. */
export async function seedScale(database: Queryable, seed: ScaleSeed, chunk = 200_000): Promise<void> {
  for (let start = seed.from; start < seed.to; start += chunk) {
    const range = { ...seed, from: start, to: Math.min(seed.to, start + chunk) }
    for (const { text, params } of scaleSeedStatements(range)) await database.query(text, params)
  }
  for (const table of ['accounts', 'account_passcodes', 'notifications', 'user_passcodes', 'rate_limit_failures']) {
    await database.query(`ANALYZE ${seed.schema}.${table}`)
  }
}

/** The seeded account passcode id of row `i`. */
export const seededPasscodeId = (i: number): string => `pc_${String(i).padStart(10, '0')}`
