import { z } from 'zod'
import type { JsonValue } from '../core/entities'
import type { PasscodeView, UserPasscodeView } from '../core/passcode-views'
import { REFILL_INTERVALS } from '../core/limits'
import type { PolicyRule } from '../core/policy'
import { dateTime, nullableDateTime, type AnswerValue, type BothWays, type ReadonlyDeep } from './management-answers'

// The management API's answers about passcodes (SPEC §5.29): the views of account and
// user passcodes, the issued ones (with their value), their lists and their usage.

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
    valueLeaked: z
      .boolean()
      .describe(
        'Its current value was reported leaked (SPEC §5.45): true through an enable, until a rotation replaces it. While this or leak is set, a rotation gives the value no overlap (overlapMinutes other than 0 is refused).',
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
