/** The statements of user passcodes: the changes the audited writes compose (audit-statements.ts) and the reads. */
import { REHASH_INPUTS } from './account-passcode-statements'
import { namedStatement, orNull, sqlType, type Placeholders } from './named-statement'
import { columnsOf, type GRANT_USER_INPUTS, USER_COLUMNS, USER_INSERT, valuesOf } from './statement-columns'

/** A CTE that closes the open leak mark of the user passcode `changed` granted anew or reset (SPEC §5.42). */
const closeUserLeak = (s: string): string => `closed AS (
        UPDATE ${s}.leak_marks m SET open = false FROM changed c
        WHERE m.account_id = c.account_id AND m.kind = 'user' AND m.key = c.user_id AND m.open
        RETURNING 1
      )`

/**
 * A user passcode's first grant (the placeholders of {@link GRANT_USER_INPUTS}) as CTEs:
 * `changed` inserts it (no row when a concurrent grant inserted first), `closed` closes
 * the user's open leak mark (SPEC §5.42).
 */
export const insertUserPasscodeChange = (s: string, $: Placeholders<typeof GRANT_USER_INPUTS>): string => `changed AS (
      INSERT INTO ${s}.user_passcodes (${columnsOf(USER_INSERT)})
      VALUES (${valuesOf(USER_INSERT, $)})
      ON CONFLICT (account_id, user_id) DO NOTHING
      RETURNING ${USER_COLUMNS}
      ), ${closeUserLeak(s)}`

/** A grant that replaces a revoked or expired user passcode, as {@link insertUserPasscodeChange} (the same inputs). */
export const replaceUserPasscodeChange = (s: string, $: Placeholders<typeof GRANT_USER_INPUTS>): string => `changed AS (
      UPDATE ${s}.user_passcodes SET
        ${(Object.keys(USER_INSERT) as (keyof typeof USER_INSERT)[])
          .filter((name) => name !== 'accountId' && name !== 'userId')
          .map((name) => `${USER_INSERT[name].column} = ${$[name]}`)
          .join(', ')},
        last_used_at = NULL, last_used_partner = NULL
      WHERE account_id = ${$.accountId} AND user_id = ${$.userId}
      RETURNING ${USER_COLUMNS}
      ), ${closeUserLeak(s)}`

/** The inputs of a user passcode's revoke ({@link revokeUserPasscodeChange}). */
export const REVOKE_INPUTS = { accountId: sqlType.text, userId: sqlType.text, revokedAt: sqlType.bigint } as const

/** A user passcode's revoke as a CTE `changed` (the placeholders of {@link REVOKE_INPUTS}), returning the row; none when it was revoked already. */
export const revokeUserPasscodeChange = (s: string, $: Placeholders<typeof REVOKE_INPUTS>): string => `changed AS (
      UPDATE ${s}.user_passcodes SET revoked_at = ${$.revokedAt}
      WHERE account_id = ${$.accountId} AND user_id = ${$.userId} AND revoked_at IS NULL
      RETURNING ${USER_COLUMNS}
      )`

/** The inputs of a user passcode's reset ({@link resetUserPasscodeChange}): the user and the new value's fields. */
export const RESET_INPUTS = {
  accountId: sqlType.text,
  userId: sqlType.text,
  hash: sqlType.text,
  ciphertext: sqlType.text,
  hint: sqlType.text,
  grantedAt: sqlType.bigint,
  expiresAt: sqlType.bigint,
  pepperId: orNull(sqlType.text),
} as const

/**
 * A user passcode's reset (the placeholders of {@link RESET_INPUTS}) as CTEs:
 * `prior` locks the live row and reads the expiry the reset replaces (for its audit
 * record), `changed` resets it and returns the row with `prior_expires_at`, `closed`
 * closes the user's open leak mark (SPEC §5.42).
 */
export const resetUserPasscodeChange = (s: string, $: Placeholders<typeof RESET_INPUTS>): string => `prior AS (
        SELECT expires_at AS prior_expires_at FROM ${s}.user_passcodes
        WHERE account_id = ${$.accountId} AND user_id = ${$.userId} AND revoked_at IS NULL
        FOR NO KEY UPDATE
      ), changed AS (
      UPDATE ${s}.user_passcodes SET
        hash = ${$.hash}, ciphertext = ${$.ciphertext}, hint = ${$.hint}, granted_at = ${$.grantedAt}, expires_at = ${$.expiresAt},
        pepper_id = ${$.pepperId}
      FROM prior
      WHERE account_id = ${$.accountId} AND user_id = ${$.userId} AND revoked_at IS NULL
      RETURNING ${USER_COLUMNS}, prior.prior_expires_at
      ), ${closeUserLeak(s)}`

/** A user of an account: the input of a user passcode's reads and lock. */
const USER_INPUTS = { accountId: sqlType.text, userId: sqlType.text } as const

/** The user passcodes' reads, lock and rehash, for one schema (see `statements`). */
export const userPasscodeStatements = (s: string) => ({
  lockUserPasscode: namedStatement(
    USER_INPUTS,
    ($) => `
      SELECT revoked_at, expires_at FROM ${s}.user_passcodes WHERE account_id = ${$.accountId} AND user_id = ${$.userId} FOR UPDATE`,
  ),
  getUserPasscode: namedStatement(
    USER_INPUTS,
    ($) => `SELECT ${USER_COLUMNS} FROM ${s}.user_passcodes WHERE account_id = ${$.accountId} AND user_id = ${$.userId}`,
  ),
  listUserPasscodes: namedStatement(
    { accountId: sqlType.text },
    ($) => `
      SELECT ${USER_COLUMNS} FROM ${s}.user_passcodes WHERE account_id = ${$.accountId} ORDER BY user_id COLLATE "C"`,
  ),

  // As rehashAccountPasscode (`id` is the user's).
  rehashUserPasscode: namedStatement(
    REHASH_INPUTS,
    ($) => `
      UPDATE ${s}.user_passcodes SET hash = ${$.toHash}, pepper_id = ${$.pepperId}
      WHERE account_id = ${$.accountId} AND user_id = ${$.id} AND hash = ${$.fromHash} RETURNING 1 AS written`,
  ),
})
