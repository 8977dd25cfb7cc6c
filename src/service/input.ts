import { z } from 'zod'
import type { AcceptedPasscodes, AccountPasscodeExpiry, Actor, UserPasscodeValidity } from '../core/entities'
import { InvalidInputError } from '../core/errors'
import { acceptedPasscodesSchema } from '../protocol/management-schemas'
import {
  ACCOUNT_EXPIRY_DAYS,
  checkPasscodeName,
  isPartnerNameLookable,
  MAX_BOUND_PARTNERS,
  MAX_IDENTIFIER_LENGTH,
  MAX_NAME_LENGTH,
  MAX_PARTNER_NAME_LENGTH,
  ROTATION_OVERLAP_MINUTES,
  USER_VALIDITY_DAYS,
} from '../core/rules'

// isVisibleAscii (core/rules.ts) in checks that JSON Schema can show: minLength, maxLength, pattern.
const IDENTIFIER_RULE = `must be 1 to ${MAX_IDENTIFIER_LENGTH} visible ASCII characters`
const identifier = z
  .string({ error: 'must be a string' })
  .min(1, IDENTIFIER_RULE)
  .max(MAX_IDENTIFIER_LENGTH, IDENTIFIER_RULE)
  .regex(/^[\x21-\x7E]*$/, IDENTIFIER_RULE)

const name = z
  .string({ error: 'must be a string' })
  .transform((value, context) => {
    const checked = checkPasscodeName(value)
    if (checked.ok) return checked.name
    context.addIssue({ code: 'custom', message: checked.reason })
    return z.NEVER
  })
  .describe(`1 to ${MAX_NAME_LENGTH} characters once trimmed, none invisible; unique in the account, case-insensitively.`)

const expiry = z.union(
  [
    z.literal('forever'),
    z
      .number()
      .int('must be a whole number of days')
      .min(ACCOUNT_EXPIRY_DAYS.min, `must be at least ${ACCOUNT_EXPIRY_DAYS.min} day`)
      .max(ACCOUNT_EXPIRY_DAYS.max, `must be at most ${ACCOUNT_EXPIRY_DAYS.max} days`),
  ],
  { error: `must be a whole number of days (${ACCOUNT_EXPIRY_DAYS.min} to ${ACCOUNT_EXPIRY_DAYS.max}) or "forever"` },
).describe('Whole days from now, or "forever".')

const partnerName = z
  .string({ error: 'must be a list of partner names' })
  .trim()
  .min(1, 'must not hold a blank partner name')
  .refine(isPartnerNameLookable, {
    message: `must hold partner names of at most ${MAX_PARTNER_NAME_LENGTH} characters without control characters`,
  })
  .describe(`A whitelisted partner's name, compared trimmed and case-insensitively: at most ${MAX_PARTNER_NAME_LENGTH} characters, no control characters.`)

// null: unbound. An empty list would make a passcode that works for no partner.
const partners = z
  .array(partnerName, { error: 'must be a list of whitelisted partner names, or null' })
  .min(1, 'must name at least one partner (null unbinds)')
  .max(MAX_BOUND_PARTNERS, `must name at most ${MAX_BOUND_PARTNERS} partners`)
  .nullable()

/**
 * The schema of each input of the management operations, by kind. {@link parseInput}
 * checks with them; scripts/management-openapi.ts turns the request bodies among them
 * into docs/management-openapi.json. Not part of the package's entry points.
 *
 * @example
 * ```ts
 * inputSchemas.rotate.safeParse({ overlapMinutes: 60 }).success // true
 * ```
 */
