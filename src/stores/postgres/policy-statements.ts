import type { AccountPolicy } from '../../core/policy'
import type { PolicyNoticeClaim } from '../../ports/account-policy-part'
import type { Row } from './database-interface'
import { claimDue } from './claim-statement'
import { namedStatement, orNull, sqlType } from './named-statement'

const POLICY_COLUMNS = 'max_lifetime_days, require_expiry, require_description'
const NOTICE_COLUMNS = `account_id, ${POLICY_COLUMNS}, count, set_at, notified_at`

const ACCOUNT_INPUT = { accountId: sqlType.text }
/** A policy's fields, as {@link AccountPolicy} names them. */
const POLICY_INPUTS = {
  ...ACCOUNT_INPUT,
  maxLifetimeDays: orNull(sqlType.integer),
  requireExpiry: sqlType.boolean,
  requireDescription: sqlType.boolean,
}
/** An account's email claim. */
const NOTICE_INPUTS = { ...ACCOUNT_INPUT, token: sqlType.text }

/**
 * The statements of accounts' policies and their emails (SPEC §5.52; migration 14's
 * `account_policies` and `policy_notices`).
 */
export function policyStatements(s: string) {
  return {
    getPolicy: namedStatement(ACCOUNT_INPUT, ($) => `SELECT ${POLICY_COLUMNS} FROM ${s}.account_policies WHERE account_id = ${$.accountId}`),
    // The policy as the change found it, under the account's row lock (account-lock.ts).
    priorPolicy: namedStatement(
      ACCOUNT_INPUT,
      ($) => `SELECT ${POLICY_COLUMNS} FROM ${s}.account_policies WHERE account_id = ${$.accountId} FOR UPDATE`,
    ),
    putPolicy: namedStatement(
      POLICY_INPUTS,
      ($) => `
      INSERT INTO ${s}.account_policies (account_id, ${POLICY_COLUMNS})
      VALUES (${$.accountId}, ${$.maxLifetimeDays}, ${$.requireExpiry}, ${$.requireDescription})
      ON CONFLICT (account_id) DO UPDATE SET
        max_lifetime_days = EXCLUDED.max_lifetime_days, require_expiry = EXCLUDED.require_expiry,
        require_description = EXCLUDED.require_description`,
    ),
    deletePolicy: namedStatement(ACCOUNT_INPUT, ($) => `DELETE FROM ${s}.account_policies WHERE account_id = ${$.accountId}`),
    // A newer change replaces the account's email, sent or not.
    putNotice: namedStatement(
      { ...POLICY_INPUTS, count: sqlType.integer, setAt: sqlType.bigint, token: sqlType.text, claimedUntil: sqlType.bigint },
      ($) => `
      INSERT INTO ${s}.policy_notices (${NOTICE_COLUMNS}, token, claimed_until)
      VALUES (${$.accountId}, ${$.maxLifetimeDays}, ${$.requireExpiry}, ${$.requireDescription}, ${$.count}, ${$.setAt}, NULL,
        ${$.token}, ${$.claimedUntil})
      ON CONFLICT (account_id) DO UPDATE SET
        max_lifetime_days = EXCLUDED.max_lifetime_days, require_expiry = EXCLUDED.require_expiry,
        require_description = EXCLUDED.require_description, count = EXCLUDED.count, set_at = EXCLUDED.set_at,
        notified_at = NULL, token = EXCLUDED.token, claimed_until = EXCLUDED.claimed_until`,
    ),
    // Without a new email, one not sent yet is dropped: it counted against a policy no longer set.
    dropUnsentNotice: namedStatement(
      ACCOUNT_INPUT,
      ($) => `DELETE FROM ${s}.policy_notices WHERE account_id = ${$.accountId} AND notified_at IS NULL`,
    ),
    claimNotices: claimDue({
      table: `${s}.policy_notices`,
      key: 'account_id',
      due: 'notified_at IS NULL',
      orderBy: 'set_at, account_id',
      returning: NOTICE_COLUMNS.replace(/(^|, )/g, '$1n.'),
    }),
    completeNotice: namedStatement(
      { ...NOTICE_INPUTS, sentAt: sqlType.bigint },
      ($) => `
      UPDATE ${s}.policy_notices SET notified_at = ${$.sentAt}, token = NULL
      WHERE account_id = ${$.accountId} AND token = ${$.token} AND notified_at IS NULL
      RETURNING account_id`,
    ),
    releaseNotice: namedStatement(
      NOTICE_INPUTS,
      ($) => `
      UPDATE ${s}.policy_notices SET token = NULL, claimed_until = 0
      WHERE account_id = ${$.accountId} AND token = ${$.token} AND notified_at IS NULL`,
    ),
  }
}

/** A row of `account_policies` (or `policy_notices`) as its policy. */
export function toPolicy(row: Row): AccountPolicy {
  return {
    maxLifetimeDays: row.max_lifetime_days === null ? null : Number(row.max_lifetime_days),
    requireExpiry: row.require_expiry === true,
    requireDescription: row.require_description === true,
  }
}

/** A claimed row of `policy_notices` as its claim. */
export function toPolicyNoticeClaim(row: Row, token: string): PolicyNoticeClaim {
  return {
    accountId: String(row.account_id),
    policy: toPolicy(row),
    count: Number(row.count),
    setAt: Number(row.set_at),
    notifiedAt: row.notified_at === null ? null : Number(row.notified_at),
    token,
  }
}
