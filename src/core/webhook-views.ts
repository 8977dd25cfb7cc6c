import type { WebhookEvent, WebhookEventType } from './webhook-events'

/**
 * A webhook endpoint as `auth.webhooks` shows it (SPEC §5.53): never its secret, which
 * is shown once, when the endpoint is created or its secret rotated.
 *
 * @example
 * ```ts
 * const [endpoint] = await auth.webhooks.list(admin, 'acc_1')
 * endpoint.events // 'all' or ['passcode.leaked', …]
 * ```
 */
export interface WebhookEndpointView {
  /** Its ID. */
  readonly id: string
  /** Its account. */
  readonly accountId: string
  /** Where deliveries go. */
  readonly url: string
  /** The event types it receives, or `'all'`. */
  readonly events: 'all' | readonly WebhookEventType[]
  /** What it is for; `''` when none. */
  readonly description: string
  /** Whether events reach it. */
  readonly enabled: boolean
  /** `failing` when it was disabled because its attempts failed for 5 days; `null` otherwise. */
  readonly disabledReason: 'failing' | null
  /** Since when every attempt to it failed; `null` while it is healthy. */
  readonly failingSince: Date | null
  /** Until when the secret a rotation replaced still signs (both sign meanwhile); `null` when none does. */
  readonly previousSecretEndsAt: Date | null
  /** When it was created. */
  readonly createdAt: Date
  /** When it was last changed. */
  readonly updatedAt: Date
}

/**
 * One event to one endpoint, as `auth.webhooks.deliveries` lists it: its `webhook-id`,
 * where it stands and how its last attempt ended.
 *
 * @example
 * ```ts
 * const { deliveries } = await auth.webhooks.deliveries(admin, 'acc_1')
 * deliveries[0]?.status // 'succeeded'
 * ```
 */
export interface WebhookDeliveryView {
  /** The `webhook-id` every attempt sends. */
  readonly id: string
  /** The endpoint. */
  readonly endpointId: string
  /** The event's type. */
  readonly eventType: WebhookEvent['type']
  /** When the event's change happened. */
  readonly eventAt: Date
  /** `pending` (its next attempt is due at `nextAttemptAt`), `succeeded` or `failed` (no attempt left). */
  readonly status: 'pending' | 'succeeded' | 'failed'
  /** Attempts made so far. */
  readonly attempts: number
  /** When the next attempt is due; `null` unless pending. */
  readonly nextAttemptAt: Date | null
  /** When the last attempt ended; `null` before the first. */
  readonly lastAttemptAt: Date | null
  /** The HTTP status of the last attempt; `null` when none came. */
  readonly lastStatusCode: number | null
  /** Why the last attempt failed; `null` after a success. */
  readonly lastError: string | null
}
