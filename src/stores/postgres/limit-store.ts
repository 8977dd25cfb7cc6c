import type { CreditNoticeClaim, LimitsLease, LimitsPart } from '../../ports/limits-part'
import type { Database, Row } from './database-interface'
import type { PostgresAuditLog } from './postgres-audit-log'

/** The statements of limits and credits (SPEC §5.50) for one schema: the functions of limit-schema.ts, and the notices' claims. */
function limitStatements(s: string) {
  // A credential's balance as of $2 (core/limit-counters.ts, currentCredits): the counter's,
  // unless the setting is newer than it (its balance, or the refill amount once an interval
  // after it began) or a refill interval began since.
  const refill = `CASE WHEN jsonb_typeof(x.credits->'refill') = 'object' THEN x.credits->'refill' END`
  const periodAt = (at: string): string => `${s}.refill_period_start(${refill}->>'interval', ${at}, 0)`
  return {
    // One statement, atomic under the counter's row lock, no session state: PgBouncer's transaction mode takes it as it is.
    lease: `SELECT ${s}.lease_limits($1::text, $2::text, $3::text, $4::bigint, $5::bigint, $6::bigint, $7::float8, $8::text, $9::bigint, $10::text, $11::text) AS lease`,
    // Every return in one statement: credits only into the setting and interval they came
    // from, slots only into their window (a newer setting or a refill the next lease applies
    // replaces the balance whatever it holds).
    giveBack: `
      UPDATE ${s}.limit_counters c SET
        credit_balance = c.credit_balance + CASE WHEN c.credit_epoch = r.epoch AND c.credit_period = r.period THEN r.credits ELSE 0 END,
        window_used = CASE WHEN c.window_start = r.window_start AND c.window_ms = r.window_ms THEN greatest(0, c.window_used - r.slots) ELSE c.window_used END
      FROM jsonb_to_recordset($1::jsonb) AS r (kind text, account_id text, key text, credits bigint, epoch text, period bigint,
                                               slots bigint, window_start bigint, window_ms bigint)
      WHERE c.account_id = r.account_id AND c.kind = r.kind AND c.key = r.key`,
    balances: `
      SELECT x.kind, x.key,
             CASE
               WHEN c.credit_epoch IS DISTINCT FROM x.credits->>'epoch' THEN
                 CASE WHEN ${refill} IS NOT NULL AND ${periodAt('$2::bigint')} > ${periodAt("(x.credits->>'setAt')::bigint")}
                   THEN (${refill}->>'amount')::bigint ELSE (x.credits->>'remaining')::bigint END
               WHEN ${refill} IS NOT NULL AND ${periodAt('$2::bigint')} > c.credit_period THEN (${refill}->>'amount')::bigint
               ELSE c.credit_balance
             END AS balance
      FROM (
        SELECT 'account' AS kind, id AS key, credits FROM ${s}.account_passcodes WHERE account_id = $1::text AND credits IS NOT NULL
        UNION ALL
        SELECT 'user', user_id, credits FROM ${s}.user_passcodes WHERE account_id = $1::text AND credits IS NOT NULL
      ) AS x
      LEFT JOIN ${s}.limit_counters c ON c.account_id = $1::text AND c.kind = x.kind AND c.key = x.key`,
    claim: `
      WITH due AS (
        SELECT id FROM ${s}.credit_notices
        WHERE notified_at IS NULL AND claimed_until <= $1::bigint
        ORDER BY at, id
        LIMIT $2::integer
        FOR UPDATE SKIP LOCKED
      )
      UPDATE ${s}.credit_notices n SET token = $3::text, claimed_until = $1::bigint + $4::bigint
      FROM due WHERE n.id = due.id
      RETURNING n.id, n.account_id, n.kind, n.key, n.type, n.at, n.balance, n.full_amount, n.next_refill_at, n.name, n.hint`,
    complete: `
      UPDATE ${s}.credit_notices SET notified_at = $3::bigint, token = NULL
      WHERE id = $1::text AND token = $2::text AND notified_at IS NULL
      RETURNING id`,
    release: `
      UPDATE ${s}.credit_notices SET token = NULL, claimed_until = 0
      WHERE id = $1::text AND token = $2::text AND notified_at IS NULL`,
  }
}

const optionalNum = (value: unknown): number | null => (value === null || value === undefined ? null : Number(value))
// eslint-disable-next-line @typescript-eslint/no-base-to-string -- text columns of the driver's row
const optionalText = (value: unknown): string | null => (value === null || value === undefined ? null : String(value))

