import type { CreditNoticeClaim, LimitsLease, LimitsPart } from '../../ports/limits-part'
import type { Database, Row } from './database-interface'
import type { PostgresAuditLog } from './postgres-audit-log'
import { claimDue } from './claim-statement'
import { namedStatement, sqlType } from './named-statement'

/** A credit notice's claim. */
const NOTICE_INPUTS = { id: sqlType.text, token: sqlType.text }

/** The statements of limits and credits (SPEC §5.50) for one schema: the functions of limit-schema.ts, and the notices' claims. */
export function limitStatements(s: string) {
  // A credential's balance as of `now` (core/limit-counters.ts, currentCredits): the counter's,
  // unless the setting is newer than it (its balance, or the refill amount once an interval
  // after it began) or a refill interval began since.
  const refill = `CASE WHEN jsonb_typeof(x.credits->'refill') = 'object' THEN x.credits->'refill' END`
  const periodAt = (at: string): string => `${s}.refill_period_start(${refill}->>'interval', ${at}, 0)`
  return {
    // One statement, atomic under the counter's row lock, no session state: PgBouncer's transaction mode takes it as it is.
    lease: namedStatement(
      {
        kind: sqlType.text,
        accountId: sqlType.text,
        key: sqlType.text,
        now: sqlType.bigint,
        credits: sqlType.bigint,
        slots: sqlType.bigint,
        lowRatio: sqlType.float8,
        token: sqlType.text,
        claimedUntil: sqlType.bigint,
        lowId: sqlType.text,
        exhaustedId: sqlType.text,
      },
      ($) =>
        `SELECT ${s}.lease_limits(${$.kind}, ${$.accountId}, ${$.key}, ${$.now}, ${$.credits}, ${$.slots}, ${$.lowRatio}, ${$.token}, ${$.claimedUntil}, ${$.lowId}, ${$.exhaustedId}) AS lease`,
    ),
    // Every return in one statement: credits only into the setting and interval they came
    // from, slots only into their window (a newer setting or a refill the next lease applies
    // replaces the balance whatever it holds).
    giveBack: namedStatement(
      { returns: sqlType.jsonb },
      ($) => `
      UPDATE ${s}.limit_counters c SET
        credit_balance = c.credit_balance + CASE WHEN c.credit_epoch = r.epoch AND c.credit_period = r.period THEN r.credits ELSE 0 END,
        window_used = CASE WHEN c.window_start = r.window_start AND c.window_ms = r.window_ms THEN greatest(0, c.window_used - r.slots) ELSE c.window_used END
      FROM jsonb_to_recordset(${$.returns}) AS r (kind text, account_id text, key text, credits bigint, epoch text, period bigint,
                                               slots bigint, window_start bigint, window_ms bigint)
      WHERE c.account_id = r.account_id AND c.kind = r.kind AND c.key = r.key`,
    ),
    balances: namedStatement(
      { accountId: sqlType.text, now: sqlType.bigint },
      ($) => `
      SELECT x.kind, x.key,
             CASE
               WHEN c.credit_epoch IS DISTINCT FROM x.credits->>'epoch' THEN
                 CASE WHEN ${refill} IS NOT NULL AND ${periodAt($.now)} > ${periodAt("(x.credits->>'setAt')::bigint")}
                   THEN (${refill}->>'amount')::bigint ELSE (x.credits->>'remaining')::bigint END
               WHEN ${refill} IS NOT NULL AND ${periodAt($.now)} > c.credit_period THEN (${refill}->>'amount')::bigint
               ELSE c.credit_balance
             END AS balance
      FROM (
        SELECT 'account' AS kind, id AS key, credits FROM ${s}.account_passcodes WHERE account_id = ${$.accountId} AND credits IS NOT NULL
        UNION ALL
        SELECT 'user', user_id, credits FROM ${s}.user_passcodes WHERE account_id = ${$.accountId} AND credits IS NOT NULL
      ) AS x
      LEFT JOIN ${s}.limit_counters c ON c.account_id = ${$.accountId} AND c.kind = x.kind AND c.key = x.key`,
    ),
    claim: claimDue({
      table: `${s}.credit_notices`,
      key: 'id',
      due: 'notified_at IS NULL',
      orderBy: 'at, id',
      returning: 'n.id, n.account_id, n.kind, n.key, n.type, n.at, n.balance, n.full_amount, n.next_refill_at, n.name, n.hint',
    }),
    complete: namedStatement(
      { ...NOTICE_INPUTS, sentAt: sqlType.bigint },
      ($) => `
      UPDATE ${s}.credit_notices SET notified_at = ${$.sentAt}, token = NULL
      WHERE id = ${$.id} AND token = ${$.token} AND notified_at IS NULL
      RETURNING id`,
    ),
    release: namedStatement(
      NOTICE_INPUTS,
      ($) => `
      UPDATE ${s}.credit_notices SET token = NULL, claimed_until = 0
      WHERE id = ${$.id} AND token = ${$.token} AND notified_at IS NULL`,
    ),
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
      const [row] = await database.query(
        sql.lease.text,
        sql.lease.values({ ...request, ...notices, lowId: crypto.randomUUID(), exhaustedId: crypto.randomUUID() }),
      )
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
      await database.query(sql.giveBack.text, sql.giveBack.values({ returns: JSON.stringify(rows) }))
    },

    async listCreditBalances(accountId, now) {
      const rows = await database.query(sql.balances.text, sql.balances.values({ accountId, now }))
      return rows.map((row) => ({
        kind: row.kind === 'user' ? ('user' as const) : ('account' as const),
        key: String(row.key),
        balance: Number(row.balance),
      }))
    },

    async claimCreditNotices(request) {
      const rows = await database.query(sql.claim.text, sql.claim.values(request))
      return rows.map((row) => toClaim(row, request.token)).sort((a, b) => a.at - b.at || (a.id < b.id ? -1 : 1))
    },

    async completeCreditNotice(claim, sentAt, append) {
      const params = sql.complete.values({ id: claim.id, token: claim.token, sentAt })
      // With its audit record, in one transaction: the record only when the claim held.
      return database.transaction(async (tx) => {
        const rows = await tx.query(sql.complete.text, params)
        if (rows.length === 0) return false
        await audit.appendIn(tx, append)
        return true
      })
    },

    async releaseCreditNotice(claim) {
      await database.query(sql.release.text, sql.release.values(claim))
    },
  }
}
