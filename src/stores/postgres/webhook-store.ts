import { webhookDisabledEntry, type WebhookEvent, type WebhookEventType } from '../../core/webhook-events'
import type { WebhookDeliveryRecord, WebhookDeliveryState, WebhookEndpointRecord, WebhookStore } from '../../ports/webhook-store'
import type { Database, Queryable, Row } from './database-interface'
import type { AuditAppend } from '../../ports/audit-log'
import type { PostgresAuditLog } from './postgres-audit-log'
import { webhookStatements } from './webhook-statements'
import { accountLock } from './account-lock'

const num = (value: unknown): number => Number(value)
const optionalNum = (value: unknown): number | null => (value === null || value === undefined ? null : Number(value))
// eslint-disable-next-line @typescript-eslint/no-base-to-string -- text columns of the driver's row
const optionalText = (value: unknown): string | null => (value === null || value === undefined ? null : String(value))

/** A row of `webhook_endpoints` as a record. */
function toEndpoint(row: Row): WebhookEndpointRecord {
  return {
    id: String(row.id),
    accountId: String(row.account_id),
    url: String(row.url),
    events: Array.isArray(row.events) ? (row.events.map(String) as WebhookEventType[]) : null,
    description: String(row.description),
    enabled: row.enabled === true,
    disabledReason: row.disabled_reason === 'failing' ? 'failing' : null,
    secret: String(row.secret),
    previousSecret: optionalText(row.previous_secret),
    previousSecretEndsAt: optionalNum(row.previous_secret_ends_at),
    failingSince: optionalNum(row.failing_since),
    createdAt: num(row.created_at),
    updatedAt: num(row.updated_at),
  }
}

/** A row of `webhook_deliveries` joined to its event's type and instant, as a record. */
function toDelivery(row: Row): WebhookDeliveryRecord {
  return {
    id: String(row.id),
    accountId: String(row.account_id),
    endpointId: String(row.endpoint_id),
    eventType: String(row.event_type) as WebhookEvent['type'],
    eventAt: num(row.event_at),
    state: String(row.state) as WebhookDeliveryState,
    attempts: num(row.attempts),
    nextAttemptAt: optionalNum(row.next_attempt_at),
    lastAttemptAt: optionalNum(row.last_attempt_at),
    lastStatusCode: optionalNum(row.last_status),
    lastError: optionalText(row.last_error),
    createdAt: num(row.created_at),
  }
}

const endpointParams = (record: WebhookEndpointRecord): unknown[] => [
  record.id,
  record.accountId,
  record.url,
  record.events === null ? null : [...record.events],
  record.description,
  record.enabled,
  record.disabledReason,
  record.secret,
  record.previousSecret,
  record.previousSecretEndsAt,
  record.failingSince,
  record.createdAt,
  record.updatedAt,
]

/**
 * Stores an event for the account's enabled endpoints that subscribed to its type, in
 * `tx`, the transaction of the change it reports: for a change that has no audit record
 * of its own (the credits of issue 45). Resolves how many deliveries it queued.
 *
 * @example
 * ```ts
 * await database.transaction(async (tx) => {
 *   // … the change …
 *   await enqueueWebhookEvent(tx, 'passcode_auth', 'acc_1', { type: 'credits.low', at: Date.now(), data: { remaining: 10 } })
 * })
 * ```
 */
export async function enqueueWebhookEvent(tx: Queryable, schema: string, accountId: string, event: WebhookEvent): Promise<number> {
  const [row] = await tx.query(webhookStatements(schema).enqueueEvent, [accountId, event.type, event.at, JSON.stringify(event.data)])
  return Number(row?.queued ?? 0)
}

/**
 * The webhooks part of the SQL store (SPEC §5.53). The outbox is filled by the trigger
 * of migration 16 in each change's own transaction; endpoint writes append their audit
 * record in their transaction (`appendIn`), and a batch of outcomes is one statement
 * (plus the records of the endpoints it disabled, in the same transaction).
 */
