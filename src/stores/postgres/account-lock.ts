import type { Queryable } from './database-interface'
import { namedStatement, sqlType } from './named-statement'

/** The account whose row a write locks. */
const ACCOUNT = { accountId: sqlType.text } as const

/**
 * The row lock on an account that a write takes before it counts the account's rows
 * against a cap (a passcode's create, a webhook endpoint's) or replaces its policy:
 * writes of one account under it take turns. The row is made when missing, in the same
 * statement (`ensureAndLock`, one round trip):
 * - the row was there: `locked` locks it (waiting for the write that holds it);
 * - it was not: `made` inserts it, and the uncommitted row is this write's alone: a
 *   concurrent insert of the same account waits for it on the primary key;
 * - a concurrent write made it while this statement started: `made` waited for that
 *   write and inserted nothing, and the new row is not in this statement's snapshot, so
 *   `locked` found nothing either (`held` is 0): `lock` then locks it in a statement
 *   of its own, whose snapshot has it. That happens only while an account's first
 *   writes race.
 * The statement that counts comes after it: in READ COMMITTED a statement's snapshot is
 * taken when it starts, so a count in the statement that waited for the lock would miss
 * what the writes before it committed.
 *
 * @example
 * ```ts
 * const holdAccount = accountLock('passcode_auth')
 * await database.transaction(async (tx) => {
 *   await holdAccount(tx, 'acc_1')
 *   // count, then insert: no concurrent create of acc_1 runs in between
 * })
 * ```
 */
export function accountLock(s: string): (tx: Queryable, accountId: string) => Promise<void> {
  const ensureAndLock = namedStatement(
    ACCOUNT,
    ($) => `
      WITH made AS (
        INSERT INTO ${s}.accounts (account_id) VALUES (${$.accountId}) ON CONFLICT (account_id) DO NOTHING RETURNING account_id
      ), locked AS (
        SELECT account_id FROM ${s}.accounts WHERE account_id = ${$.accountId} FOR UPDATE
      )
      SELECT (SELECT count(*) FROM made) + (SELECT count(*) FROM locked) AS held`,
  )
  const lock = namedStatement(ACCOUNT, ($) => `SELECT account_id FROM ${s}.accounts WHERE account_id = ${$.accountId} FOR UPDATE`)
  return async (tx, accountId) => {
    const run = tx.prepared ?? tx.query
    const [row] = await run(ensureAndLock.text, ensureAndLock.values({ accountId }))
    if (Number(row?.held) === 0) await run(lock.text, lock.values({ accountId }))
  }
}
