import { z } from 'zod'
import { MAX_TAGS } from '../core/restrictions'
import { InvalidInputError } from '../core/errors'
import { ownData, printableName } from '../core/own-data'
import { acceptedPasscodesSchema, setAcceptedPasscodesBodySchema } from '../protocol/management-schemas'
import { ROTATION_OVERLAP_MINUTES, USER_VALIDITY_DAYS } from '../core/rules'
import type { AcceptedPasscodes, Actor } from '../core/entities'
import { description, expiry, identifier, name, partners } from './input-fields'
import { credits, rateLimit } from './input-limits'
import { allowedAddresses, metadata, policy, scopes, tag, tags } from './input-restrictions'

// How a list of passcodes is ordered: by `auth.passcodes.list` and `GET /passcodes?sortBy=`.
const listSortBy = z
  .enum(['createdAt', 'lastUsedAt', 'creditsRemaining'], { error: 'must be "createdAt", "lastUsedAt" or "creditsRemaining"' })
  .describe(
    'The order: newest first (`createdAt`, the default), most recently used first, or fewest credits left first (`creditsRemaining`, SPEC §5.50: passcodes without credits last).',
  )

/**
 * The query parameters of the management API's `GET /passcodes`: the order (SPEC §5.50),
 * `tags` (repeated: passcodes with every one) and `search` (name, description or a tag
 * holding the text, any case; SPEC §5.51). A tag's form is the service's rule, checked
 * by `auth.passcodes.list`.
 *
 * @example
 * ```ts
 * parseQuery(passcodeListQuerySchema, 'tags=billing&tags=eu&search=acme&sortBy=creditsRemaining', ['tags'])
 * // { tags: ['billing', 'eu'], search: 'acme', sortBy: 'creditsRemaining' }
 * ```
 */
export const passcodeListQuerySchema = z.strictObject({
  sortBy: listSortBy.optional(),
  tags: z
    .array(z.string().min(1, 'must be 1 to 32 characters').max(32, 'must be 1 to 32 characters'))
    .max(20, 'must hold at most 20 tags')
    .optional()
    .describe('Only passcodes with this tag; repeat the parameter for passcodes with every one given (up to 20, 1 to 32 characters each).'),
  search: z
    .string()
    .max(200, 'must be at most 200 characters')
    .optional()
    .describe('Only passcodes whose name, description or a tag holds this text, compared in lower case (up to 200 characters).'),
})

/** What a passcode may do and how much (SPEC §5.48–§5.50), account and user passcodes alike. */
const limitFields = {
  scopes: scopes.optional(),
  allowedAddresses: allowedAddresses.optional(),
  rateLimit: rateLimit.optional(),
  credits: credits.optional(),
}

