import type { AuditEntry, AuditRecord, AuditTarget } from '../../core/audit'
import { webhookDisabledEntry, webhookEventsOf, type WebhookEvent, type WebhookSubject } from '../../core/webhook-events'
import type { AuditAppend } from '../../ports/audit-log'
import { emailClaims, type EmailClaim } from './memory-state'
import type { WebhookDeliveryClaim, WebhookDeliveryRecord, WebhookEndpointRecord, WebhookNoticeClaim, WebhookStore } from '../../ports/webhook-store'

/** A stored endpoint with its disabled-email: due or not, and its claim. */
interface EndpointState extends EmailClaim {
  record: WebhookEndpointRecord
  noticeDue: boolean
}

/** A stored delivery with its event and its claim. */
interface DeliveryState {
  record: WebhookDeliveryRecord
  event: WebhookEvent
  token: string | null
  /** Storage order: of deliveries due at the same instant, the older goes first. */
  seq: number
}

/** The memory store's webhooks part, and how its audit trail hands it each record. */
export interface MemoryWebhooks {
  readonly store: WebhookStore
  /**
   * The audit observer (memory-audit-log.ts): reads the target as the write finds it,
   * then, once the record is stored, stores its events with the target as the write left
   * it (the row before the change when the change removed it, as a delete does).
   */
  observe(entry: AuditEntry): (record: AuditRecord) => void
  /**
   * Stores an event for each enabled endpoint of the account that subscribed to its type,
   * at once: for a change of the memory store that has no audit record of its own (the
   * credits of issue 45), called in its own synchronous step. Returns the deliveries.
   */
  enqueue(accountId: string, event: WebhookEvent): WebhookDeliveryRecord[]
}

/** What the webhooks part needs of the rest of the memory store. */
export interface MemoryWebhooksContext {
  /** The audit trail's prepare: a write's record, stored by calling what it returns. */
  prepare(append: AuditAppend): () => unknown
  /** The hint and expiry of an audit target as stored now; `undefined` when it is not stored. */
  subject(accountId: string, target: AuditTarget): WebhookSubject | undefined
}

const newId = (prefix: string): string => `${prefix}_${crypto.randomUUID().replaceAll('-', '')}`
const byNewest = (a: WebhookDeliveryRecord, b: WebhookDeliveryRecord): number => b.createdAt - a.createdAt || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0)

/**
 * Webhook endpoints and the outbox in memory (SPEC §5.53). Every operation runs without
 * yielding, so an event is stored in the same step as its change and audit record, and
 * two dispatchers never claim one delivery.
 */
