import { webhookDisabledEntry, type WebhookEvent, type WebhookEventType } from '../../core/webhook-events'
import type { WebhookDeliveryRecord, WebhookDeliveryState, WebhookEndpointRecord, WebhookStore } from '../../ports/webhook-store'
import type { Database, Queryable, Row } from './database-interface'
import type { AuditAppend } from '../../ports/audit-log'
import type { PostgresAuditLog } from './postgres-audit-log'
import { webhookStatements } from './webhook-statements'
import type { NamedStatement } from './named-statement'
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

/**
 * Stores an event for the account's enabled endpoints that subscribed to its type, in
 * `tx`, the transaction of the change it reports: for a host's own change that has no
 * audit record (the library's changes, credit crossings included, store theirs
 * themselves). Resolves how many deliveries it queued.
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
  const { enqueueEvent } = webhookStatements(schema)
  const [row] = await tx.query(
    enqueueEvent.text,
    enqueueEvent.values({ accountId, type: event.type, at: event.at, data: JSON.stringify(event.data) }),
  )
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
  const writeWith = async <I>(statement: NamedStatement<I>, input: I, entry: AuditAppend, before?: (tx: Queryable) => Promise<void>) =>
    database.transaction(async (tx) => {
      await before?.(tx)
      const [row] = await (tx.prepared ?? tx.query)(statement.text, statement.values(input))
      if (row !== undefined) await audit.appendIn(tx, entry)
      return row === undefined ? null : toEndpoint(row)
    })

  return {
    createEndpoint: (record, maxPerAccount, entry) =>
      writeWith(sql.createEndpoint, { ...record, maxPerAccount }, entry, (tx) => holdAccount(tx, record.accountId)),

    updateEndpoint: (accountId, endpointId, patch, entry) =>
      writeWith(
        sql.updateEndpoint,
        {
          accountId,
          endpointId,
          url: patch.url ?? null,
          eventsGiven: patch.events !== undefined,
          events: patch.events ?? null,
          description: patch.description ?? null,
          enabled: patch.enabled ?? null,
          secret: patch.secret?.secret ?? null,
          previousSecret: patch.secret?.previousSecret ?? null,
          previousSecretEndsAt: patch.secret?.previousSecretEndsAt ?? null,
          updatedAt: patch.updatedAt,
        },
        entry,
      ),

    deleteEndpoint: (accountId, endpointId, entry) => writeWith(sql.deleteEndpoint, { accountId, endpointId }, entry),

    async getEndpoint(accountId, endpointId) {
      const [row] = await run(sql.getEndpoint.text, sql.getEndpoint.values({ accountId, endpointId }))
      return row === undefined ? null : toEndpoint(row)
    },

    async listEndpoints(accountId) {
      return (await run(sql.listEndpoints.text, sql.listEndpoints.values({ accountId }))).map(toEndpoint)
    },

    async listDeliveries(accountId, { endpointId, after, limit }) {
      const input = { accountId, endpointId: endpointId ?? null, afterCreatedAt: after?.createdAt ?? null, afterId: after?.id ?? null, limit }
      const rows = await run(sql.listDeliveries.text, sql.listDeliveries.values(input))
      return rows.map(toDelivery)
    },

    async replayDelivery(accountId, deliveryId, now) {
      const [row] = await run(sql.replayDelivery.text, sql.replayDelivery.values({ accountId, deliveryId, now }))
      return row === undefined ? null : toDelivery(row)
    },

    async enqueueTest(accountId, endpointId, event) {
      const id = (prefix: string) => `${prefix}_${crypto.randomUUID().replaceAll('-', '')}`
      const [row] = await run(
        sql.enqueueTest.text,
        sql.enqueueTest.values({
          accountId,
          endpointId,
          eventId: id('evt'),
          type: event.type,
          at: event.at,
          data: JSON.stringify(event.data),
          deliveryId: id('msg'),
        }),
      )
      return row === undefined ? null : toDelivery(row)
    },

    async claimDeliveries(claim) {
      const { token } = claim
      const rows = await run(sql.claimDeliveries.text, sql.claimDeliveries.values(claim))
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
        const rows = await (tx.prepared ?? tx.query)(
          sql.completeDeliveries.text,
          sql.completeDeliveries.values({
            ids: column((o) => o.id),
            tokens: column((o) => o.token),
            instants: column((o) => o.at),
            oks: column((o) => o.ok),
            statuses: column((o) => o.statusCode),
            errors: column((o) => o.error),
            states: column((o) => o.state),
            nextAttempts: column((o) => o.nextAttemptAt),
            disableAfterMs,
          }),
        )
        const disabled = rows.map(toEndpoint)
        for (const [index, endpoint] of disabled.entries())
          await audit.appendIn(tx, { entry: webhookDisabledEntry(endpoint, num(rows[index]!.last_at)), signer })
        return disabled
      })
    },

    async claimNotices(claim) {
      const rows = await run(sql.claimNotices.text, sql.claimNotices.values(claim))
      return rows.map((row) => ({ endpoint: toEndpoint(row), token: claim.token }))
    },

    completeNotice: (claim, _sentAt, entry) =>
      database.transaction(async (tx) => {
        const [row] = await tx.query(sql.completeNotice.text, sql.completeNotice.values({ endpointId: claim.endpoint.id, token: claim.token }))
        if (row !== undefined) await audit.appendIn(tx, entry)
        return row !== undefined
      }),

    async releaseNotice(claim) {
      await database.query(sql.releaseNotice.text, sql.releaseNotice.values({ endpointId: claim.endpoint.id, token: claim.token }))
    },
  }
}
