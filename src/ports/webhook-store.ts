import type { AuditSigner } from '../core/audit'
import type { AuditAppend } from './audit-log'
import type { WebhookEvent, WebhookEventType } from '../core/webhook-events'

export type { WebhookEvent, WebhookEventType }

/**
 * A webhook endpoint as stored (SPEC §5.53): where events go, which ones, and the
 * signing secrets. The secret is kept as it is (it must sign); it leaves the store only
 * towards the dispatcher's signer, never in a view, an event or a log.
 *
 * @example
 * ```ts
 * const endpoint = await store.webhooks!.getEndpoint('acc_1', endpointId)
 * ```
 */
export interface WebhookEndpointRecord {
  /** The endpoint's ID (`ep_…`). */
  readonly id: string
  /** Its account. */
  readonly accountId: string
  /** Where deliveries are sent (http or https). */
  readonly url: string
  /** The event types it receives; `null` for every type. */
  readonly events: readonly WebhookEventType[] | null
  /** What it is for; `''` when none. */
  readonly description: string
  /** Whether events reach it. A disabled endpoint gets no new deliveries and its pending ones fail. */
  readonly enabled: boolean
  /** Why it was disabled: `failing` when its attempts failed for 5 days; `null` otherwise. */
  readonly disabledReason: 'failing' | null
  /** The signing secret, `whsec_…`. */
  readonly secret: string
  /** The secret a rotation replaced, signing too until {@link previousSecretEndsAt}; `null` for none. */
  readonly previousSecret: string | null
  /** When the previous secret stops signing, epoch ms; `null` without one. */
  readonly previousSecretEndsAt: number | null
  /** Since when every attempt to it failed (epoch ms); `null` after a success. */
  readonly failingSince: number | null
  /** When it was created, epoch ms. */
  readonly createdAt: number
  /** When it was last changed, epoch ms. */
  readonly updatedAt: number
}

/** Fields an edit of an endpoint may change. */
export interface WebhookEndpointPatch {
  /** A new URL. */
  readonly url?: string
  /** New event types, `null` for every type. */
  readonly events?: readonly WebhookEventType[] | null
  /** A new description, `''` for none. */
  readonly description?: string
  /** Enables (which clears `failingSince` and `disabledReason`) or disables it. */
  readonly enabled?: boolean
  /** A rotation: the new secret, the replaced one signing until `previousSecretEndsAt`. */
  readonly secret?: {
    /** The new signing secret. */
    readonly secret: string
    /** The secret it replaces, still signing until `previousSecretEndsAt`; `null` for none. */
    readonly previousSecret: string | null
    /** Until when the previous secret signs too, epoch ms; `null` for none. */
    readonly previousSecretEndsAt: number | null
  }
  /** The time of the edit, epoch ms. */
  readonly updatedAt: number
}

/** Where a delivery stands: waiting for its next attempt, delivered, or given up. */
export type WebhookDeliveryState = 'pending' | 'succeeded' | 'failed'

/**
 * One event to one endpoint: its ID is the `webhook-id` every attempt sends.
 *
 * @example
 * ```ts
 * const [latest] = await store.webhooks!.listDeliveries('acc_1', { limit: 1 })
 * ```
 */
export interface WebhookDeliveryRecord {
  /** The `webhook-id` (`msg_…`), the same on every attempt. */
  readonly id: string
  /** Its account. */
  readonly accountId: string
  /** The endpoint it goes to. */
  readonly endpointId: string
  /** The event's type. */
  readonly eventType: WebhookEvent['type']
  /** When the event's change happened, epoch ms. */
  readonly eventAt: number
  /** Where it stands. */
  readonly state: WebhookDeliveryState
  /** Attempts made (ended) so far. */
  readonly attempts: number
  /** When the next attempt is due (epoch ms) while `pending`; `null` otherwise. */
  readonly nextAttemptAt: number | null
  /** When the last attempt ended, epoch ms; `null` before the first. */
  readonly lastAttemptAt: number | null
  /** The HTTP status of the last attempt; `null` when none came (a timeout, a refused address). */
  readonly lastStatusCode: number | null
  /** Why the last attempt failed, without secrets; `null` after a success or before the first. */
  readonly lastError: string | null
  /** When it was stored, epoch ms (the event's transaction). */
  readonly createdAt: number
}

/** Which deliveries {@link WebhookStore.listDeliveries} reads: newest first, after a cursor. */
export interface WebhookDeliveryQuery {
  /** Only those to this endpoint. */
  readonly endpointId?: string
  /** Continue after this delivery (older ones). */
  readonly after?: {
    /** The creation time of the last delivery of the page before, epoch ms. */
    readonly createdAt: number
    /** Its id. */
    readonly id: string
  }
  /** At most this many. */
  readonly limit: number
}

/**
 * A delivery a dispatcher claimed and must now attempt, then complete: the event, the
 * endpoint's URL and the secrets that sign it (the previous one only within its overlap).
 */
export interface WebhookDeliveryClaim {
  /** The delivery (`webhook-id`). */
  readonly id: string
  /** Opaque token that proves this dispatcher holds the claim. */
  readonly token: string
  /** Attempts made before this one. */
  readonly attempts: number
  /** The account. */
  readonly accountId: string
  /** The endpoint. */
  readonly endpointId: string
  /** Where to send it. */
  readonly url: string
  /** `false` when the endpoint was disabled meanwhile: the delivery fails without a send. */
  readonly enabled: boolean
  /** The secrets to sign with: the current one, and the previous one while it still signs. */
  readonly secrets: readonly string[]
  /** The event. */
  readonly event: WebhookEvent
}