/** The lease function's answer (limit-schema.ts), as JSON text. */
interface LeaseAnswer {
  readonly credits: { readonly granted: number; readonly balance: number; readonly epoch: string; readonly period: number } | null
  readonly slots: { readonly granted: number; readonly windowStart: number; readonly windowMs: number } | null
  readonly notices: readonly { readonly id: string; readonly type: 'low' | 'exhausted' }[]
  readonly full: number | null
  readonly nextRefillAt: number | null
  readonly name: string | null
  readonly hint: string | null
}

/** A row of `credit_notices` as a claim of `token`. */
function toClaim(row: Row, token: string): CreditNoticeClaim {
  return {
    id: String(row.id),
    kind: row.kind === 'user' ? 'user' : 'account',
    accountId: String(row.account_id),
    key: String(row.key),
    type: row.type === 'exhausted' ? 'exhausted' : 'low',
    at: Number(row.at),
    balance: Number(row.balance),
    full: Number(row.full_amount),
    nextRefillAt: optionalNum(row.next_refill_at),
    name: optionalText(row.name),
    hint: optionalText(row.hint),
    token,
  }
}

/**
 * The SQL store's limits part (SPEC §5.50, migration 15): each lease one call of the
 * schema's `lease_limits` function, each batch of returns one `UPDATE`; the notices'
 * emails claimed, completed (with their audit record, in one transaction) and released
 * as the leak emails are.
 *
 * @example
 * ```ts
 * const limits = postgresLimits(database, 'public', audit)
 * const lease = await limits.leaseLimits(request)
 * ```
 */
export function postgresLimits(database: Database, schema: string, audit: PostgresAuditLog): LimitsPart {
  const sql = limitStatements(schema)
  return {
    async leaseLimits(request): Promise<LimitsLease | null> {
      const { kind, accountId, key, now, notices } = request
      const [row] = await database.query(sql.lease, [
        kind,
        accountId,
        key,
        now,
        request.credits,
        request.slots,
        request.lowRatio,
        notices.token,
        notices.claimedUntil,
        crypto.randomUUID(),
        crypto.randomUUID(),
      ])
      // The function's JSON text (its numbers are JSON numbers); none for a credential that does not exist.
      const lease = row?.lease
      if (typeof lease !== 'string') return null
      const answer = JSON.parse(lease) as LeaseAnswer
      const { credits } = answer
      return {
        credits,
        slots: answer.slots,
        notices: answer.notices.map((notice) => ({
          id: notice.id,
          kind,
          accountId,
          key,
          type: notice.type,
          at: now,
          balance: credits?.balance ?? 0,
          full: Number(answer.full),
          nextRefillAt: optionalNum(answer.nextRefillAt),
          name: answer.name,
          hint: answer.hint,
          token: notices.token,
        })),
      }
    },

    async returnLimits(returns) {
      const back = returns.filter((item) => item.credits > 0 || item.slots > 0)
      if (back.length === 0) return
      const rows = back.map((item) => ({
        kind: item.kind,
        account_id: item.accountId,
        key: item.key,
        credits: item.credits,
        epoch: item.epoch,
        period: item.period,
        slots: item.slots,
        window_start: item.windowStart,
        window_ms: item.windowMs,
      }))
      await database.query(sql.giveBack, [JSON.stringify(rows)])
    },

    async listCreditBalances(accountId, now) {
      const rows = await database.query(sql.balances, [accountId, now])
      return rows.map((row) => ({
        kind: row.kind === 'user' ? ('user' as const) : ('account' as const),
        key: String(row.key),
        balance: Number(row.balance),
      }))
    },

    async claimCreditNotices({ now, leaseMs, limit, token }) {
      const rows = await database.query(sql.claim, [now, limit, token, leaseMs])
      return rows.map((row) => toClaim(row, token)).sort((a, b) => a.at - b.at || (a.id < b.id ? -1 : 1))
    },

    async completeCreditNotice(claim, sentAt, append) {
      const params = [claim.id, claim.token, sentAt]
      // With its audit record, in one transaction: the record only when the claim held.
      return database.transaction(async (tx) => {
        const rows = await tx.query(sql.complete, params)
        if (rows.length === 0) return false
        await audit.appendIn(tx, append)
        return true
      })
    },

    async releaseCreditNotice(claim) {
      await database.query(sql.release, [claim.id, claim.token])
    },
  }
}