export function memoryWebhooks(context: MemoryWebhooksContext): MemoryWebhooks {
  const endpoints = new Map<string, EndpointState>()
  const deliveries = new Map<string, DeliveryState>()
  const pending = new Set<string>()
  let stored = 0

  const ownEndpoint = (accountId: string, endpointId: string): EndpointState | undefined => {
    const state = endpoints.get(endpointId)
    return state?.record.accountId === accountId ? state : undefined
  }

  const store = (event: WebhookEvent, endpoint: WebhookEndpointRecord): WebhookDeliveryRecord => {
    const record: WebhookDeliveryRecord = {
      id: newId('msg'),
      accountId: endpoint.accountId,
      endpointId: endpoint.id,
      eventType: event.type,
      eventAt: event.at,
      state: 'pending',
      attempts: 0,
      nextAttemptAt: event.at,
      lastAttemptAt: null,
      lastStatusCode: null,
      lastError: null,
      createdAt: event.at,
    }
    deliveries.set(record.id, { record, event: structuredClone(event), token: null, seq: ++stored })
    pending.add(record.id)
    return { ...record }
  }

  const enqueue = (accountId: string, event: WebhookEvent): WebhookDeliveryRecord[] => {
    const out: WebhookDeliveryRecord[] = []
    for (const { record } of endpoints.values()) {
      if (record.accountId !== accountId || !record.enabled) continue
      if (record.events !== null && !(record.events as readonly string[]).includes(event.type)) continue
      out.push(store(event, record))
    }
    return out
  }

  const observe = (entry: AuditEntry): ((record: AuditRecord) => void) => {
    const before = context.subject(entry.accountId, entry.target)
    return (record) => {
      const subject = context.subject(record.accountId, record.target) ?? before ?? { hint: null, expiresAt: null }
      for (const event of webhookEventsOf(record, subject)) enqueue(record.accountId, event)
    }
  }

  const copy = (state: EndpointState): WebhookEndpointRecord => ({ ...state.record })
  const notices = emailClaims<EndpointState>((state) => state.noticeDue)

  const webhooks: WebhookStore = {
    async createEndpoint(record, maxPerAccount, entry) {
      let count = 0
      for (const state of endpoints.values()) if (state.record.accountId === record.accountId) count++
      if (count >= maxPerAccount) return null
      const recorded = context.prepare(entry)
      const state: EndpointState = { record: { ...record }, noticeDue: false, token: null, claimedUntil: 0 }
      endpoints.set(record.id, state)
      recorded()
      return copy(state)
    },

    async updateEndpoint(accountId, endpointId, patch, entry) {
      const state = ownEndpoint(accountId, endpointId)
      if (state === undefined) return null
      const recorded = context.prepare(entry)
      const current = state.record
      const enabling = patch.enabled === true && !current.enabled
      state.record = {
        ...current,
        ...(patch.url !== undefined && { url: patch.url }),
        ...(patch.events !== undefined && { events: patch.events === null ? null : [...patch.events] }),
        ...(patch.description !== undefined && { description: patch.description }),
        ...(patch.enabled !== undefined && { enabled: patch.enabled }),
        ...(enabling && { failingSince: null, disabledReason: null }),
        ...(patch.secret !== undefined && patch.secret),
        updatedAt: patch.updatedAt,
      }
      if (enabling) state.noticeDue = false
      recorded()
      return copy(state)
    },

    async deleteEndpoint(accountId, endpointId, entry) {
      const state = ownEndpoint(accountId, endpointId)
      if (state === undefined) return null
      const recorded = context.prepare(entry)
      endpoints.delete(endpointId)
      for (const [id, delivery] of deliveries) {
        if (delivery.record.endpointId !== endpointId) continue
        deliveries.delete(id)
        pending.delete(id)
      }
      recorded()
      return copy(state)
    },

    async getEndpoint(accountId, endpointId) {
      const state = ownEndpoint(accountId, endpointId)
      return state === undefined ? null : copy(state)
    },

    async listEndpoints(accountId) {
      const out: WebhookEndpointRecord[] = []
      for (const state of endpoints.values()) if (state.record.accountId === accountId) out.push(copy(state))
      return out.sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : 1))
    },

    async listDeliveries(accountId, { endpointId, after, limit }) {
      const out = [...deliveries.values()]
        .map((delivery) => delivery.record)
        .filter((record) => record.accountId === accountId && (endpointId === undefined || record.endpointId === endpointId))
        .filter((record) => after === undefined || byNewest(record, { ...record, createdAt: after.createdAt, id: after.id }) > 0)
        .sort(byNewest)
      return out.slice(0, limit).map((record) => ({ ...record }))
    },

    async replayDelivery(accountId, deliveryId, now) {
      const delivery = deliveries.get(deliveryId)
      if (delivery?.record.accountId !== accountId) return null
      delivery.record = { ...delivery.record, state: 'pending', nextAttemptAt: now }
      delivery.token = null
      pending.add(deliveryId)
      return { ...delivery.record }
    },

    async enqueueTest(accountId, endpointId, event) {
      const state = ownEndpoint(accountId, endpointId)
      return state === undefined ? null : store(event, state.record)
    },

    async claimDeliveries({ now, leaseMs, limit, token }) {
      const due: DeliveryState[] = []
      for (const id of pending) {
        const delivery = deliveries.get(id)!
        if (delivery.record.nextAttemptAt !== null && delivery.record.nextAttemptAt <= now) due.push(delivery)
      }
      due.sort((a, b) => a.record.nextAttemptAt! - b.record.nextAttemptAt! || a.seq - b.seq)
      const claims: WebhookDeliveryClaim[] = []
      for (const delivery of due.slice(0, limit)) {
        delivery.token = token
        delivery.record = { ...delivery.record, nextAttemptAt: now + leaseMs }
        const endpoint = endpoints.get(delivery.record.endpointId)!.record
        const previous = endpoint.previousSecret !== null && (endpoint.previousSecretEndsAt ?? 0) > now ? [endpoint.previousSecret] : []
        claims.push({
          id: delivery.record.id,
          token,
          attempts: delivery.record.attempts,
          accountId: endpoint.accountId,
          endpointId: endpoint.id,
          url: endpoint.url,
          enabled: endpoint.enabled,
          secrets: [endpoint.secret, ...previous],
          event: structuredClone(delivery.event),
        })
      }
      return claims
    },

    async completeDeliveries(outcomes, disableAfterMs, signer) {
      // Per endpoint: a success makes it healthy; otherwise the earliest failure counts.
      const health = new Map<string, { ok: boolean; firstFailure: number; lastAt: number }>()
      for (const outcome of outcomes) {
        const delivery = deliveries.get(outcome.id)
        if (delivery?.token !== outcome.token || delivery.record.state !== 'pending') continue
        delivery.token = null
        delivery.record = {
          ...delivery.record,
          state: outcome.state,
          attempts: delivery.record.attempts + 1,
          nextAttemptAt: outcome.state === 'pending' ? outcome.nextAttemptAt : null,
          lastAttemptAt: outcome.at,
          lastStatusCode: outcome.statusCode,
          lastError: outcome.error,
        }
        if (outcome.state !== 'pending') pending.delete(outcome.id)
        const seen = health.get(delivery.record.endpointId)
        health.set(delivery.record.endpointId, {
          ok: (seen?.ok ?? false) || outcome.ok,
          firstFailure: Math.min(seen?.firstFailure ?? Infinity, outcome.ok ? Infinity : outcome.at),
          lastAt: Math.max(seen?.lastAt ?? 0, outcome.at),
        })
      }
      const disabled: WebhookEndpointRecord[] = []
      for (const [endpointId, { ok, firstFailure, lastAt }] of health) {
        const state = endpoints.get(endpointId)
        if (state === undefined) continue
        if (ok) {
          state.record = { ...state.record, failingSince: null }
          continue
        }
        const failingSince = Math.min(state.record.failingSince ?? firstFailure, firstFailure)
        state.record = { ...state.record, failingSince }
        if (!state.record.enabled || failingSince > lastAt - disableAfterMs) continue
        const recorded = context.prepare({ entry: webhookDisabledEntry(state.record, lastAt), signer })
        state.record = { ...state.record, enabled: false, disabledReason: 'failing', updatedAt: lastAt }
        state.noticeDue = true
        state.claimedUntil = 0
        recorded()
        disabled.push(copy(state))
      }
      return disabled
    },

    async claimNotices({ now, leaseMs, limit, token }) {
      const claims: WebhookNoticeClaim[] = []
      for (const state of endpoints.values()) {
        if (claims.length >= limit) break
        if (!notices.claimable(state, now)) continue
        notices.take(state, token, now, leaseMs)
        claims.push({ endpoint: copy(state), token })
      }
      return claims
    },

    async completeNotice(claim, _sentAt, entry) {
      return notices.complete(
        endpoints.get(claim.endpoint.id),
        claim.token,
        () => context.prepare(entry),
        (sent) => {
          sent.noticeDue = false
        },
      )
    },

    async releaseNotice(claim) {
      notices.release(endpoints.get(claim.endpoint.id), claim.token)
    },
  }

  return { store: webhooks, observe, enqueue }
}
