/**
 * For receivers of passcode-auth's webhooks (SPEC §5.53): `verifyWebhook`, which checks a
 * delivery's Standard Webhooks signature and timestamp, and the event types. Light and
 * without Node-only APIs: it runs in browsers, edge runtimes and Node.
 *
 * @module passcode-auth/webhooks
 */
export { verifyWebhook, WebhookVerificationError } from './verify-webhook'
export type { VerifiedWebhook, VerifyWebhookOptions, WebhookHeaders, WebhookVerificationReason } from './verify-webhook'
export { WEBHOOK_EVENT_TYPES, WEBHOOK_TEST_EVENT } from '../core/webhook-events'
export type { WebhookEventType, WebhookJson } from '../core/webhook-events'
