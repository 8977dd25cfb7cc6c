/**
 * Each audited write of the PostgreSQL store without its record, as the store wrote it
 * before every write had one: the same change (the pieces of statements.ts its audited
 * statement is made of) and its NOTIFY, in one transaction of unnamed statements, no audit record. The
 * store has no such path any more (docs/upgrading.md); bench/audit-cost.ts times it as
 * "the write alone", next to the store's write with its record.
 */
import type pg from 'pg'
import type { AcceptedPasscodes } from '../src/core/entities'
import type { AccountPasscodeRecord, UserPasscodeRecord } from '../src/core/passcode-records'
import type { AccountPasscodePatch, LeakReport, NotificationClaim, PasscodeRotation } from '../src/ports/passcode-store'
import { accountLock } from '../src/stores/postgres/account-lock'
import { namedStatement, type NamedStatement } from '../src/stores/postgres/named-statement'
import { accountPasscodeInput, userPasscodeInput } from '../src/stores/postgres/rows'
import {
  accountPatch,
  closeLeakOnEnable,
  DELETE_INPUTS,
  deleteAccountPasscodeChange,
  CREATE_ACCOUNT_INPUTS,
  createAccountPasscodeChange,
  ROTATE_INPUTS,
  rotateChange,
} from '../src/stores/postgres/account-passcode-statements'
import { SET_ACCEPTED_INPUTS, setAcceptedPasscodesChange } from '../src/stores/postgres/account-statements'
import { LEAK_INPUTS, LEAK_RESULTS, leakChanges } from '../src/stores/postgres/leak-statements'
import { completeNotificationChange, NOTIFICATION_SENT_INPUTS } from '../src/stores/postgres/notification-statements'
import { ACCOUNT_COLUMNS, EDIT_INPUTS, editInput, GRANT_USER_INPUTS, USER_COLUMNS } from '../src/stores/postgres/statement-columns'
import { statements } from '../src/stores/postgres/statements'
import {
  insertUserPasscodeChange,
  replaceUserPasscodeChange,
  RESET_INPUTS,
  resetUserPasscodeChange,
  REVOKE_INPUTS,
  revokeUserPasscodeChange,
} from '../src/stores/postgres/user-passcode-statements'

const CHANNEL = 'bench_channel'

