import type { AuditChanges, AuditSigner } from '../../core/audit'
import type { Actor } from '../../core/entities'
import { CapReachedError, ConfigurationError, ForbiddenError, InvalidInputError, NotFoundError } from '../../core/errors'
import { WEBHOOK_TEST_EVENT } from '../../core/webhook-events'
import { WEBHOOK_SECRET_OVERLAP_MS } from '../../core/webhook-schedule'
import { generateWebhookSecret } from '../../core/webhook-secret'
import type { WebhookDeliveryView, WebhookEndpointView } from '../../core/webhook-views'
import type { PasscodeStore } from '../../ports/passcode-store'
import type { WebhookSender } from '../../ports/webhook-sender'
import type { WebhookEndpointRecord, WebhookEvent } from '../../ports/webhook-store'
import { auditEntry } from '../audit-entry'
import { storeCall } from '../deadline'
import type { EventInput } from '../events'
import { parseInput, parseWith } from '../input'
import { shownUrl, webhookStoreOf } from './webhook-store-of'
import type { WebhookDispatchReport } from './dispatch'
import {
  MAX_WEBHOOK_ENDPOINTS,
  webhookInputSchemas,
  type CreateWebhookInput,
  type UpdateWebhookInput,
  type WebhookDeliveriesOptions,
} from './webhook-input'
import { deliveryCursor, readDeliveryCursor, toWebhookDeliveryView, toWebhookEndpointView } from './webhook-views'

/**
 * An endpoint and its signing secret, which this answer is the only one to carry
 * (create, rotate): give it to the receiver, which verifies with it.
 *
 * @example
 * ```ts
 * const { endpoint, secret } = await auth.webhooks.create(admin, 'acc_1', { url, events: 'all' })
 * ```
 */
export interface IssuedWebhookSecret {
  /** The endpoint. */
  readonly endpoint: WebhookEndpointView
  /** `whsec_` and the base64 of 32 random bytes; never shown again. */
  readonly secret: string
}

/**
 * A page of deliveries, newest first.
 *
 * @example
 * ```ts
 * const { deliveries, nextCursor } = await auth.webhooks.deliveries(admin, 'acc_1', { limit: 20 })
 * ```
 */
export interface WebhookDeliveryPage {
  /** The deliveries, newest first. */
  readonly deliveries: readonly WebhookDeliveryView[]
  /** Pass it as `cursor` for the next (older) page; `null` on the last one. */
  readonly nextCursor: string | null
}

/**
 * Webhooks (SPEC §5.53): `auth.webhooks`. Only an account's admins manage its endpoints
 * and read their deliveries; every change is in the audit trail (never the secret).
 */
export interface WebhooksApi {
  /**
   * Registers an endpoint and returns it with its signing secret, shown once. The URL
   * must not resolve to a loopback, private, link-local, shared, multicast, reserved or
   * metadata address unless the host allows it (`webhooks.allowPrivateAddresses`). At
   * most 20 endpoints per account: the 21st is a `CapReachedError` (409 over HTTP). `enabled: false` registers it disabled: it receives
   * nothing until `update` enables it.
   */
  create(actor: Actor, accountId: string, input: CreateWebhookInput): Promise<IssuedWebhookSecret>
  /** Every endpoint of the account, oldest first. */
  list(actor: Actor, accountId: string): Promise<WebhookEndpointView[]>
  /** Changes the URL, event types, description or enabled state (enabling clears a `failing` state). */
  update(actor: Actor, accountId: string, endpointId: string, patch: UpdateWebhookInput): Promise<WebhookEndpointView>
  /** Deletes an endpoint and its deliveries (pending ones are never sent). */
  delete(actor: Actor, accountId: string, endpointId: string): Promise<void>
  /**
   * Issues a new signing secret, shown once; the replaced one keeps signing for 24 h
   * (each attempt carries both signatures), then stops. A rotation during an overlap
   * ends the older secret at once: only one previous secret is kept.
   */
  rotateSecret(actor: Actor, accountId: string, endpointId: string): Promise<IssuedWebhookSecret>
  /** The account's deliveries, newest first, paged (`cursor`), optionally of one endpoint. */
  deliveries(actor: Actor, accountId: string, options?: WebhookDeliveriesOptions): Promise<WebhookDeliveryPage>
  /**
   * Sends a delivery once more, now, with its `webhook-id` (a receiver that saw it
   * already drops it). A failed one that fails again stays failed.
   */
  replay(actor: Actor, accountId: string, deliveryId: string): Promise<WebhookDeliveryView>
  /** Queues a `webhook.test` event for one endpoint, whatever it subscribed to ("Send test event"). */
  sendTest(actor: Actor, accountId: string, endpointId: string): Promise<WebhookDeliveryView>
  /**
   * One delivery pass: claims the attempts that are due (fleet-safe: one instance sends
   * each), sends them, records how they ended and schedules the retries, then emails
   * the admins of endpoints disabled for failing. Run it on a schedule with
   * `startWebhookDispatcher`.
   */
  dispatch(): Promise<WebhookDispatchReport>
}

