import { z } from 'zod'
import type { JsonValue, PasscodeView, UserPasscodeView } from '../core/entities'
import { POLICY_LIFETIME_DAYS, type PolicyRule } from '../core/policy'
import { REFILL_INTERVALS } from '../core/limits'
import { WEBHOOK_EVENT_TYPES, WEBHOOK_TEST_EVENT } from '../core/webhook-events'
import type { WebhookDeliveryView, WebhookEndpointView } from '../core/webhook-views'

/*
 * The bodies the management API (SPEC §5.29) answers with, as zod schemas: the routes
 * (src/http/management/routes.ts) write every success body through `encodeAnswer` with
 * these, so a field reaches the wire only if it is here, and `npm run openapi`
 * (scripts/management-openapi.ts) turns the same schemas into docs/management-openapi.json.
 * The request bodies are the service's input schemas (src/service/input.ts); the error
 * body is in management-errors.ts, beside the one code → status table.
 *
 * A schema's input is the JSON on the wire, its output what the service returns (a
 * `Date` where the wire has an ISO 8601 text). Objects are not strict: a client should
 * accept fields added later.
 */

/** A moment: an ISO 8601 UTC text on the wire, a `Date` in the service's views. */
const dateTime = z.codec(z.iso.datetime(), z.date(), {
  decode: (text) => new Date(text),
  encode: (date) => date.toISOString(),
})

const nullableDateTime = (description: string) => dateTime.nullable().describe(description)

/**
 * Which passcodes an account accepts on its API (SPEC §5.11): in `PUT /account`'s body,
 * in its answer, and as the service's `accepted` input (src/service/input.ts).
 *
 * @example
 * ```ts
 * acceptedPasscodesSchema.parse('both') // 'both'
 * ```
 */
export const acceptedPasscodesSchema = z
  .enum(['account', 'user', 'both'], { error: 'must be "account", "user" or "both"' })
  .describe('Which passcodes the account accepts on its API.')

/**
 * The body of `PUT /account`.
 *
 * @example
 * ```ts
 * setAcceptedPasscodesBodySchema.parse({ acceptedPasscodes: 'user' })
 * ```
 */
export const setAcceptedPasscodesBodySchema = z.strictObject({ acceptedPasscodes: acceptedPasscodesSchema })

const status = z
  .enum(['active', 'expiring_soon', 'expired', 'revoked', 'disabled'])
  .describe('At the time of the answer; `expiring_soon`: 30 days or fewer left; `disabled`: refused everywhere until enabled.')

const partnerNames = z.array(z.string())

// Restricted passcodes (SPEC §5.48, §5.49, §5.51, §5.52): the fields both views share.
const policyRule = z.enum(['maxLifetimeDays', 'requireExpiry', 'requireDescription'] satisfies PolicyRule[])
const restrictions = {
  scopes: z.array(z.string()).nullable().describe('The scopes it was given (SPEC §5.48); null: every scope the host declares.'),
  unknownScopes: z.array(z.string()).describe('Those of `scopes` the host no longer declares: they grant nothing.'),
  allowedAddresses: z.array(z.string()).describe('The CIDR ranges it may be used from (SPEC §5.49); empty: any address.'),
  policyViolations: z
    .array(policyRule)
    .describe("The rules of the account's policy it breaks (SPEC §5.52): made before the policy, it keeps working."),
  violatesPolicy: z.boolean().describe("Whether it breaks the account's policy (`policyViolations` is not empty)."),
}
/** Any JSON value, as metadata holds it (not a recursive schema: OpenAPI tools resolve it poorly). */
const jsonValue = z.unknown().describe('A JSON value.') as z.ZodType<JsonValue>

const lastUse = {
  lastUsedAt: nullableDateTime(
    'When it last authenticated successfully (recorded about once a minute); null if never. A refused request, a `/v1/connect` refused for its partner included, is no use.',
  ),
  lastUsedPartner: z
    .string()
    .nullable()
    .describe('The partner of that same request (a `/v1/connect` that reached it); null when it had none (a protected route) or never used.'),
  unused: z.boolean().describe('Never used, or not used for 90 days: a candidate for deletion.'),
}

/** Where a passcode's value was found in public (SPEC §5.42), or null. */
const leak = z
  .object({
    reportedAt: dateTime.describe('When the leak was reported.'),
    url: z.string().nullable().describe('Where the value was found, when the report said.'),
    source: z.string().describe('Who found it: github, a scanner, a support ticket.'),
  })
  .nullable()