/** An account passcode's fields besides its name and expiry, the same at create and edit (SPEC §5.39, §5.48–§5.51). */
const accountPasscodeFields = {
  partners: partners.optional(),
  description: description.optional(),
  scopes: limitFields.scopes,
  allowedAddresses: limitFields.allowedAddresses,
  metadata: metadata.optional(),
  tags: tags.optional(),
  rateLimit: limitFields.rateLimit,
  credits: limitFields.credits,
}

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
  create: z.strictObject({ name, expiry, ...accountPasscodeFields }),
  update: z
    .strictObject({ name: name.optional(), expiry: expiry.optional(), ...accountPasscodeFields })
    .refine((patch) => Object.values(patch as Record<string, unknown>).some((value) => value !== undefined), {
      message:
        'must change the name, the expiry, the partners, the description, the scopes, the allowed addresses, the metadata, the tags, the rate limit or the credits',
    })
    .meta({ minProperties: 1 })
    .describe(
      "At least one of `name`, `expiry`, `partners`, `description`, `scopes`, `allowedAddresses`, `metadata`, `tags`, `rateLimit`, `credits`; `partners: null` unbinds, `description: null` or `''` clears, `scopes: null` grants every scope, `metadata: null` removes it, `rateLimit: null` and `credits: null` remove them.",
    ),
  rotate: z.strictObject(
    {
      overlapMinutes: z
        .number({ error: `must be a whole number of minutes (${ROTATION_OVERLAP_MINUTES.min} to ${ROTATION_OVERLAP_MINUTES.max})` })
        .int('must be a whole number of minutes')
        .min(ROTATION_OVERLAP_MINUTES.min, `must be at least ${ROTATION_OVERLAP_MINUTES.min}`)
        .max(ROTATION_OVERLAP_MINUTES.max, `must be at most ${ROTATION_OVERLAP_MINUTES.max} (7 days)`)
        .optional()
        .describe('Required, except for a passcode found in public (`leak` not null): there it defaults to 0, the only value taken (SPEC §5.45).'),
    },
    { error: 'must be { overlapMinutes }' },
  ),
  list: z
    .strictObject({
      sortBy: listSortBy.optional(),
      // SPEC §5.51: filters
      tags: z.array(tag, { error: 'must be a list of tags' }).max(MAX_TAGS, `must hold at most ${MAX_TAGS} tags`).optional(),
      search: z.string({ error: 'must be text' }).max(200, 'must be at most 200 characters').optional(),
    })
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
    ...limitFields,
  }),
  // SPEC §5.52: `PUT /account/policy` and `auth.accounts.setPolicy`.
  policy,
  accepted: acceptedPasscodesSchema,
  // The body of the management API's `PUT /account`: the setting, and nothing else.
  accountSettings: setAcceptedPasscodesBodySchema,
}

type Schemas = typeof inputSchemas

/**
 * Validates one input with its schema; the error names the field (`expiry`,
 * `validity.days`, `actor.role`) and the rule, never the value.
 */
export function parseInput<K extends keyof Schemas>(kind: K, field: string, value: unknown): z.output<Schemas[K]> {
  return parseWith(inputSchemas[kind], field, value) as z.output<Schemas[K]>
}

/** {@link parseInput} with a schema of a job's own (its own properties read only, the same errors). */
export function parseWith<Schema extends z.ZodType>(schema: Schema, field: string, value: unknown): z.output<Schema> {
  const result = schema.safeParse(ownData(value))
  if (result.success) return result.data
  // An unknown field first: it is the likelier mistake (a typo) than the field it leaves out.
  const issue = result.error.issues.find((candidate) => candidate.code === 'unrecognized_keys') ?? result.error.issues[0]!
  const path = [field, ...issue.path.map((part) => printableName(String(part)))].filter((part) => part !== '').join('.')
  throw new InvalidInputError(path || 'input', issueMessage(issue))
}

function issueMessage(issue: z.core.$ZodIssue): string {
  // The caller chose the name: escaped, so no control character reaches a message or a log line.
  if (issue.code === 'unrecognized_keys') return `unknown field ${issue.keys.map((k) => `"${printableName(k)}"`).join(', ')}`
  // zod's own text would read "Invalid input: Invalid input: expected object, received null".
  if (issue.code === 'invalid_type' && issue.expected === 'object') return 'must be an object'
  return issue.message
}

// Input is read through `ownData` (core/own-data.ts): its own enumerable properties only,
// copied into objects without a prototype. A `role: 'admin'` inherited from a prototype
// (a polluted `Object.prototype` included) is not the actor's role (zod reads inherited
// properties too), a `__proto__` key is an unknown field rather than a new prototype, and
// a getter cannot answer differently to the check and to the use.

export type {
  AccountPasscodeFieldsInput,
  AccountPolicyInput,
  CreatePasscodeInput,
  CreditsInput,
  GrantUserPasscodeInput,
  ListPasscodesOptions,
  PasscodeLimitsInput,
  RotatePasscodeInput,
  UpdatePasscodeInput,
} from './input-types'
export type { AcceptedPasscodes, Actor }
