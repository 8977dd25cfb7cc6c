import { z } from 'zod'
import type { AcceptedPasscodes, AccountPasscodeExpiry, Actor, UserPasscodeValidity } from '../core/entities'
import { MAX_CREDITS, RATE_LIMIT_BOUNDS, REFILL_INTERVALS, type CreditsSetting, type RateLimitSetting } from '../core/limits'
import { InvalidInputError } from '../core/errors'
import { ownData, printableName } from '../core/own-data'
import { acceptedPasscodesSchema, setAcceptedPasscodesBodySchema } from '../protocol/management-schemas'
import type { AccountPolicy } from '../core/policy'
import { POLICY_LIFETIME_DAYS } from '../core/policy'
import {
  checkMetadata,
  checkTag,
  MAX_ALLOWED_ADDRESSES,
  MAX_DECLARED_SCOPES,
  MAX_METADATA_BYTES,
  MAX_TAGS,
  MAX_TAG_LENGTH,
  SCOPE_NAME_PATTERN,
  TAG_RULE,
} from '../core/restrictions'
import type { PasscodeMetadata } from '../core/entities'
import { parseAddressRange } from './address-ranges'
import {
  ACCOUNT_EXPIRY_DAYS,
  checkPasscodeDescription,
  checkPasscodeName,
  INVISIBLE_CHARACTER_CLASS,
  isPartnerNameLookable,
  MAX_BOUND_PARTNERS,
  MAX_DESCRIPTION_LENGTH,
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

/**
 * JSON Schema keywords, for the OpenAPI document, of text that the server trims before
 * its rules: `maxLength` on the text as sent, and a `pattern` (ECMAScript, `u` flag) of
 * "blank surroundings, then text that starts and ends with a visible character and holds
 * no `refused` one, whitespace inside only where it is not refused" (`insideAlso`: more
 * characters allowed inside). The zod checks stay the rules; these describe them (test/docs
 * checks that they agree). Where they differ: the server counts once trimmed and in NFC,
 * so text padded past the limit passes the server but not the schema, and text that NFC
 * lengthens passes the schema but not the server; the descriptions say so.
 */
function trimmedText(maxLength: number, refused: string, { blank = false, insideAlso = '' } = {}) {
  const visible = `[^\\s${refused}]`
  const space = `(?:(?=\\s)[^${refused}]${insideAlso === '' ? '' : `|[${insideAlso}]`})`
  const text = `${visible}(?:${space}*${visible})*`
  return { maxLength, pattern: `^\\s*${blank ? `(?:${text})?` : text}\\s*$` }
}

const COUNTED_ONCE_TRIMMED = 'counted once trimmed and in NFC (send it trimmed: `maxLength` counts what is sent)'

const name = z
  .string({ error: 'must be a string' })
  .transform((value, context) => {
    const checked = checkPasscodeName(value)
    if (checked.ok) return checked.name
    context.addIssue({ code: 'custom', message: checked.reason })
    return z.NEVER
  })
  .meta(trimmedText(MAX_NAME_LENGTH, INVISIBLE_CHARACTER_CLASS))
  .describe(
    `1 to ${MAX_NAME_LENGTH} characters, ${COUNTED_ONCE_TRIMMED}, no control or invisible character (zero-width, bidi controls, unpaired surrogates); unique in the account, case-insensitively (a rule of the account's state, not of this schema).`,
  )

// null clears it, as '' does.
const description = z
  .string({ error: `must be text of at most ${MAX_DESCRIPTION_LENGTH} characters, or null` })
  .nullable()
  .transform((value, context) => {
    if (value === null) return ''
    const checked = checkPasscodeDescription(value)
    if (checked.ok) return checked.description
    context.addIssue({ code: 'custom', message: checked.reason })
    return z.NEVER
  })
  .meta(trimmedText(MAX_DESCRIPTION_LENGTH, String.raw`\p{Cc}\p{Cs}`, { blank: true, insideAlso: String.raw`\r\n` }))
  .describe(
    `What the passcode is for: 0 to ${MAX_DESCRIPTION_LENGTH} characters, ${COUNTED_ONCE_TRIMMED}; newlines allowed (\\r\\n is stored as \\n), no other control character, no unpaired surrogate; null or '' clears it.`,
  )

const expiry = z
  .union(
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
  .describe('Whole days from now, or "forever".')

const partnerName = z
  .string({ error: 'must be a list of partner names' })
  .trim()
  .min(1, 'must not hold a blank partner name')
  .refine(isPartnerNameLookable, {
    message: `must hold partner names of at most ${MAX_PARTNER_NAME_LENGTH} characters without control characters`,
  })
  .meta(trimmedText(MAX_PARTNER_NAME_LENGTH, String.raw`\p{Cc}`))
  .describe(
    `A partner's name, compared trimmed and case-insensitively: at most ${MAX_PARTNER_NAME_LENGTH} characters once trimmed, no control characters. It must be on the operator's whitelist (\`GET /partners\`): a rule of the server's state, not of this schema.`,
  )

// null: unbound. An empty list would make a passcode that works for no partner.
const partners = z
  .array(partnerName, { error: 'must be a list of whitelisted partner names, or null' })
  .min(1, 'must name at least one partner (null unbinds)')
  .max(MAX_BOUND_PARTNERS, `must name at most ${MAX_BOUND_PARTNERS} partners`)
  .nullable()

// Limits and credits (SPEC §5.50), on create, update and grant: null (or, on create and
// grant, absent) for none; on update, absent keeps the current one and null removes it.
const wholeIn = (bounds: { readonly min: number; readonly max: number }, what: string, range: string) =>
  z
    .number({ error: `must be a whole number of ${what} (${range})` })
    .int(`must be a whole number of ${what} (${range})`)
    .min(bounds.min, `must be at least ${bounds.min.toLocaleString('en-US')}`)
    .max(bounds.max, `must be at most ${bounds.max.toLocaleString('en-US')}`)
const creditCount = wholeIn({ min: 0, max: MAX_CREDITS }, 'credits', '0 to 10^12')
const rateLimit = z
  .strictObject(
    {
      max: wholeIn(RATE_LIMIT_BOUNDS.max, 'requests', '1 to 1,000,000'),
      windowSeconds: wholeIn(RATE_LIMIT_BOUNDS.windowSeconds, 'seconds', '1 to 86,400: up to a day'),
    },
    { error: 'must be { max, windowSeconds }, or null for none' },
  )
  .nullable()
  .describe('At most `max` requests per fixed window of `windowSeconds` (UTC-aligned), across every instance; null: none.')
const credits = z
  .strictObject(
    {
      remaining: creditCount,
      refill: z
        .strictObject(
          {
            amount: creditCount,
            interval: z.enum(REFILL_INTERVALS, { error: 'must be "day", "week" or "month"' }),
          },
          { error: 'must be { amount, interval }, or null for none' },
        )
        .nullable()
        .optional(),
    },
    { error: 'must be { remaining, refill? }, or null for none' },
  )
  .nullable()
  .describe(
    'One credit per admitted request; none left: 429 until the next refill. `refill` sets the balance to `amount` at the start of each UTC day, ISO week or month. null: none.',
  )
// Restricted passcodes (SPEC §5.48, §5.49, §5.51, §5.52): their inputs' forms. Whether a
// scope is declared is a rule of the host's configuration, checked by the service.
const SCOPE_RULE = 'must be a scope name: a lower-case letter, then up to 63 of a-z 0-9 _ . : -'
const scopes = z
  .array(z.string({ error: SCOPE_RULE }).regex(SCOPE_NAME_PATTERN, SCOPE_RULE), { error: 'must be a list of scope names, or null for every scope' })
  .max(MAX_DECLARED_SCOPES, `must name at most ${MAX_DECLARED_SCOPES} scopes`)
  .nullable()
  .transform((list) => (list === null ? null : [...new Set(list)].sort()))
  .describe(
    'The scopes it grants (SPEC §5.48): null (or absent at create) for every scope the host declares; a list for only those, each declared by the host (a rule of its configuration, not of this schema); [] for none.',
  )

const addressRange = z
  .string({ error: 'must be a CIDR range (text)' })
  .max(100, 'must be a CIDR range such as 203.0.113.0/24')
  .transform((text, context) => {
    const parsed = parseAddressRange(text)
    if (parsed.ok) return parsed.range
    context.addIssue({ code: 'custom', message: `"${printableName(text.trim())}" ${parsed.reason}` })
    return z.NEVER
  })
  .describe('A CIDR range, IPv4 (`203.0.113.0/24`) or IPv6 (`2001:db8::/32`), no host bits set; one address alone is its /32 or /128.')

const allowedAddresses = z
  .array(addressRange, { error: 'must be a list of CIDR ranges' })
  .max(MAX_ALLOWED_ADDRESSES, `must hold at most ${MAX_ALLOWED_ADDRESSES} ranges`)
  .transform((list) => [...new Set(list)])
  .describe(
    `The addresses it may be used from (SPEC §5.49): at most ${MAX_ALLOWED_ADDRESSES} CIDR ranges; an IPv4-mapped or NAT64 caller matches its IPv4 range; [] for any address.`,
  )

const metadata = z
  .record(z.string(), z.unknown(), { error: 'must be a JSON object (not an array, null or a single value), or null to remove it' })
  .nullable()
  .transform((value, context): PasscodeMetadata | null => {
    if (value === null) return null
    const checked = checkMetadata(value)
    if (checked.ok) return checked.metadata
    context.addIssue({ code: 'custom', message: checked.reason })
    return z.NEVER
  })
  .describe(
    `The host's own data about the passcode (SPEC §5.51), returned on the principal: a JSON object of at most ${MAX_METADATA_BYTES} bytes as JSON; null removes it.`,
  )

const tag = z
  .string({ error: 'must be a list of tags' })
  .transform((text, context) => {
    const checked = checkTag(text)
    if (checked.ok) return checked.tag
    context.addIssue({ code: 'custom', message: `"${printableName(text)}" ${checked.reason}` })
    return z.NEVER
  })
  .meta({ maxLength: MAX_TAG_LENGTH, pattern: String.raw`^\s*[\p{L}\p{N}][\p{L}\p{M}\p{N}_.:/@+-]*\s*$` })
  .describe(`A tag: ${TAG_RULE}.`)

const tags = z
  .array(tag, { error: 'must be a list of tags' })
  .max(MAX_TAGS, `must hold at most ${MAX_TAGS} tags`)
  .transform((list) => [...new Set(list)])
  .describe(`Up to ${MAX_TAGS} tags (SPEC §5.51), to find and filter passcodes by; [] removes them.`)

const policy = z
  .strictObject({
    maxLifetimeDays: z
      .int({ error: `must be a whole number of days (${POLICY_LIFETIME_DAYS.min} to ${POLICY_LIFETIME_DAYS.max}), or null for no maximum` })
      .min(POLICY_LIFETIME_DAYS.min, `must be at least ${POLICY_LIFETIME_DAYS.min} day`)
      .max(POLICY_LIFETIME_DAYS.max, `must be at most ${POLICY_LIFETIME_DAYS.max} days`)
      .nullable()
      .optional()
      .describe(`The longest a passcode may live, in days (${POLICY_LIFETIME_DAYS.min} to ${POLICY_LIFETIME_DAYS.max}); null or absent: no maximum.`),
    requireExpiry: z.boolean({ error: 'must be true or false' }).optional().describe('No account passcode without an expiry ("Forever" refused).'),
    requireDescription: z.boolean({ error: 'must be true or false' }).optional().describe('No account passcode without a description.'),
  })
  .transform((value): AccountPolicy => ({
    maxLifetimeDays: value.maxLifetimeDays ?? null,
    requireExpiry: value.requireExpiry ?? false,
    requireDescription: value.requireDescription ?? false,
  }))
  .describe("An account's policy (SPEC §5.52): it replaces the host's default whole; a rule left out is off.")

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
  create: z.strictObject({
    name,
    expiry,
    partners: partners.optional(),
    description: description.optional(),
    // SPEC §5.48, §5.49, §5.51
    scopes: scopes.optional(),
    allowedAddresses: allowedAddresses.optional(),
    metadata: metadata.optional(),
    tags: tags.optional(),
    rateLimit: rateLimit.optional(),
    credits: credits.optional(),
  }),
  update: z
    .strictObject({
      name: name.optional(),
      expiry: expiry.optional(),
      partners: partners.optional(),
      description: description.optional(),
      // SPEC §5.48, §5.49, §5.51
      scopes: scopes.optional(),
      allowedAddresses: allowedAddresses.optional(),
      metadata: metadata.optional(),
      tags: tags.optional(),
      // SPEC §5.50
      rateLimit: rateLimit.optional(),
      credits: credits.optional(),
    })
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
    // SPEC §5.48, §5.49
    scopes: scopes.optional(),
    allowedAddresses: allowedAddresses.optional(),
    rateLimit: rateLimit.optional(),
    credits: credits.optional(),
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
  /**
   * What the passcode is for (SPEC §5.39): up to 500 characters after trimming, in NFC,
   * newlines allowed (`\r\n` is stored as `\n`), no other control character.
   * @default '' (none)
   */
  readonly description?: string | null
  /**
   * The scopes it grants (SPEC §5.48), each declared by the host's `scopes` option;
   * `null` or absent: every scope. `[]`: none (it still authenticates `/v1/connect` and
   * routes that need no scope).
   * @default null
   */
  readonly scopes?: readonly string[] | null
  /**
   * The addresses it may be used from (SPEC §5.49): up to 50 CIDR ranges, IPv4 or IPv6
   * (`203.0.113.0/24`, `2001:db8::/32`; one address is its /32 or /128), no host bits set.
   * @default [] (any address)
   */
  readonly allowedAddresses?: readonly string[]
  /**
   * The host's own data (SPEC §5.51), returned on the principal: a JSON object of at most
   * 1 KiB as JSON.
   * @default null (none)
   */
  readonly metadata?: PasscodeMetadata | null
  /**
   * Up to 20 tags (SPEC §5.51), 1 to 32 characters each (letters and digits, then also
   * `_ . : / @ + -`), stored in NFC and lower case.
   * @default []
   */
  readonly tags?: readonly string[]
  /** At most `max` requests per window of `windowSeconds`, fleet-wide (SPEC §5.50). @default null (none) */
  readonly rateLimit?: RateLimitSetting | null
  /** Credits: one per admitted request, refilled to `refill.amount` each UTC interval (SPEC §5.50). @default null (none) */
  readonly credits?: CreditsInput | null
}

/**
 * Credits as given at create, edit or grant (SPEC §5.50): the balance from now on, 0 to
 * 10^12, and an optional refill.
 *
 * @example
 * ```ts
 * const credits: CreditsInput = { remaining: 1_000, refill: { amount: 1_000, interval: 'month' } }
 * ```
 */
export interface CreditsInput {
  /** The balance from now on, 0 to 10^12. */
  readonly remaining: number
  /** Sets the balance to `amount` at the start of each UTC `day`, ISO `week` or `month`. @default null (never) */
  readonly refill?: CreditsSetting['refill']
}

/** Input of `passcodes.update`: at least one field. */
export interface UpdatePasscodeInput {
  /** A new name, unique in the account. */
  readonly name?: string
  /** A new expiry, counted from the moment of the edit. */
  readonly expiry?: AccountPasscodeExpiry
  /** A new binding to whitelisted partners, or `null` to unbind. Takes effect at once on every instance. */
  readonly partners?: readonly string[] | null
  /** A new description, as at create; `''` or `null` removes it. */
  readonly description?: string | null
  /** New scopes, as at create; `null` grants every scope. Takes effect at once on every instance. */
  readonly scopes?: readonly string[] | null
  /** New address ranges, as at create; `[]` allows any address. Takes effect at once on every instance. */
  readonly allowedAddresses?: readonly string[]
  /** New metadata, as at create; `null` removes it. */
  readonly metadata?: PasscodeMetadata | null
  /** New tags, as at create (they replace the old ones); `[]` removes them. */
  readonly tags?: readonly string[]
  /** A new rate limit, or `null` to remove it; a new window length starts a fresh window. */
  readonly rateLimit?: RateLimitSetting | null
  /** New credits (the balance from now on, credits leased before are void), or `null` to remove them. */
  readonly credits?: CreditsInput | null
}

/** Input of `passcodes.rotate`. */
export interface RotatePasscodeInput {
  /**
   * How long the value being replaced keeps working, in whole minutes: 0 (it stops at
   * once) to 10 080 (7 days). Required: there is no default overlap, except for a
   * passcode whose value was found in public (its view's `leak` is not `null`, SPEC
   * §5.45): a leaked value gets no overlap, so there it defaults to 0, and any other
   * number is refused with an `InvalidInputError` on `overlapMinutes` that says why.
   */
  readonly overlapMinutes?: number
}

/** Options of `passcodes.list`. */
export interface ListPasscodesOptions {
  /**
   * `createdAt`: oldest first. `lastUsedAt`: least recently used first, never-used
   * ones at the top (oldest created first among them), so unused passcodes stand out.
   * `creditsRemaining`: fewest credits left first (SPEC §5.50), passcodes without credits last.
   * @default 'createdAt'
   */
  readonly sortBy?: 'createdAt' | 'lastUsedAt' | 'creditsRemaining'
  /** Only passcodes carrying every one of these tags (SPEC §5.51), compared as stored (NFC, lower case). @default none */
  readonly tags?: readonly string[]
  /** Only passcodes whose name, description or a tag contains this text, case-insensitively. @default none */
  readonly search?: string
}

/** Input of `userPasscodes.grant`. */
export interface GrantUserPasscodeInput {
  /** `{ type: 'finite', days }` (1 to 365) or `{ type: 'infinite' }` (10 years). */
  readonly validity: UserPasscodeValidity
  /** As for account passcodes (SPEC §5.50). @default null (none) */
  readonly rateLimit?: RateLimitSetting | null
  /** As for account passcodes (SPEC §5.50). @default null (none) */
  readonly credits?: CreditsInput | null
  /** The scopes it grants (SPEC §5.48), as for an account passcode. @default null (every scope) */
  readonly scopes?: readonly string[] | null
  /** The addresses it may be used from (SPEC §5.49), as for an account passcode. @default [] (any address) */
  readonly allowedAddresses?: readonly string[]
}

/**
 * Input of `accounts.setPolicy` (SPEC §5.52): the account's whole policy, which replaces
 * the host's default; a rule left out is off.
 *
 * @example
 * ```ts
 * const input: AccountPolicyInput = { maxLifetimeDays: 90, requireExpiry: true }
 * ```
 */
export interface AccountPolicyInput {
  /** The longest a passcode may live, in days (1 to 3650). @default null (no maximum) */
  readonly maxLifetimeDays?: number | null
  /** No account passcode without an expiry. @default false */
  readonly requireExpiry?: boolean
  /** No account passcode without a description. @default false */
  readonly requireDescription?: boolean
}

export type { AcceptedPasscodes, Actor }
