import { z } from 'zod'
import { bytesOption, noOptions } from '../option-checks'
import { MIN_PEPPER_BYTES, pepperId } from '../../core/hashing'
import { MAX_DECLARED_SCOPES, MAX_SCOPE_DESCRIPTION_LENGTH, SCOPE_NAME_PATTERN } from '../../core/restrictions'

/**
 * The options the verification path owns: the `cache` option (verification cache and
 * refusal cache) and the `pepper` option. Each default is stated once, here; the
 * `@default` tags of the documented `PasscodeAuthOptions` show it to users, and
 * test/service/options.test.ts checks that the two agree.
 */

/** The refusal cache (`cache.refusals`): `false`, or its limits with their defaults. */
const refusalsSchema = z.union([
  z.literal(false),
  z
    .object({
      ttlMs: z.number().int().min(1).max(3_600_000).default(10_000),
      maxEntries: z.number().int().min(1).max(10_000_000).default(10_000),
    })
    .strict(),
])

/**
 * The `cache` option: `false`, or the verification cache's limits and its refusal
 * cache. Left out, each part takes its defaults (parsed from `{}`).
 */
export const cacheSchema = z.union([
  z.literal(false),
  z
    .object({
      ttlMs: z.number().int().min(1).max(86_400_000).default(30_000),
      maxEntries: z.number().int().min(1).max(10_000_000).default(10_000),
      refusals: refusalsSchema.prefault(noOptions),
    })
    .strict(),
])

/** The most peppers the `pepper` list may hold, the current one included. */
export const MAX_PEPPERS = 8

/** Whether `pepper` is long enough to key the passcode hash ({@link MIN_PEPPER_BYTES}). */
export const isLongEnoughPepper = (pepper: string | Uint8Array): boolean =>
  (typeof pepper === 'string' ? new TextEncoder().encode(pepper).length : pepper.length) >= MIN_PEPPER_BYTES

/** One pepper: text or bytes, at least {@link MIN_PEPPER_BYTES} bytes. */
export const pepperValueSchema = z
  .union([z.string(), bytesOption])
  .refine(isLongEnoughPepper, { message: `must be at least ${MIN_PEPPER_BYTES} bytes` })

/** Whether a pepper list holds one pepper (or "no pepper", `null`) twice. */
export const hasRepeatedPepper = (list: readonly (string | Uint8Array | null)[]): boolean =>
  new Set(list.map((item) => pepperId(item))).size !== list.length

const pepperListSchema = z.array(pepperValueSchema.nullable())

/**
 * The `pepper` option: one pepper; a list (SPEC §5.28) whose first keys new hashes and
 * whose others are previous peppers, `null` standing for "no pepper"; or the roles of a
 * rolling change (SPEC §5.34), `{ current, next?, previous? }`. At most
 * {@link MAX_PEPPERS} in all, each at most once.
 */
export const pepperSchema = z.union([
  pepperValueSchema,
  pepperListSchema
    .min(1, 'must hold at least one pepper (or null) when a list')
    .max(MAX_PEPPERS, `must hold at most ${MAX_PEPPERS} peppers`)
    .refine((list) => !hasRepeatedPepper(list), { message: 'must not hold the same pepper twice' }),
  z
    .strictObject({ current: pepperValueSchema.nullable(), next: pepperListSchema.optional(), previous: pepperListSchema.optional() })
    .refine((roles) => 1 + (roles.next?.length ?? 0) + (roles.previous?.length ?? 0) <= MAX_PEPPERS, {
      message: `must hold at most ${MAX_PEPPERS} peppers in all`,
    })
    .refine((roles) => !hasRepeatedPepper([roles.current, ...(roles.previous ?? []), ...(roles.next ?? [])]), {
      message: 'must not hold the same pepper twice (current, next and previous together)',
    }),
])

/**
 * The `scopes` option (SPEC §5.48): the scopes the host's routes may need, name →
 * description; at most {@link MAX_DECLARED_SCOPES}, each name of the form
 * `^[a-z][a-z0-9_.:-]{0,63}$`, each description 1 to 200 characters.
 */
export const scopesSchema = z
  .record(
    z.string().regex(SCOPE_NAME_PATTERN, 'must map scope names (a lower-case letter, then up to 63 of a-z 0-9 _ . : -) to descriptions'),
    z
      .string({ error: 'must be a description (text) of the scope' })
      .trim()
      .min(1, 'must be a description of the scope, not blank')
      .max(MAX_SCOPE_DESCRIPTION_LENGTH, `must be a description of at most ${MAX_SCOPE_DESCRIPTION_LENGTH} characters`),
    {
      error: (issue) =>
        issue.code === 'invalid_key'
          ? 'is not a scope name: a lower-case letter, then up to 63 of a-z 0-9 _ . : -'
          : "must be an object of scope name → description, like { 'events:read': 'Read events' }",
    },
  )
  .refine((scopes) => Object.keys(scopes).length <= MAX_DECLARED_SCOPES, { message: `must declare at most ${MAX_DECLARED_SCOPES} scopes` })
