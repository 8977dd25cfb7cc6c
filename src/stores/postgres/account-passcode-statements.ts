/** The statements of account passcodes: the changes the audited writes compose (audit-statements.ts) and the reads. */
import { namedStatement, orNull, sqlType, type Placeholders } from './named-statement'
import {
  ACCOUNT_COLUMNS,
  ACCOUNT_INSERT,
  columnsOf,
  type EditInputs,
  INSERT_ACCOUNT_INPUTS,
  PATCH_COLUMNS,
  patchFields,
  valuesOf,
} from './statement-columns'

/**
 * An account passcode's patch, the SET of `UPDATE account_passcodes AS p`, from the
 * placeholders of {@link EDIT_INPUTS}: an edit with or without its audit record.
 */
export const accountPatch = ($: Placeholders<EditInputs>): string =>
  [
    ...patchFields.map((field) => {
      const { column } = PATCH_COLUMNS[field]
      return `${column} = CASE WHEN ${$[`${field}Given`]} THEN ${$[field]} ELSE p.${column} END`
    }),
    `updated_at = ${$.updatedAt}`,
  ].join(',\n        ')

/**
 * The CTE that closes an account passcode's open leak mark (SPEC §5.42) when the edit
 * of the `from` CTE (which returns `account_id` and `id`) enables it: an admin acted.
 * Part of the edit's statement, with or without its record.
 */
export const closeLeakOnEnable = (s: string, from: string, $: Placeholders<EditInputs>): string => `leak_closed AS (
        UPDATE ${s}.leak_marks m SET open = false FROM ${from} c
        WHERE m.account_id = c.account_id AND m.kind = 'account' AND m.key = c.id AND m.open AND ${$.disabledAtGiven} AND ${$.disabledAt} IS NULL
        RETURNING 1
      )`

/** The inputs of an account passcode's rotation ({@link rotateChange}), as `rotateAccountPasscode`'s arguments. */
export const ROTATE_INPUTS = {
  accountId: sqlType.text,
  passcodeId: sqlType.text,
  hash: sqlType.text,
  hint: sqlType.text,
  previousHashEndsAt: orNull(sqlType.bigint),
  updatedAt: sqlType.bigint,
  pepperId: orNull(sqlType.text),
} as const

/**
 * An account passcode's rotation as CTEs (the placeholders of {@link ROTATE_INPUTS}),
 * with or without its audit record: `prior`
 * locks the row and reads the overlap end the rotation replaces, so a concurrent
 * rotation is waited for, never read before it, and whether its value leaked (an open
 * leak mark, or `value_leaked`: reported, then enabled); `changed` rotates it (in SET,
 * `hash` is the value before the update: the current hash becomes the previous one,
 * unless it leaked: a leaked value gets no overlap, SPEC §5.45; the new value is not
 * leaked) and returns the row with that end (`prior_ends`, for its record); `closed`
 * closes its open leak mark (SPEC §5.42).
 */
export const rotateChange = (s: string, $: Placeholders<typeof ROTATE_INPUTS>): string => `prior AS (
        SELECT previous_hash_ends_at AS prior_ends,
          EXISTS (
            SELECT 1 FROM ${s}.leak_marks m WHERE m.account_id = ${$.accountId} AND m.kind = 'account' AND m.key = ${$.passcodeId} AND m.open
          ) OR value_leaked AS leaked
        FROM ${s}.account_passcodes
        WHERE account_id = ${$.accountId} AND id = ${$.passcodeId}
        FOR NO KEY UPDATE
      ), changed AS (
        UPDATE ${s}.account_passcodes SET
          previous_hash = CASE WHEN ${$.previousHashEndsAt} IS NULL OR prior.leaked THEN NULL ELSE hash END,
          previous_hash_ends_at = CASE WHEN prior.leaked THEN NULL ELSE ${$.previousHashEndsAt} END,
          previous_pepper_id = CASE WHEN ${$.previousHashEndsAt} IS NULL OR prior.leaked THEN NULL ELSE pepper_id END,
          hash = ${$.hash},
          hint = ${$.hint},
          updated_at = ${$.updatedAt},
          pepper_id = ${$.pepperId},
          value_leaked = false
        FROM prior
        WHERE account_id = ${$.accountId} AND id = ${$.passcodeId}
        RETURNING ${ACCOUNT_COLUMNS}, prior.prior_ends
      ), closed AS (
        UPDATE ${s}.leak_marks m SET open = false FROM changed c
        WHERE m.account_id = c.account_id AND m.kind = 'account' AND m.key = c.id AND m.open
        RETURNING 1
      )`

