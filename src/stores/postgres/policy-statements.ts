import type { AccountPolicy } from '../../core/policy'
import type { PolicyNoticeClaim, PolicyNoticeRequest } from '../../ports/account-policy-part'
import type { Row } from './database-interface'

const POLICY_COLUMNS = 'max_lifetime_days, require_expiry, require_description'
const NOTICE_COLUMNS = `account_id, ${POLICY_COLUMNS}, count, set_at, notified_at`

/**
 * The statements of accounts' policies and their emails (SPEC §5.52; migration 14's
 * `account_policies` and `policy_notices`).
 */
export function policyStatements(s: string) {
  return {
    getPolicy: `SELECT ${POLICY_COLUMNS} FROM ${s}.account_policies WHERE account_id = $1::text`,
    // The policy as the change found it, under the account's row lock (account-lock.ts).
    priorPolicy: `SELECT ${POLICY_COLUMNS} FROM ${s}.account_policies WHERE account_id = $1::text FOR UPDATE`,
    putPolicy: `
      INSERT INTO ${s}.account_policies (account_id, ${POLICY_COLUMNS}) VALUES ($1::text, $2::integer, $3::boolean, $4::boolean)
      ON CONFLICT (account_id) DO UPDATE SET
        max_lifetime_days = EXCLUDED.max_lifetime_days, require_expiry = EXCLUDED.require_expiry,
        require_description = EXCLUDED.require_description`,
    deletePolicy: `DELETE FROM ${s}.account_policies WHERE account_id = $1::text`,
    // A newer change replaces the account's email, sent or not.
    putNotice: `
      INSERT INTO ${s}.policy_notices (${NOTICE_COLUMNS}, token, claimed_until)
      VALUES ($1::text, $2::integer, $3::boolean, $4::boolean, $5::integer, $6::bigint, NULL, $7::text, $8::bigint)
      ON CONFLICT (account_id) DO UPDATE SET
        max_lifetime_days = EXCLUDED.max_lifetime_days, require_expiry = EXCLUDED.require_expiry,
        require_description = EXCLUDED.require_description, count = EXCLUDED.count, set_at = EXCLUDED.set_at,
        notified_at = NULL, token = EXCLUDED.token, claimed_until = EXCLUDED.claimed_until`,
    // Without a new email, one not sent yet is dropped: it counted against a policy no longer set.
    dropUnsentNotice: `DELETE FROM ${s}.policy_notices WHERE account_id = $1::text AND notified_at IS NULL`,
    claimNotices: `
      WITH due AS (
        SELECT account_id FROM ${s}.policy_notices
        WHERE notified_at IS NULL AND claimed_until <= $1::bigint
        ORDER BY set_at, account_id
        LIMIT $2::integer
        FOR UPDATE SKIP LOCKED
      )
      UPDATE ${s}.policy_notices n SET token = $3::text, claimed_until = $1::bigint + $4::bigint
      FROM due WHERE n.account_id = due.account_id
      RETURNING ${NOTICE_COLUMNS.replace(/(^|, )/g, '$1n.')}`,
    completeNotice: `
      UPDATE ${s}.policy_notices SET notified_at = $3::bigint, token = NULL
      WHERE account_id = $1::text AND token = $2::text AND notified_at IS NULL
      RETURNING account_id`,
    releaseNotice: `
      UPDATE ${s}.policy_notices SET token = NULL, claimed_until = 0
      WHERE account_id = $1::text AND token = $2::text AND notified_at IS NULL`,
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

/** The parameters of `putPolicy` ($2–$4 of `putNotice`). */
export const policyParams = (policy: AccountPolicy): unknown[] => [policy.maxLifetimeDays, policy.requireExpiry, policy.requireDescription]

/** The parameters of `putNotice`. */
export const noticeParams = (accountId: string, notice: PolicyNoticeRequest): unknown[] => [
  accountId,
  ...policyParams(notice.policy),
  notice.count,
  notice.setAt,
  notice.token,
  notice.claimedUntil,
]

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