export function postgresWebhooks(database: Database, schema: string, audit: PostgresAuditLog): WebhookStore {
  const sql = webhookStatements(schema)
  const holdAccount = accountLock(schema)
  const run = database.prepared ?? database.query

  /** A write and its audit record in one transaction; the record only when the write returned a row. */
  const writeWith = async (statement: string, params: readonly unknown[], entry: AuditAppend, before?: (tx: Queryable) => Promise<void>) =>
    database.transaction(async (tx) => {
      await before?.(tx)
      const [row] = await (tx.prepared ?? tx.query)(statement, params)
      if (row !== undefined) await audit.appendIn(tx, entry)
      return row === undefined ? null : toEndpoint(row)
    })

  return {
    createEndpoint: (record, maxPerAccount, entry) =>
      writeWith(sql.createEndpoint, [...endpointParams(record), maxPerAccount], entry, (tx) => holdAccount(tx, record.accountId)),

    updateEndpoint: (accountId, endpointId, patch, entry) =>
      writeWith(
        sql.updateEndpoint,
        [
          accountId,
          endpointId,
          patch.url ?? null,
          patch.events !== undefined,
          patch.events === undefined || patch.events === null ? null : [...patch.events],
          patch.description ?? null,
          patch.enabled ?? null,
          patch.secret?.secret ?? null,
          patch.secret?.previousSecret ?? null,
          patch.secret?.previousSecretEndsAt ?? null,
          patch.updatedAt,
        ],
        entry,
      ),

    deleteEndpoint: (accountId, endpointId, entry) => writeWith(sql.deleteEndpoint, [accountId, endpointId], entry),

    async getEndpoint(accountId, endpointId) {
      const [row] = await run(sql.getEndpoint, [accountId, endpointId])
      return row === undefined ? null : toEndpoint(row)
    },

    async listEndpoints(accountId) {
      return (await run(sql.listEndpoints, [accountId])).map(toEndpoint)
    },

    async listDeliveries(accountId, { endpointId, after, limit }) {
      const rows = await run(sql.listDeliveries, [accountId, endpointId ?? null, after?.createdAt ?? null, after?.id ?? null, limit])
      return rows.map(toDelivery)
    },

    async replayDelivery(accountId, deliveryId, now) {
      const [row] = await run(sql.replayDelivery, [accountId, deliveryId, now])
      return row === undefined ? null : toDelivery(row)
    },

    async enqueueTest(accountId, endpointId, event) {
      const id = (prefix: string) => `${prefix}_${crypto.randomUUID().replaceAll('-', '')}`
      const [row] = await run(sql.enqueueTest, [accountId, endpointId, id('evt'), event.type, event.at, JSON.stringify(event.data), id('msg')])
      return row === undefined ? null : toDelivery(row)
    },

    async claimDeliveries({ now, leaseMs, limit, token }) {
      const rows = await run(sql.claimDeliveries, [now, limit, token, leaseMs])
      return rows.map((row) => ({
        id: String(row.id),
        token,
        attempts: num(row.attempts),
        accountId: String(row.account_id),
        endpointId: String(row.endpoint_id),
        url: String(row.url),
        enabled: row.enabled === true,
        secrets: [String(row.secret), ...(typeof row.previous_secret === 'string' ? [row.previous_secret] : [])],
        event: {
          type: String(row.event_type) as WebhookEvent['type'],
          at: num(row.event_at),
          data: JSON.parse(String(row.event_data)) as WebhookEvent['data'],
        },
      }))
    },

    async completeDeliveries(outcomes, disableAfterMs, signer) {
      if (outcomes.length === 0) return []
      const column = <T>(pick: (outcome: (typeof outcomes)[number]) => T): T[] => outcomes.map(pick)
      return database.transaction(async (tx) => {
        const rows = await (tx.prepared ?? tx.query)(sql.completeDeliveries, [
          column((o) => o.id),
          column((o) => o.token),
          column((o) => o.at),
          column((o) => o.ok),
          column((o) => o.statusCode),
          column((o) => o.error),
          column((o) => o.state),
          column((o) => o.nextAttemptAt),
          disableAfterMs,
        ])
        const disabled = rows.map(toEndpoint)
        for (const [index, endpoint] of disabled.entries())
          await audit.appendIn(tx, { entry: webhookDisabledEntry(endpoint, num(rows[index]!.last_at)), signer })
        return disabled
      })
    },

    async claimNotices({ now, leaseMs, limit, token }) {
      const rows = await run(sql.claimNotices, [now, limit, token, leaseMs])
      return rows.map((row) => ({ endpoint: toEndpoint(row), token }))
    },

    completeNotice: (claim, _sentAt, entry) =>
      database.transaction(async (tx) => {
        const [row] = await tx.query(sql.completeNotice, [claim.endpoint.id, claim.token])
        if (row !== undefined) await audit.appendIn(tx, entry)
        return row !== undefined
      }),

    async releaseNotice(claim) {
      await database.query(sql.releaseNotice, [claim.endpoint.id, claim.token])
    },
  }
}