// Limits and credits (SPEC §5.50): the same two fields on both views.
const limitFields = {
  rateLimit: z
    .object({
      max: z.int().describe('Requests admitted per window, across every instance.'),
      windowSeconds: z.int().describe('The fixed window, in seconds, aligned on the epoch (UTC).'),
    })
    .nullable()
    .describe('Its rate limit; null for none.'),
  credits: z
    .object({
      remaining: z
        .int()
        .min(0)
        .describe(
          'Credits the store holds now: exact at rest; while in use, short by at most what the instances hold (returned within seconds of going quiet).',
        ),
      refill: z
        .object({ amount: z.int().min(0), interval: z.enum(REFILL_INTERVALS) })
        .nullable()
        .describe('At the start of each UTC interval the balance is set to `amount`; null: never refilled.'),
      nextRefillAt: nullableDateTime('When the next refill happens; null without a refill.'),
    })
    .nullable()
    .describe('Its credits: one per admitted request, 429 when none is left; null for none.'),
}

/**
 * An account passcode as the management API shows it (no value, no hash).
 *
 * @example
 * ```ts
 * passcodeViewSchema.encode(view).createdAt // '2026-01-05T09:00:00.000Z'
 * ```
 */
export const passcodeViewSchema = z
  .object({
    id: z.string(),
    accountId: z.string(),
    name: z.string(),
    description: z.string().describe('What the passcode is for: 0 to 500 characters, newlines kept; empty when none.'),
    hint: z.string().describe('Prefix and last 4 characters of the value.'),
    expiry: z.union([z.int(), z.literal('forever')]).describe('As chosen: whole days, counted from creation or the last edit, or "forever".'),
    createdAt: dateTime,
    updatedAt: dateTime.describe('The last edit or rotation.'),
    expiresAt: nullableDateTime('null for "forever".'),
    status,
    partners: partnerNames.nullable().describe('The partners it is bound to (trimmed, lower-cased); null: every whitelisted partner.'),
    partnersNotWhitelisted: partnerNames.describe('Bound partners that are no longer whitelisted; empty when unbound.'),
    disabledAt: nullableDateTime('When it was disabled (SPEC §5.38); null while enabled.'),
    previousValueEndsAt: nullableDateTime('Until when the value replaced by the last rotation still works; null when it no longer does.'),
    ...lastUse,
    leak: leak.describe(
      'Where its value was found in public (SPEC §5.42); null once an admin enables, rotates or deletes it, or when it never leaked.',
    ),
    ...restrictions,
    metadata: z
      .record(z.string(), jsonValue)
      .nullable()
      .describe("The host's own data about it (SPEC §5.51), at most 1 KiB as JSON, returned on the principal; null when none."),
    tags: z.array(z.string()).describe('Its tags (SPEC §5.51), lower case; empty when none.'),
    ...limitFields,
  })
  .describe('An account passcode (never its value).')

/**
 * A user passcode as the management API shows it (no value, no hash).
 *
 * @example
 * ```ts
 * userPasscodeViewSchema.encode(view).grantedAt // '2026-01-05T09:00:00.000Z'
 * ```
 */
export const userPasscodeViewSchema = z
  .object({
    accountId: z.string(),
    userId: z.string(),
    hint: z.string().describe('Prefix and last 4 characters of the value.'),
    validity: z
      .discriminatedUnion('type', [z.object({ type: z.literal('finite'), days: z.int() }), z.object({ type: z.literal('infinite') })])
      .describe('Chosen at grant, kept by resets; `infinite` is 10 calendar years.'),
    grantedAt: dateTime.describe('The grant or the last reset.'),
    expiresAt: dateTime,
    revokedAt: nullableDateTime('null while not revoked.'),
    status,
    ...lastUse,
    leak: leak.describe(
      'Where its value was found in public (SPEC §5.42), which revoked it; null once an admin grants the user a new one or resets it, or when it never leaked.',
    ),
    ...restrictions,
    ...limitFields,
  })
  .describe('A user passcode (never its value).')

const issued = <View extends z.ZodType>(view: View) =>
  z.object({ passcode: view, value: z.string().describe('The passcode value, in this answer only: the service keeps only its hash.') })

// The service's views and these schemas have the same fields and types: encoding drops a
// field the schema does not list, so a field added to a view without its schema, or the
// other way round, fails to compile here.
type BothWays<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false
const viewsAreTheirSchemas: [
  BothWays<ReadonlyDeep<PasscodeView>, AnswerValue<typeof passcodeViewSchema>>,
  BothWays<ReadonlyDeep<UserPasscodeView>, AnswerValue<typeof userPasscodeViewSchema>>,
] = [true, true]
// eslint-disable-next-line @typescript-eslint/no-meaningless-void-operator -- the constant exists for its type check only: this marks it used
void viewsAreTheirSchemas

