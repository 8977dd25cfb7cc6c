import { z } from 'zod'
import { MAX_DESCRIPTION_LENGTH, MAX_IDENTIFIER_LENGTH } from '../../core/rules'
import { WEBHOOK_EVENT_TYPES, type WebhookEventType } from '../../core/webhook-events'
import { webhookEventsSchema } from '../../protocol/management-schemas'
import { descriptionText } from '../input-fields'

/** The longest endpoint URL accepted. */
export const MAX_WEBHOOK_URL_LENGTH = 2048

/** The most endpoints one account may register. */
export const MAX_WEBHOOK_ENDPOINTS = 20

const URL_RULE = 'must be an absolute http or https URL without user name, password or fragment'

/** An endpoint's URL: http(s), absolute, no credentials, no fragment; kept as the URL parser writes it. */
const url = z
  .string({ error: URL_RULE })
  .max(MAX_WEBHOOK_URL_LENGTH, `must be at most ${MAX_WEBHOOK_URL_LENGTH} characters`)
  .transform((text, context) => {
    let parsed: URL
    try {
      parsed = new URL(text)
    } catch {
      context.addIssue({ code: 'custom', message: URL_RULE })
      return z.NEVER
    }
    const fine = (parsed.protocol === 'https:' || parsed.protocol === 'http:') && parsed.username === '' && parsed.password === ''
    if (!fine || parsed.hash !== '' || text.includes('#') || parsed.hostname === '') {
      context.addIssue({ code: 'custom', message: URL_RULE })
      return z.NEVER
    }
    return parsed.href
  })
  // For the OpenAPI document: http(s), then an authority without credentials, then no fragment (the parser above is the rule).
  .meta({ pattern: '^[Hh][Tt][Tt][Pp][Ss]?://[^/?#@\\s]+(?:[/?][^#]*)?$' })
  .describe(`Where deliveries go: an absolute http or https URL, at most ${MAX_WEBHOOK_URL_LENGTH} characters, no credentials, no fragment.`)

/** `'all'` → `null` (every type); a list → its types once each, in the order of WEBHOOK_EVENT_TYPES. */
const events = webhookEventsSchema.transform((value, context): readonly WebhookEventType[] | null => {
  if (value === 'all') return null
  if (value.length === 0) {
    context.addIssue({ code: 'custom', message: 'must name at least one event type, or be "all"' })
    return z.NEVER
  }
  return WEBHOOK_EVENT_TYPES.filter((type) => value.includes(type))
})

const description = descriptionText.describe(`What the endpoint is for: 0 to ${MAX_DESCRIPTION_LENGTH} characters; null or '' clears it.`)

/** Whether deliveries go to the endpoint; the descriptions of create and update say when. */
const enabled = z.boolean({ error: 'must be true or false' })

const IDENTIFIER_RULE = `must be 1 to ${MAX_IDENTIFIER_LENGTH} visible ASCII characters`

const LIMIT_RULE = 'must be a whole number from 1 to 100'

/**
 * Which deliveries to list: `auth.webhooks.deliveries`' options, and the query
 * parameters of the management API's `GET /webhook-deliveries`.
 *
 * @example
 * ```ts
 * parseQuery(webhookDeliveriesQuerySchema, 'limit=20') // { limit: 20 }
 * ```
 */
export const webhookDeliveriesQuerySchema = z.strictObject({
  endpointId: z
    .string({ error: IDENTIFIER_RULE })
    .min(1, IDENTIFIER_RULE)
    .max(MAX_IDENTIFIER_LENGTH, IDENTIFIER_RULE)
    .optional()
    .describe('Only the deliveries to this endpoint.'),
  cursor: z
    .string({ error: 'is not a cursor this service gave' })
    .min(1, 'must not be empty')
    .max(200, 'is not a cursor this service gave')
    .optional()
    .describe('The `nextCursor` of the previous page.'),
  limit: z.int({ error: LIMIT_RULE }).min(1, LIMIT_RULE).max(100, LIMIT_RULE).optional().describe('Deliveries per page, 1 to 100; 25 when absent.'),
})

/**
 * The inputs of `auth.webhooks` (SPEC §5.53), also the request bodies of the management
 * API's webhook routes and of its OpenAPI document.
 *
 * @example
 * ```ts
 * webhookInputSchemas.create.parse({ url: 'https://hooks.example.com/passcodes', events: 'all' })
 * ```
 */
export const webhookInputSchemas = {
  id: z
    .string({ error: 'must be a string' })
    .min(1, IDENTIFIER_RULE)
    .max(MAX_IDENTIFIER_LENGTH, IDENTIFIER_RULE)
    .regex(/^[\x21-\x7E]*$/, IDENTIFIER_RULE),
  create: z.strictObject({
    url,
    events,
    description: description.optional(),
    enabled: enabled.optional().describe('false registers it disabled: it receives nothing until enabled. true when absent.'),
  }),
  update: z
    .strictObject({
      url: url.optional(),
      events: events.optional(),
      description: description.optional(),
      enabled: enabled.optional().describe('false stops deliveries; true starts them again.'),
    })
    .refine((patch) => Object.keys(patch).length > 0, { message: 'must change at least one field' })
    .meta({ minProperties: 1 }),
  deliveries: webhookDeliveriesQuerySchema.optional(),
}

/**
 * What `auth.webhooks.create` takes.
 *
 * @example
 * ```ts
 * const input: CreateWebhookInput = { url: 'https://hooks.example.com/passcodes', events: ['passcode.leaked'] }
 * const paused: CreateWebhookInput = { url: 'https://hooks.example.com/later', events: 'all', enabled: false }
 * ```
 */
export interface CreateWebhookInput {
  /** Where deliveries go (http or https; see SPEC §5.53 for the addresses refused). */
  readonly url: string
  /** The event types it receives, or `'all'`. */
  readonly events: 'all' | readonly WebhookEventType[]
  /** What it is for. @default '' */
  readonly description?: string | null
  /**
   * `false` registers it disabled (`disabledReason` null, as a disable by an admin leaves
   * it): it receives nothing until `update` enables it. @default true
   */
  readonly enabled?: boolean
}

/**
 * What `auth.webhooks.update` takes: at least one field.
 *
 * @example
 * ```ts
 * const patch: UpdateWebhookInput = { enabled: true }
 * ```
 */
export interface UpdateWebhookInput {
  /** A new URL. */
  readonly url?: string
  /** New event types, or `'all'`. */
  readonly events?: 'all' | readonly WebhookEventType[]
  /** A new description; `null` or `''` clears it. */
  readonly description?: string | null
  /** `false` stops deliveries (pending ones fail); `true` starts them again and clears a `failing` state. */
  readonly enabled?: boolean
}

/**
 * Which deliveries `auth.webhooks.deliveries` lists.
 *
 * @example
 * ```ts
 * const page = await auth.webhooks.deliveries(admin, 'acc_1', { endpointId, limit: 20 })
 * ```
 */
export interface WebhookDeliveriesOptions {
  /** Only those to this endpoint. */
  readonly endpointId?: string
  /** The `nextCursor` of the page before. */
  readonly cursor?: string
  /** Page size, 1 to 100. @default 25 */
  readonly limit?: number
}
