import { namedStatement, sqlType } from './named-statement'

/**
 * The inputs of a claim of due emails or deliveries (named-statement.ts): the rows due
 * at `now`, at most `limit`, taken by `token` until `now + leaseMs`. The request a
 * runner hands the store has these fields, so a claim passes it as it is.
 */
export const CLAIM_INPUTS = { now: sqlType.bigint, limit: sqlType.integer, token: sqlType.text, leaseMs: sqlType.bigint } as const

/** Where {@link claimDue} finds the due rows of one table, and what it answers. */
export interface ClaimedRows {
  /** The schema-qualified table, aliased `n` in `returning`. */
  readonly table: string
  /** The column that names a row. */
  readonly key: string
  /** What makes a row due, besides its claim having run out. */
  readonly due: string
  /** The order the oldest come first in. */
  readonly orderBy: string
  /** The claim's token column. @default 'token' */
  readonly token?: string
  /** The column of when the claim runs out. @default 'claimed_until' */
  readonly claimedUntil?: string
  /** What the statement answers of each claimed row (`n.…`). */
  readonly returning: string
}

/**
 * A claim of at most `limit` due rows, oldest first: SKIP LOCKED splits them between
 * runners, and the claim runs out `leaseMs` after `now`, so a runner that dies leaves them
 * due again then.
 *
 * @example
 * ```ts
 * const claim = claimDue({ table: 's.credit_notices', key: 'id', due: 'notified_at IS NULL', orderBy: 'at, id', returning: 'n.id' })
 * await db.query(claim.text, claim.values({ now: Date.now(), limit: 10, token: 't', leaseMs: 60_000 }))
 * ```
 */
export function claimDue(rows: ClaimedRows) {
  const { table, key, due, orderBy, token = 'token', claimedUntil = 'claimed_until', returning } = rows
  return namedStatement(
    CLAIM_INPUTS,
    ($) => `
      WITH due AS (
        SELECT ${key} FROM ${table}
        WHERE ${due} AND ${claimedUntil} <= ${$.now}
        ORDER BY ${orderBy}
        LIMIT ${$.limit}
        FOR UPDATE SKIP LOCKED
      )
      UPDATE ${table} n SET ${token} = ${$.token}, ${claimedUntil} = ${$.now} + ${$.leaseMs}
      FROM due WHERE n.${key} = due.${key}
      RETURNING ${returning}`,
  )
}
