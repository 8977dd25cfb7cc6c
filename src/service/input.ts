import { z } from 'zod'
import type { AcceptedPasscodes, AccountPasscodeExpiry, Actor, UserPasscodeValidity } from '../core/entities'
import { InvalidInputError } from '../core/errors'
import {
  ACCOUNT_EXPIRY_DAYS,
  checkPasscodeName,
  isVisibleAscii,
  MAX_IDENTIFIER_LENGTH,
  USER_VALIDITY_DAYS,
} from '../core/rules'

const identifier = z
  .string({ error: 'must be a string' })
  .refine(isVisibleAscii, { message: `must be 1 to ${MAX_IDENTIFIER_LENGTH} visible ASCII characters` })

const name = z.string({ error: 'must be a string' }).transform((value, context) => {
  const checked = checkPasscodeName(value)
  if (checked.ok) return checked.name
  context.addIssue({ code: 'custom', message: checked.reason })
  return z.NEVER
})

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
)

const schemas = {
  actor: z.object({
    userId: identifier,
    role: z.enum(['admin', 'member'], { error: 'must be "admin" or "member"' }),
    canWriteUserSettings: z.boolean().optional(),
  }),
  accountId: identifier,
  userId: identifier,
  passcodeId: identifier,
  create: z.strictObject({ name, expiry }),
  update: z
    .strictObject({ name: name.optional(), expiry: expiry.optional() })
    .refine((patch) => patch.name !== undefined || patch.expiry !== undefined, {
      message: 'must change the name, the expiry or both',
    }),
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
  accepted: z.enum(['account', 'user', 'both'], { error: 'must be "account", "user" or "both"' }),
}

type Schemas = typeof schemas

/**
 * Validates one input with its schema; the error names the field (`expiry`,
 * `validity.days`, `actor.role`) and the rule, never the value.
 */
export function parseInput<K extends keyof Schemas>(kind: K, field: string, value: unknown): z.output<Schemas[K]> {
  const result = schemas[kind].safeParse(ownData(value, 0))
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
}

/** Input of `passcodes.update`: at least one field. */
export interface UpdatePasscodeInput {
  readonly name?: string
  /** A new expiry, counted from the moment of the edit. */
  readonly expiry?: AccountPasscodeExpiry
}

/** Input of `userPasscodes.grant`. */
export interface GrantUserPasscodeInput {
  readonly validity: UserPasscodeValidity
}

export type { AcceptedPasscodes, Actor }