/** What {@link WebhookStore.claimDeliveries} needs to decide what is due. */
export interface WebhookClaimRequest {
  /** The current time, epoch ms. */
  readonly now: number
  /** How long a claim stays with this dispatcher before another may take the attempt over. */
  readonly leaseMs: number
  /** At most this many claims. */
  readonly limit: number
  /** A fresh random token for this call's claims. */
  readonly token: string
}

/** How one claimed attempt ended, as the dispatcher hands it to {@link WebhookStore.completeDeliveries}. */
export interface WebhookAttemptOutcome {
  /** The delivery. */
  readonly id: string
  /** The claim's token: a completion with another token changes nothing. */
  readonly token: string
  /** When the attempt ended, epoch ms. */
  readonly at: number
  /** Whether the endpoint answered 2xx in time. */
  readonly ok: boolean
  /** The HTTP status, `null` when none came. */
  readonly statusCode: number | null
  /** Why it failed, without secrets; `null` on success. */
  readonly error: string | null
  /** The delivery's next state, and when its next attempt is due while `pending`. */
  readonly state: WebhookDeliveryState
  /** When the next attempt is due (`pending` only). */
  readonly nextAttemptAt: number | null
}

/** A disabled endpoint's email (its admins are told, SPEC §5.53) a runner claimed. */
export interface WebhookNoticeClaim {
  /** The endpoint as stored. */
  readonly endpoint: WebhookEndpointRecord
  /** Opaque token that proves this runner holds the claim. */
  readonly token: string
}

/**
 * The outbox and endpoints of webhooks (SPEC §5.53), a part of a {@link PasscodeStore}
 * (its `webhooks` member): it must be the same storage as the passcodes, because every
 * change that has an event stores the event in its own transaction, with its audit
 * record. The store does that itself at its audit append (the memory store) or through
 * a trigger on the audit table (PostgreSQL, migration 16): one delivery per enabled
 * endpoint of the account that subscribed to the event's type. Its write methods take
 * an optional trailing `audit` entry and its signer (SPEC §5.44), appended in the same
 * transaction.
 *
 * @example
 * ```ts
 * import { memoryStore } from 'passcode-auth/memory'
 *
 * const store = memoryStore()
 * const endpoints = await store.webhooks.listEndpoints('acc_1')
 * ```
 */
export interface WebhookStore {
  /** Stores a new endpoint unless the account holds `maxPerAccount` already (`null` then). Atomic. */
  createEndpoint(record: WebhookEndpointRecord, maxPerAccount: number, audit: AuditAppend): Promise<WebhookEndpointRecord | null>
  /** Applies a patch; `null` when the account has no such endpoint. */
  updateEndpoint(accountId: string, endpointId: string, patch: WebhookEndpointPatch, audit: AuditAppend): Promise<WebhookEndpointRecord | null>
  /** Deletes it and its deliveries; the deleted record, or `null`. */
  deleteEndpoint(accountId: string, endpointId: string, audit: AuditAppend): Promise<WebhookEndpointRecord | null>
  /** One endpoint of the account, or `null`. */
  getEndpoint(accountId: string, endpointId: string): Promise<WebhookEndpointRecord | null>
  /** The account's endpoints, oldest first. */
  listEndpoints(accountId: string): Promise<WebhookEndpointRecord[]>

  /** The account's deliveries, newest first (see {@link WebhookDeliveryQuery}). */
  listDeliveries(accountId: string, query: WebhookDeliveryQuery): Promise<WebhookDeliveryRecord[]>
  /**
   * Makes a delivery due at `now` again, keeping its `webhook-id` and its attempts (a
   * replay is one more attempt: when it fails the delivery is failed again, unless
   * retries were left). `null` when the account has no such delivery.
   */
  replayDelivery(accountId: string, deliveryId: string, now: number): Promise<WebhookDeliveryRecord | null>
  /** Stores `event` for one endpoint only, whatever it subscribed to ("Send test event"); `null` when there is no such endpoint. */
  enqueueTest(accountId: string, endpointId: string, event: WebhookEvent): Promise<WebhookDeliveryRecord | null>

  /**
   * Claims due deliveries (pending, next attempt at or before `now`), oldest due first,
   * and holds each for `leaseMs`: two concurrent callers never receive the same one, and
   * a claim whose dispatcher died is taken over when its lease ends (the same
   * `webhook-id`: at least once). The cost follows what is due, not what is stored (the
   * SQL store reads a partial index of pending deliveries, with `SKIP LOCKED`).
   */
  claimDeliveries(request: WebhookClaimRequest): Promise<WebhookDeliveryClaim[]>
  /**
   * Records how claimed attempts ended, all in one transaction: each delivery whose
   * claim still holds takes its new state; each endpoint that succeeded is healthy
   * again, and one whose every attempt failed since `disableAfterMs` before is disabled
   * (reason `failing`), its admins' email made due and an audit record appended,
   * signed by `signer`. Resolves the endpoints it disabled.
   */
  completeDeliveries(outcomes: readonly WebhookAttemptOutcome[], disableAfterMs: number, signer: AuditSigner): Promise<WebhookEndpointRecord[]>

  /** Claims the emails of endpoints disabled for failing that are not sent and not under a live claim. */
  claimNotices(request: WebhookClaimRequest): Promise<WebhookNoticeClaim[]>
  /** Records that the claimed email was sent, with `audit`; `false` when the claim was lost. */
  completeNotice(claim: WebhookNoticeClaim, sentAt: number, audit: AuditAppend): Promise<boolean>
  /** Gives a claim back after a failed send, so the next pass retries it. */
  releaseNotice(claim: WebhookNoticeClaim): Promise<void>
}
