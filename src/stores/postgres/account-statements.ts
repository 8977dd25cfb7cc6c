/** The statements of accounts: their row, the accepted passcodes setting, the hashes per pepper. */
import { namedStatement, sqlType, type Placeholders } from './named-statement'

/** The inputs of a change of the account's accepted passcodes ({@link setAcceptedPasscodesChange}). */
export const SET_ACCEPTED_INPUTS = { accountId: sqlType.text, accepted: sqlType.text } as const

/**
 * A change of the account's accepted passcodes (the placeholders of
 * {@link SET_ACCEPTED_INPUTS}; its row exists: `ensureAccount` first) as CTEs, as
 * `setAcceptedPasscodes` makes it: `prior`
 * locks the row and reads the setting it replaces, `changed` sets it and returns
 * `prior_accepted` and `accepted_passcodes`.
 */
export const setAcceptedPasscodesChange = (s: string, $: Placeholders<typeof SET_ACCEPTED_INPUTS>): string => `prior AS (
        SELECT accepted_passcodes AS prior_accepted FROM ${s}.accounts WHERE account_id = ${$.accountId} FOR NO KEY UPDATE
      ), changed AS (
      UPDATE ${s}.accounts SET accepted_passcodes = ${$.accepted} FROM prior
      WHERE account_id = ${$.accountId}
      RETURNING prior.prior_accepted, accepted_passcodes
      )`

/** The account whose audit chain head a change locks when its other inputs do not name it (`…AndLock`, audit-statements.ts). */
export const ACCOUNT_INPUT = { accountId: sqlType.text } as const

/** The accounts' row and setting, and the count of hashes per pepper, for one schema (see `statements`). */
export const accountStatements = (s: string) => ({
  ensureAccount: namedStatement(
    ACCOUNT_INPUT,
    ($) => `INSERT INTO ${s}.accounts (account_id) VALUES (${$.accountId}) ON CONFLICT (account_id) DO NOTHING`,
  ),
  getAcceptedPasscodes: namedStatement(ACCOUNT_INPUT, ($) => `SELECT accepted_passcodes FROM ${s}.accounts WHERE account_id = ${$.accountId}`),

  // A rotation's previous hash counts under its own pepper while its overlap lasts
  // (`now` is before its end, SPEC §5.47), found through the previous hash's index (few rows have one).
  countHashesByPepper: namedStatement(
    { now: sqlType.bigint },
    ($) => `
      SELECT pepper_id, count(*)::integer AS hashes FROM (
        SELECT pepper_id FROM ${s}.account_passcodes
        UNION ALL
        SELECT previous_pepper_id FROM ${s}.account_passcodes WHERE previous_hash IS NOT NULL AND previous_hash_ends_at > ${$.now}
        UNION ALL
        SELECT pepper_id FROM ${s}.user_passcodes
      ) AS h GROUP BY pepper_id`,
  ),
})