/** What `auth.webhooks` receives from the service. */
export interface WebhooksContext {
  readonly store: PasscodeStore
  readonly now: () => number
  readonly emit: ((event: EventInput) => void) | undefined
  /** Signs the endpoints' audit records (SPEC §5.44). */
  readonly auditSigner: AuditSigner
  /** How endpoints are reached; `undefined` on a runtime without a default sender. */
  readonly sender: WebhookSender | undefined
  readonly allowPrivateAddresses: boolean
  /** One delivery pass (dispatch.ts). */
  readonly dispatch: () => Promise<WebhookDispatchReport>
}

function authorizeAdmin(actor: unknown): Actor {
  const checked = parseInput('actor', 'actor', actor)
  if (checked.role !== 'admin') throw new ForbiddenError('Only admins manage webhooks')
  return checked
}

/** Builds `auth.webhooks`. */
export function createWebhooksApi(context: WebhooksContext): WebhooksApi {
  const { now, emit } = context
  const hooks = () => webhookStoreOf(context.store)

  /** Refuses a URL whose host resolves to an address deliveries may not reach (SPEC §5.53). */
  async function checkUrl(url: string): Promise<void> {
    if (context.allowPrivateAddresses) return
    const { sender } = context
    if (sender === undefined) {
      throw new ConfigurationError('No webhook sender on this runtime: pass `webhooks.sender` to createPasscodeAuth (Node has a default)')
    }
    const checked = await sender.check(url, { allowPrivateAddresses: false })
    if (!checked.ok) throw new InvalidInputError('url', checked.reason)
  }

  async function found(accountId: string, endpointId: string): Promise<WebhookEndpointRecord> {
    const record = await storeCall(() => hooks().getEndpoint(accountId, endpointId))
    if (record === null) throw new NotFoundError('No such webhook endpoint in this account')
    return record
  }

  const target = (id: string) => ({ type: 'webhook' as const, id })
  const ids = (actor: unknown, accountId: unknown, endpointId?: unknown) => ({
    who: authorizeAdmin(actor),
    account: parseInput('accountId', 'accountId', accountId),
    id: endpointId === undefined ? '' : parseWith(webhookInputSchemas.id, 'endpointId', endpointId),
  })

  return {
    async create(actor, accountId, input) {
      const { who, account } = ids(actor, accountId)
      const { url, events, description = '', enabled = true } = parseWith(webhookInputSchemas.create, '', input)
      await checkUrl(url)
      const at = now()
      const secret = generateWebhookSecret()
      const record: WebhookEndpointRecord = {
        id: `ep_${crypto.randomUUID().replaceAll('-', '')}`,
        accountId: account,
        url,
        events,
        description,
        enabled,
        disabledReason: null,
        secret,
        previousSecret: null,
        previousSecretEndsAt: null,
        failingSince: null,
        createdAt: at,
        updatedAt: at,
      }
      const changes: AuditChanges = {
        url: { before: null, after: shownUrl(url) },
        events: { before: null, after: events ?? 'all' },
        ...(description !== '' && { description: { before: null, after: description } }),
        ...(!enabled && { enabled: { before: null, after: false } }),
      }
      const audit = auditEntry(context.auditSigner, who, account, at, 'webhook.endpoint_created', target(record.id), changes)
      const stored = await storeCall(() => hooks().createEndpoint(record, MAX_WEBHOOK_ENDPOINTS, audit))
      if (stored === null) throw new CapReachedError(MAX_WEBHOOK_ENDPOINTS, 'webhook endpoints')
      emit?.({ type: 'webhook.endpoint_created', accountId: account, actorUserId: who.userId, endpointId: stored.id, url: shownUrl(url) })
      return { endpoint: toWebhookEndpointView(stored, at), secret }
    },

    async list(actor, accountId) {
      const { account } = ids(actor, accountId)
      const at = now()
      return (await storeCall(() => hooks().listEndpoints(account))).map((record) => toWebhookEndpointView(record, at))
    },

    async update(actor, accountId, endpointId, patch) {
      const { who, account, id } = ids(actor, accountId, endpointId)
      const changes = parseWith(webhookInputSchemas.update, '', patch)
      if (changes.url !== undefined) await checkUrl(changes.url)
      const current = await found(account, id)
      const at = now()
      const edited: Record<string, { before: string | boolean | readonly string[] | null; after: string | boolean | readonly string[] | null }> = {}
      if (changes.url !== undefined && changes.url !== current.url) edited.url = { before: shownUrl(current.url), after: shownUrl(changes.url) }
      if (changes.events !== undefined) edited.events = { before: current.events ?? 'all', after: changes.events ?? 'all' }
      if (changes.description !== undefined) edited.description = { before: current.description || null, after: changes.description || null }
      if (changes.enabled !== undefined && changes.enabled !== current.enabled) edited.enabled = { before: current.enabled, after: changes.enabled }
      const audit = auditEntry(context.auditSigner, who, account, at, 'webhook.endpoint_updated', target(id), edited)
      const stored = await storeCall(() => hooks().updateEndpoint(account, id, { ...changes, updatedAt: at }, audit))
      if (stored === null) throw new NotFoundError('No such webhook endpoint in this account')
      emit?.({ type: 'webhook.endpoint_updated', accountId: account, actorUserId: who.userId, endpointId: id, url: shownUrl(stored.url) })
      return toWebhookEndpointView(stored, at)
    },

    async delete(actor, accountId, endpointId) {
      const { who, account, id } = ids(actor, accountId, endpointId)
      const current = await found(account, id)
      const audit = auditEntry(context.auditSigner, who, account, now(), 'webhook.endpoint_deleted', target(id), {
        url: { before: shownUrl(current.url), after: null },
      })
      const deleted = await storeCall(() => hooks().deleteEndpoint(account, id, audit))
      if (deleted === null) throw new NotFoundError('No such webhook endpoint in this account')
      emit?.({ type: 'webhook.endpoint_deleted', accountId: account, actorUserId: who.userId, endpointId: id, url: shownUrl(deleted.url) })
    },

    async rotateSecret(actor, accountId, endpointId) {
      const { who, account, id } = ids(actor, accountId, endpointId)
      const current = await found(account, id)
      const at = now()
      const secret = generateWebhookSecret()
      const endsAt = at + WEBHOOK_SECRET_OVERLAP_MS
      const audit = auditEntry(context.auditSigner, who, account, at, 'webhook.secret_rotated', target(id), {
        previousSecretEndsAt: { before: null, after: endsAt },
      })
      const stored = await storeCall(() =>
        hooks().updateEndpoint(
          account,
          id,
          { secret: { secret, previousSecret: current.secret, previousSecretEndsAt: endsAt }, updatedAt: at },
          audit,
        ),
      )
      if (stored === null) throw new NotFoundError('No such webhook endpoint in this account')
      emit?.({ type: 'webhook.secret_rotated', accountId: account, actorUserId: who.userId, endpointId: id, url: shownUrl(stored.url) })
      return { endpoint: toWebhookEndpointView(stored, at), secret }
    },

    async deliveries(actor, accountId, options) {
      const { account } = ids(actor, accountId)
      const { endpointId, cursor, limit = 25 } = parseWith(webhookInputSchemas.deliveries, 'options', options) ?? {}
      const after = cursor === undefined ? undefined : readDeliveryCursor(cursor)
      if (cursor !== undefined && after === undefined) throw new InvalidInputError('cursor', 'is not a cursor this service gave')
      const rows = await storeCall(() =>
        hooks().listDeliveries(account, { limit: limit + 1, ...(endpointId !== undefined && { endpointId }), ...(after !== undefined && { after }) }),
      )
      const page = rows.slice(0, limit)
      return { deliveries: page.map(toWebhookDeliveryView), nextCursor: rows.length > limit ? deliveryCursor(page.at(-1)!) : null }
    },

    async replay(actor, accountId, deliveryId) {
      const { account } = ids(actor, accountId)
      const id = parseWith(webhookInputSchemas.id, 'deliveryId', deliveryId)
      const replayed = await storeCall(() => hooks().replayDelivery(account, id, now()))
      if (replayed === null) throw new NotFoundError('No such webhook delivery in this account')
      return toWebhookDeliveryView(replayed)
    },

    async sendTest(actor, accountId, endpointId) {
      const { account, id } = ids(actor, accountId, endpointId)
      const at = now()
      const event: WebhookEvent = {
        type: WEBHOOK_TEST_EVENT,
        at,
        data: { endpoint: { id }, message: 'A test event from passcode-auth: no change was made.' },
      }
      const queued = await storeCall(() => hooks().enqueueTest(account, id, event))
      if (queued === null) throw new NotFoundError('No such webhook endpoint in this account')
      return toWebhookDeliveryView(queued)
    },

    dispatch: () => context.dispatch(),
  }
}