/**
 * The answer that carries a new account passcode's value, once (create, rotate).
 *
 * @example
 * ```ts
 * issuedPasscodeSchema.encode({ passcode: view, value })
 * ```
 */
export const issuedPasscodeSchema = issued(passcodeViewSchema).describe('A new account passcode and its value (`Cache-Control: no-store`).')

/**
 * The answer that carries the caller's own user passcode value.
 *
 * @example
 * ```ts
 * issuedUserPasscodeSchema.encode({ passcode: view, value })
 * ```
 */
export const issuedUserPasscodeSchema = issued(userPasscodeViewSchema).describe(
  "The caller's user passcode and its value (`Cache-Control: no-store`).",
)

/**
 * `GET /passcodes`: every passcode of the account, expired ones included.
 *
 * @example
 * ```ts
 * passcodeListSchema.encode({ passcodes: views })
 * ```
 */
export const passcodeListSchema = z.object({ passcodes: z.array(passcodeViewSchema) })

const count = z.int().min(0)
const usageDaySchema = z
  .object({
    date: z.string().describe('The UTC day, `YYYY-MM-DD`.'),
    succeeded: count.describe('Requests that authenticated (on `/v1/connect`: and reached their partner).'),
    expired: count.describe('Refused: the passcode had expired.'),
    disabled: count.describe('Refused: the account passcode was disabled.'),
    revoked: count.describe('Refused: the user passcode was revoked.'),
    wrongPartner: count.describe('`/v1/connect` refused: no partner, one off the whitelist, or one outside the binding.'),
    rotatedOut: count.describe('Refused: a value a rotation replaced, after its overlap ended.'),
    missingScope: count.describe('Refused with 403: a route needed a scope the passcode lacks (SPEC §5.48).'),
    address: count.describe('Refused with 403: from an address outside its ranges (SPEC §5.49).'),
    rateLimited: count.describe('Refused with 429: over its rate limit (SPEC §5.50).'),
    creditsExhausted: count.describe('Refused with 429: its credits were exhausted (SPEC §5.50).'),
    partners: z
      .array(z.object({ partner: z.string(), succeeded: count, wrongPartner: count }))
      .describe('`/v1/connect` per whitelisted partner (normalised name), most requests first.'),
  })
  .describe("One UTC day of a passcode's requests (SPEC §5.41).")

/**
 * A passcode's usage over time (`GET /passcodes/:id/usage`, `GET /users/:userId/passcode/usage`):
 * the kept days with requests, oldest first, as of each instance's last usage flush.
 *
 * @example
 * ```ts
 * usageAnswerSchema.encode({ usage: await auth.passcodes.usage(actor, accountId, passcodeId) })
 * ```
 */
export const usageAnswerSchema = z.object({
  usage: z
    .object({
      from: z.string().describe('The first day kept, `YYYY-MM-DD`.'),
      to: z.string().describe('Today (UTC), `YYYY-MM-DD`.'),
      days: z.array(usageDaySchema).describe('Days with at least one counted request, oldest first.'),
    })
    .describe('Usage over time: successes and refusals that matched the passcode, per UTC day.'),
})

/**
 * One account passcode's new view (edit).
 *
 * @example
 * ```ts
 * passcodeAnswerSchema.encode({ passcode: view })
 * ```
 */
export const passcodeAnswerSchema = z.object({ passcode: passcodeViewSchema })

/**
 * One user passcode's view (read, grant, reset).
 *
 * @example
 * ```ts
 * userPasscodeAnswerSchema.encode({ passcode: view })
 * ```
 */
export const userPasscodeAnswerSchema = z.object({ passcode: userPasscodeViewSchema })

/**
 * `GET /users`: the user passcodes, joined with the host's directory when it has one.
 *
 * @example
 * ```ts
 * userListSchema.encode({ users: [{ id: 'u_1', inDirectory: true, passcode: null }], directory: true })
 * ```
 */
export const userListSchema = z.object({
  users: z.array(
    z.object({
      id: z.string(),
      name: z.string().optional().describe("From the host's directory."),
      email: z.string().optional().describe("From the host's directory."),
      inDirectory: z.boolean().describe("Whether the host's directory lists the user; false without a directory."),
      passcode: userPasscodeViewSchema.nullable(),
    }),
  ),
  directory: z.boolean().describe('Whether the host gave a user directory.'),
})