/** The writes of one schema without their record, over `pool`. */
export function writesAlone(pool: pg.Pool, schema: string) {
  const s = schema
  const sql = statements(s)
  const holdAccount = accountLock(s)
  // Sent unnamed, as the store sent them: parsed and planned on each call.
  const edit = namedStatement(
    EDIT_INPUTS,
    ($) => `
      WITH changed AS (
        UPDATE ${s}.account_passcodes AS p SET ${accountPatch($)}
        WHERE p.account_id = ${$.accountId} AND p.id = ${$.passcodeId}
        RETURNING ${ACCOUNT_COLUMNS}
      ), ${closeLeakOnEnable(s, 'changed', $)}
      SELECT ${ACCOUNT_COLUMNS} FROM changed`,
  )
  const rotate = namedStatement(ROTATE_INPUTS, ($) => `WITH ${rotateChange(s, $)} SELECT ${ACCOUNT_COLUMNS} FROM changed`)
  const insert = namedStatement(CREATE_ACCOUNT_INPUTS, ($) => `WITH ${createAccountPasscodeChange(s, $)} SELECT ${ACCOUNT_COLUMNS} FROM changed`)
  const remove = namedStatement(DELETE_INPUTS, ($) => `WITH ${deleteAccountPasscodeChange(s, $)} SELECT ${ACCOUNT_COLUMNS} FROM changed`)
  const grant = namedStatement(GRANT_USER_INPUTS, ($) => `WITH ${insertUserPasscodeChange(s, $)} SELECT ${USER_COLUMNS} FROM changed`)
  const regrant = namedStatement(GRANT_USER_INPUTS, ($) => `WITH ${replaceUserPasscodeChange(s, $)} SELECT ${USER_COLUMNS} FROM changed`)
  const reset = namedStatement(RESET_INPUTS, ($) => `WITH ${resetUserPasscodeChange(s, $)} SELECT ${USER_COLUMNS} FROM changed`)
  const revoke = namedStatement(REVOKE_INPUTS, ($) => `WITH ${revokeUserPasscodeChange(s, $)} SELECT ${USER_COLUMNS} FROM changed`)
  const accepted = namedStatement(SET_ACCEPTED_INPUTS, ($) => `WITH ${setAcceptedPasscodesChange(s, $)} SELECT prior_accepted FROM changed`)
  const sent = namedStatement(NOTIFICATION_SENT_INPUTS, ($) => `WITH ${completeNotificationChange(s, $)} SELECT passcode_id FROM sent`)
  const leak = namedStatement(LEAK_INPUTS, ($) => `WITH ${leakChanges(s).disable($)} SELECT ${LEAK_RESULTS.disable} FROM changed`)

  const run = async <T>(client: pg.PoolClient | pg.Pool, statement: NamedStatement<T>, input: T) =>
    (await client.query(statement.text, statement.values(input))).rows as Record<string, unknown>[]
  /** BEGIN, `body`, the NOTIFY of `invalidation` when given, COMMIT. */
  const transaction = async <T>(body: (client: pg.PoolClient) => Promise<T>, invalidation?: object): Promise<T> => {
    const client = await pool.connect()
    try {
      await client.query('BEGIN')
      const result = await body(client)
      if (invalidation !== undefined) await client.query('SELECT pg_notify($1::text, $2::text)', [CHANNEL, JSON.stringify(invalidation)])
      await client.query('COMMIT')
      return result
    } catch (error) {
      await client.query('ROLLBACK')
      throw error
    } finally {
      client.release()
    }
  }
  const account = (accountId: string, passcodeId: string) => ({ type: 'account_passcode', accountId, passcodeId })
  const user = (accountId: string, userId: string) => ({ type: 'user_passcode', accountId, userId })

  return {
    update: (accountId: string, passcodeId: string, patch: AccountPasscodePatch) =>
      transaction((client) => run(client, edit, editInput(accountId, passcodeId, patch)), account(accountId, passcodeId)),
    rotate: (accountId: string, passcodeId: string, rotation: PasscodeRotation) =>
      transaction(
        (client) => run(client, rotate, { accountId, passcodeId, ...rotation, pepperId: rotation.pepperId ?? null }),
        account(accountId, passcodeId),
      ),
    create: (record: AccountPasscodeRecord, maxPerAccount: number) =>
      transaction(async (client) => {
        await holdAccount({ query: async (text, values) => (await client.query(text, values as unknown[])).rows }, record.accountId)
        return { ok: (await run(client, insert, { ...accountPasscodeInput(record), maxPerAccount })).length > 0 }
      }),
    delete: (accountId: string, passcodeId: string) =>
      transaction((client) => run(client, remove, { accountId, passcodeId }), account(accountId, passcodeId)),
    grant: (record: UserPasscodeRecord) =>
      transaction(async (client) => {
        const { rows } = await client.query(
          sql.lockUserPasscode.text,
          sql.lockUserPasscode.values({ accountId: record.accountId, userId: record.userId }),
        )
        return { ok: (await run(client, rows.length === 0 ? grant : regrant, userPasscodeInput(record))).length > 0 }
      }),
    reset: (accountId: string, userId: string, fields: Pick<UserPasscodeRecord, 'hash' | 'ciphertext' | 'hint' | 'grantedAt' | 'expiresAt'>) =>
      transaction((client) => run(client, reset, { accountId, userId, ...fields, pepperId: null }), user(accountId, userId)),
    revoke: (accountId: string, userId: string, revokedAt: number) =>
      transaction((client) => run(client, revoke, { accountId, userId, revokedAt }), user(accountId, userId)),
    setAccepted: (accountId: string, value: AcceptedPasscodes) =>
      transaction(
        async (client) => {
          await client.query(sql.ensureAccount.text, sql.ensureAccount.values({ accountId }))
          return run(client, accepted, { accountId, accepted: value })
        },
        { type: 'account', accountId },
      ),
    // One statement, as the completion without a record was.
    completeNotification: async (claim: NotificationClaim, sentAt: number) =>
      (await run(pool, sent, { passcodeId: claim.passcodeId, kind: claim.kind, expiresAt: claim.expiresAt, token: claim.token, sentAt })).length > 0,
    reportLeak: (report: LeakReport) => {
      const { accountId, key, hash, id, at, url, source, token, claimedUntil } = report
      return transaction((client) => run(client, leak, { accountId, key, hash, id, at, url, source, token, claimedUntil }), account(accountId, key))
    },
  }
}