export const inputSchemas = {
  actor: z.object({
    userId: identifier,
    role: z.enum(['admin', 'member'], { error: 'must be "admin" or "member"' }),
    canWriteUserSettings: z.boolean().optional(),
    requestId: z.string({ error: 'must be a string' }).max(200, 'must be at most 200 characters').optional(),
    clientAddress: z.string({ error: 'must be a string' }).max(100, 'must be at most 100 characters').optional(),
  }),
  accountId: identifier,
  userId: identifier,
  passcodeId: identifier,
  create: z.strictObject({ name, expiry, partners: partners.optional() }),
  update: z
    .strictObject({ name: name.optional(), expiry: expiry.optional(), partners: partners.optional() })
    .refine((patch) => patch.name !== undefined || patch.expiry !== undefined || patch.partners !== undefined, {
      message: 'must change the name, the expiry or the partners',
    })
    .describe('At least one of `name`, `expiry`, `partners`; `partners: null` unbinds.'),
  rotate: z.strictObject(
    {
      overlapMinutes: z
        .number({ error: `must be a whole number of minutes (${ROTATION_OVERLAP_MINUTES.min} to ${ROTATION_OVERLAP_MINUTES.max})` })
        .int('must be a whole number of minutes')
        .min(ROTATION_OVERLAP_MINUTES.min, `must be at least ${ROTATION_OVERLAP_MINUTES.min}`)
        .max(ROTATION_OVERLAP_MINUTES.max, `must be at most ${ROTATION_OVERLAP_MINUTES.max} (7 days)`),
    },
    { error: 'must be { overlapMinutes }' },
  ),
  list: z
    .strictObject({ sortBy: z.enum(['createdAt', 'lastUsedAt'], { error: 'must be "createdAt" or "lastUsedAt"' }).optional() })
    .optional(),
  grant: z.strictObject({
    validity: z.discriminatedUnion(
      'type',
      [
        z.strictObject({
          type: z.literal('finite'),
          days: z
            .number()
            .int('must be a whole number of days')
            .min(USER_VALIDITY_DAYS.min, `must be at least ${USER_VALIDITY_DAYS.min} day`)
            .max(USER_VALIDITY_DAYS.max, `must be at most ${USER_VALIDITY_DAYS.max} days`),
        }),
        z.strictObject({ type: z.literal('infinite') }),
      ],
      { error: 'must be { type: "finite", days } or { type: "infinite" }' },
    ),
  }),
  accepted: acceptedPasscodesSchema,
}

type Schemas = typeof inputSchemas

/**
 * Validates one input with its schema; the error names the field (`expiry`,
 * `validity.days`, `actor.role`) and the rule, never the value.
 */
export function parseInput<K extends keyof Schemas>(kind: K, field: string, value: unknown): z.output<Schemas[K]> {
  const result = inputSchemas[kind].safeParse(ownData(value, 0))
  if (result.success) return result.data as z.output<Schemas[K]>
  const issue = result.error.issues[0]!
  const path = [field, ...issue.path.map(String)].filter((part) => part !== '').join('.')
  throw new InvalidInputError(path || 'input', issueMessage(issue))
}

function issueMessage(issue: z.core.$ZodIssue): string {
  if (issue.code === 'unrecognized_keys') return `unknown field ${issue.keys.map((k) => `"${k}"`).join(', ')}`
  // zod's own text would read "Invalid input: Invalid input: expected object, received null".
  if (issue.code === 'invalid_type' && issue.expected === 'object') return 'must be an object'
  return issue.message
}

/**
 * The input's own enumerable properties only, copied: a `role: 'admin'` inherited from a
 * prototype is not the actor's role (zod reads inherited properties too), and a getter
 * cannot answer differently to the check and to the use.
 */
function ownData(value: unknown, depth: number): unknown {
  if (typeof value !== 'object' || value === null || depth > 4) return value
  if (Array.isArray(value)) return value.map((item) => ownData(item, depth + 1))
  const copy: Record<string, unknown> = {}
  for (const key of Object.keys(value)) copy[key] = ownData((value as Record<string, unknown>)[key], depth + 1)
  return copy
}

/** Input of `passcodes.create`. */
export interface CreatePasscodeInput {
  /** 1 to 64 characters after trimming; unique in the account, case-insensitively. */
  readonly name: string
  /** Whole days (1 to 3650) or `'forever'`. */
  readonly expiry: AccountPasscodeExpiry
  /**
   * Whitelisted partners the passcode works for on `/v1/connect` (compared trimmed and
   * case-insensitively); `null` or absent: every whitelisted partner. Never empty.
   * @default null
   */
  readonly partners?: readonly string[] | null
}

/** Input of `passcodes.update`: at least one field. */
export interface UpdatePasscodeInput {
  /** A new name, unique in the account. */
  readonly name?: string
  /** A new expiry, counted from the moment of the edit. */
  readonly expiry?: AccountPasscodeExpiry
  /** A new binding to whitelisted partners, or `null` to unbind. Takes effect at once on every instance. */
  readonly partners?: readonly string[] | null
}

/** Input of `passcodes.rotate`. */
export interface RotatePasscodeInput {
  /**
   * How long the value being replaced keeps working, in whole minutes: 0 (it stops at
   * once) to 10 080 (7 days). Required: there is no default overlap.
   */
  readonly overlapMinutes: number
}

/** Options of `passcodes.list`. */
export interface ListPasscodesOptions {
  /**
   * `createdAt`: oldest first. `lastUsedAt`: least recently used first, never-used
   * ones at the top (oldest created first among them), so unused passcodes stand out.
   * @default 'createdAt'
   */
  readonly sortBy?: 'createdAt' | 'lastUsedAt'
}

/** Input of `userPasscodes.grant`. */
export interface GrantUserPasscodeInput {
  /** `{ type: 'finite', days }` (1 to 365) or `{ type: 'infinite' }` (10 years). */
  readonly validity: UserPasscodeValidity
}

export type { AcceptedPasscodes, Actor }