/** The inputs of an account passcode's delete ({@link deleteAccountPasscodeChange}). */
export const DELETE_INPUTS = { accountId: sqlType.text, passcodeId: sqlType.text } as const

/**
 * An account passcode's delete as CTEs (the placeholders of {@link DELETE_INPUTS}):
 * `changed` deletes it and returns the row, `closed` closes its open leak mark (SPEC §5.42).
 */
export const deleteAccountPasscodeChange = (s: string, $: Placeholders<typeof DELETE_INPUTS>): string => `changed AS (
        DELETE FROM ${s}.account_passcodes WHERE account_id = ${$.accountId} AND id = ${$.passcodeId} RETURNING ${ACCOUNT_COLUMNS}
      ), closed AS (
        UPDATE ${s}.leak_marks m SET open = false FROM changed c
        WHERE m.account_id = c.account_id AND m.kind = 'account' AND m.key = c.id AND m.open
        RETURNING 1
      )`

/** A create's inputs: the passcode's ({@link INSERT_ACCOUNT_INPUTS}) and the account's cap. */
export const CREATE_ACCOUNT_INPUTS = { ...INSERT_ACCOUNT_INPUTS, maxPerAccount: sqlType.integer } as const

/**
 * An account passcode's create as CTEs (the placeholders of {@link CREATE_ACCOUNT_INPUTS}):
 * `counts` reads the account's passcodes (`total`) and those of the same name key
 * (`same_name`); `changed` inserts the row only when no passcode has its name and the
 * account is below its cap, returning the row. Exact only under the account's row lock
 * taken by an earlier statement (account-lock.ts): a statement's snapshot is taken when
 * it starts, so a count in the statement that waited for the lock would miss the
 * creates committed while it waited.
 */
export const createAccountPasscodeChange = (s: string, $: Placeholders<typeof CREATE_ACCOUNT_INPUTS>): string => `counts AS (
      SELECT count(*) AS total, count(*) FILTER (WHERE name_key = ${$.nameKey}) AS same_name
      FROM ${s}.account_passcodes WHERE account_id = ${$.accountId}
      ), changed AS (
      INSERT INTO ${s}.account_passcodes (${columnsOf(ACCOUNT_INSERT)})
      SELECT ${valuesOf(ACCOUNT_INSERT, $)} FROM counts
      WHERE counts.same_name = 0 AND counts.total < ${$.maxPerAccount}
      RETURNING ${ACCOUNT_COLUMNS}
      )`

/**
 * The inputs of a re-hash of a passcode, account's or user's (`id`: the passcode's or
 * the user's), as `rehashCredential` names them: it writes `toHash` under `pepperId`
 * only while the row still holds `fromHash`.
 */
export const REHASH_INPUTS = {
  accountId: sqlType.text,
  id: sqlType.text,
  fromHash: sqlType.text,
  toHash: sqlType.text,
  pepperId: sqlType.text,
} as const

/** The account passcodes' reads and rehash, for one schema (see `statements`). */
export const accountPasscodeStatements = (s: string) => ({
  getAccountPasscode: namedStatement(
    DELETE_INPUTS,
    ($) => `SELECT ${ACCOUNT_COLUMNS} FROM ${s}.account_passcodes WHERE account_id = ${$.accountId} AND id = ${$.passcodeId}`,
  ),
  listAccountPasscodes: namedStatement(
    { accountId: sqlType.text },
    ($) => `
      SELECT ${ACCOUNT_COLUMNS} FROM ${s}.account_passcodes WHERE account_id = ${$.accountId} ORDER BY created_at, id COLLATE "C"`,
  ),

  // SPEC §5.28: only while the hash is still the one that matched.
  rehashAccountPasscode: namedStatement(
    REHASH_INPUTS,
    ($) => `
      UPDATE ${s}.account_passcodes SET hash = ${$.toHash}, pepper_id = ${$.pepperId}
      WHERE account_id = ${$.accountId} AND id = ${$.id} AND hash = ${$.fromHash} RETURNING 1 AS written`,
  ),
})
