import { z } from 'zod'
import { POLICY_LIFETIME_DAYS } from '../core/policy'
import { userPasscodeViewSchema } from './management-passcode-schemas'

// The management API's answers about the account (SPEC §5.29): its setting, policy,
// users, partners and scopes.

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
  partners: z.array(z.string()),
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
