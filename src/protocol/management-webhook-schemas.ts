import { z } from 'zod'
import { WEBHOOK_EVENT_TYPES, WEBHOOK_TEST_EVENT } from '../core/webhook-events'
import type { WebhookDeliveryView, WebhookEndpointView } from '../core/webhook-views'
import { dateTime, nullableDateTime, type AnswerValue, type BothWays, type ReadonlyDeep } from './management-answers'

// The management API's answers about webhook endpoints and their deliveries (SPEC §5.53).

/**
 * The event types of an endpoint (SPEC §5.53): `'all'`, or a list of them.
 *
 * @example
 * ```ts
 * webhookEventsSchema.parse(['passcode.leaked']) // ['passcode.leaked']
 * ```
 */
export const webhookEventsSchema = z
  // minItems: an empty list is refused (the service says so in words, webhook-input.ts).
  .union([z.literal('all'), z.array(z.enum(WEBHOOK_EVENT_TYPES)).meta({ minItems: 1 })], {
    error: `must be "all" or a list of event types (${WEBHOOK_EVENT_TYPES.join(', ')})`,
  })
  .describe('The event types it receives, or "all".')

/**
 * A webhook endpoint as the management API shows it (never its secret).
 *
 * @example
 * ```ts
 * webhookEndpointViewSchema.encode(view).createdAt // '2026-01-05T09:00:00.000Z'
 * ```
 */
export const webhookEndpointViewSchema = z
  .object({
    id: z.string(),
    accountId: z.string(),
    url: z.string().describe('Where deliveries go.'),
    events: webhookEventsSchema,
    description: z.string(),
    enabled: z.boolean().describe('Whether events reach it.'),
    disabledReason: z.enum(['failing']).nullable().describe('`failing`: disabled because every attempt failed for 5 days.'),
    failingSince: nullableDateTime('Since when every attempt to it failed; null while healthy.'),
    previousSecretEndsAt: nullableDateTime('Until when the secret a rotation replaced still signs; null when none does.'),
    createdAt: dateTime,
    updatedAt: dateTime,
  })
  .describe('A webhook endpoint (SPEC §5.53), never its secret.')

/**
 * One event to one endpoint: its `webhook-id`, status and last attempt.
 *
 * @example
 * ```ts
 * webhookDeliveryViewSchema.encode(view).status // 'pending'
 * ```
 */
export const webhookDeliveryViewSchema = z
  .object({
    id: z.string().describe('The `webhook-id` every attempt sends.'),
    endpointId: z.string(),
    eventType: z.enum([...WEBHOOK_EVENT_TYPES, WEBHOOK_TEST_EVENT]),
    eventAt: dateTime.describe("When the event's change happened."),
    status: z.enum(['pending', 'succeeded', 'failed']).describe('`failed`: every attempt of the schedule failed.'),
    attempts: z.number().int(),
    nextAttemptAt: nullableDateTime('When the next attempt is due; null unless pending.'),
    lastAttemptAt: nullableDateTime('When the last attempt ended; null before the first.'),
    lastStatusCode: z.number().int().nullable().describe('The HTTP status of the last attempt; null when none came.'),
    lastError: z.string().nullable().describe('Why the last attempt failed; null after a success.'),
  })
  .describe('A webhook delivery (SPEC §5.53).')

const webhookViewsAreTheirSchemas: [
  BothWays<ReadonlyDeep<WebhookEndpointView>, AnswerValue<typeof webhookEndpointViewSchema>>,
  BothWays<ReadonlyDeep<WebhookDeliveryView>, AnswerValue<typeof webhookDeliveryViewSchema>>,
] = [true, true]
// eslint-disable-next-line @typescript-eslint/no-meaningless-void-operator -- the constant exists for its type check only: this marks it used
void webhookViewsAreTheirSchemas

/**
 * `GET /webhooks`: the account's endpoints, oldest first.
 *
 * @example
 * ```ts
 * webhookListSchema.encode({ endpoints: [] })
 * ```
 */
export const webhookListSchema = z.object({ endpoints: z.array(webhookEndpointViewSchema) })

/**
 * An endpoint after an edit.
 *
 * @example
 * ```ts
 * webhookAnswerSchema.encode({ endpoint })
 * ```
 */
export const webhookAnswerSchema = z.object({ endpoint: webhookEndpointViewSchema })

/**
 * The answer that carries an endpoint's signing secret, once (create, rotate).
 *
 * @example
 * ```ts
 * issuedWebhookSchema.encode({ endpoint, secret }).secret.startsWith('whsec_') // true
 * ```
 */
export const issuedWebhookSchema = z
  .object({
    endpoint: webhookEndpointViewSchema,
    secret: z.string().describe('The signing secret (`whsec_…`), in this answer only: give it to the receiver.'),
  })
  .describe('A webhook endpoint and its signing secret (`Cache-Control: no-store`).')

/**
 * `GET /webhook-deliveries`: a page of deliveries, newest first.
 *
 * @example
 * ```ts
 * webhookDeliveryPageSchema.encode({ deliveries: [], nextCursor: null })
 * ```
 */
export const webhookDeliveryPageSchema = z.object({
  deliveries: z.array(webhookDeliveryViewSchema).describe('Newest first.'),
  nextCursor: z.string().nullable().describe('Pass it as `cursor` for the next (older) page; null on the last one.'),
})

/**
 * One delivery (after a replay, or the test event just queued).
 *
 * @example
 * ```ts
 * webhookDeliveryAnswerSchema.encode({ delivery })
 * ```
 */
export const webhookDeliveryAnswerSchema = z.object({ delivery: webhookDeliveryViewSchema })
