import type { WebhookStore } from './webhook-store'

/**
 * Webhook endpoints and the event outbox (SPEC §5.53), an optional part of
 * {@link PasscodeStore}.
 *
 * @example
 * ```ts
 * const { webhooks }: WebhooksPart = memoryStore()
 * const endpoints = await webhooks.listEndpoints('acc_1')
 * ```
 */
export interface WebhooksPart {
  /**
   * Webhook endpoints and the event outbox (SPEC §5.53), in this same storage: each
   * change's events are stored in its transaction. Optional for stores written before
   * it; without it `auth.webhooks` throws a `ConfigurationError`.
   */
  readonly webhooks: WebhookStore
}
