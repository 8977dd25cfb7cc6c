import type { WebhookDeliveryView, WebhookEndpointView } from '../../core/webhook-views'
import type { WebhookDeliveryRecord, WebhookEndpointRecord } from '../../ports/webhook-store'

const date = (ms: number | null): Date | null => (ms === null ? null : new Date(ms))

/** An endpoint as `auth.webhooks` shows it at `now`: never a secret; the overlap end only while it lasts. */
export function toWebhookEndpointView(record: WebhookEndpointRecord, now: number): WebhookEndpointView {
  const overlap = record.previousSecret !== null && record.previousSecretEndsAt !== null && record.previousSecretEndsAt > now
  return {
    id: record.id,
    accountId: record.accountId,
    url: record.url,
    events: record.events === null ? 'all' : [...record.events],
    description: record.description,
    enabled: record.enabled,
    disabledReason: record.disabledReason,
    failingSince: date(record.failingSince),
    previousSecretEndsAt: overlap ? date(record.previousSecretEndsAt) : null,
    createdAt: new Date(record.createdAt),
    updatedAt: new Date(record.updatedAt),
  }
}

/** A delivery as `auth.webhooks.deliveries` lists it. */
export function toWebhookDeliveryView(record: WebhookDeliveryRecord): WebhookDeliveryView {
  return {
    id: record.id,
    endpointId: record.endpointId,
    eventType: record.eventType,
    eventAt: new Date(record.eventAt),
    status: record.state,
    attempts: record.attempts,
    nextAttemptAt: record.state === 'pending' ? date(record.nextAttemptAt) : null,
    lastAttemptAt: date(record.lastAttemptAt),
    lastStatusCode: record.lastStatusCode,
    lastError: record.lastError,
  }
}

/** A page's cursor: the last delivery's creation instant and id, as opaque text. */
export const deliveryCursor = (record: WebhookDeliveryRecord): string => `${record.createdAt}.${record.id}`

/** The position a cursor names; `undefined` for one this service did not write. */
export function readDeliveryCursor(cursor: string): { createdAt: number; id: string } | undefined {
  const dot = cursor.indexOf('.')
  const createdAt = Number(cursor.slice(0, dot))
  return dot > 0 && Number.isSafeInteger(createdAt) && dot < cursor.length - 1 ? { createdAt, id: cursor.slice(dot + 1) } : undefined
}