/**
 * `GET /account` and `PUT /account`: the account's setting and what the caller may do.
 *
 * @example
 * ```ts
 * accountAnswerSchema.encode({ account: { id: 'acc_1', acceptedPasscodes: 'both' }, actor })
 * ```
 */
export const accountAnswerSchema = z
  .object({
    account: z.object({
      id: z.string(),
      acceptedPasscodes: acceptedPasscodesSchema,
    }),
    actor: z.object({
      userId: z.string(),
      role: z.enum(['admin', 'member']),
      canManagePasscodes: z.boolean(),
      canManageUsers: z.boolean(),
    }),
  })
  .describe("The account's setting and what the signed-in user may do.")

/**
 * `GET /account/policy`, `PUT /account/policy` and `DELETE /account/policy` (SPEC §5.52):
 * the policy the account's passcodes must follow, its own or the host's default.
 *
 * @example
 * ```ts
 * accountPolicyAnswerSchema.encode({ policy: { maxLifetimeDays: 90, requireExpiry: true, requireDescription: false, source: 'account' } })
 * ```
 */
export const accountPolicyAnswerSchema = z
  .object({
    policy: z.object({
      maxLifetimeDays: z
        .int()
        .min(POLICY_LIFETIME_DAYS.min)
        .max(POLICY_LIFETIME_DAYS.max)
        .nullable()
        .describe("The longest a passcode may live, in days; null: no maximum (a user passcode's Infinite counts as 10 years)."),
      requireExpiry: z.boolean().describe('No account passcode without an expiry ("Forever" refused).'),
      requireDescription: z.boolean().describe('No account passcode without a description.'),
      source: z.enum(['account', 'default']).describe("`account`: the account's admins set it; `default`: the host's `policy` option applies."),
    }),
  })
  .describe(
    "The account's passcode policy. Creates, edits, grants and resets that break it are refused (400 naming the field and the rule); passcodes made before it keep working and are marked `violatesPolicy`.",
  )

/**
 * `GET /partners`: the operator's partner whitelist, read-only.
 *
 * @example
 * ```ts
 * partnerListSchema.encode({ partners: ['acme'], listed: true })
 * ```
 */
export const partnerListSchema = z.object({
  partners: partnerNames,
  listed: z.boolean().describe('false when the registry cannot list its names (then `partners` is empty).'),
})

/**
 * `GET /scopes`: the scopes the host declares (SPEC §5.48), read-only, in its order.
 *
 * @example
 * ```ts
 * scopeListSchema.encode({ scopes: [{ name: 'events:read', description: 'Read events' }] })
 * ```
 */
export const scopeListSchema = z.object({
  scopes: z
    .array(
      z.object({
        name: z.string().describe('What `scopes` of a passcode and a route name.'),
        description: z.string().describe("The host's words for what it lets a passcode do."),
      }),
    )
    .describe('Empty when the host declares none: then every passcode grants everything, and `scopes` can only be null.'),
})

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

/**
 * The JSON of an answer as a client reads it: the schema's input side, instants as ISO
 * 8601 texts. A type only: the dashboard's browser script imports it with `import type`,
 * so no zod reaches its bundle.
 *
 * @example
 * ```ts
 * type PasscodeJson = AnswerJson<typeof passcodeViewSchema>
 * const expires: string | null = ({} as PasscodeJson).expiresAt
 * ```
 */
export type AnswerJson<Schema extends z.ZodType> = z.input<Schema>

/** Any answer schema of this module, for code that may not import zod itself. */
export type AnswerSchema = z.ZodType

/** What a route hands to {@link encodeAnswer}: the schema's output, arrays possibly read-only. */
export type AnswerValue<Schema extends z.ZodType> = ReadonlyDeep<z.output<Schema>>

type ReadonlyDeep<T> = T extends Date
  ? T
  : T extends readonly (infer Item)[]
    ? readonly ReadonlyDeep<Item>[]
    : T extends object
      ? { readonly [Key in keyof T]: ReadonlyDeep<T[Key]> }
      : T

/**
 * The JSON body of an answer: `value` written through its schema, so the wire holds
 * exactly the schema's fields (dates as ISO 8601 texts). Throws if `value` does not fit,
 * which the management API answers as a 500 `ERR_INTERNAL`.
 *
 * @example
 * ```ts
 * encodeAnswer(partnerListSchema, { partners: ['acme'], listed: true }) // { partners: ['acme'], listed: true }
 * ```
 */
export function encodeAnswer<Schema extends z.ZodType>(schema: Schema, value: AnswerValue<Schema>): z.input<Schema> {
  return z.encode(schema, value as z.output<Schema>)
}
