import { z } from 'zod'
import { POLICY_LIFETIME_DAYS, type AccountPolicy } from '../../core/policy'

/**
 * The `policy` option (SPEC §5.52): every account's policy until its admins set one,
 * each rule off unless given.
 */
export const policySchema = z
  .object({
    maxLifetimeDays: z.number().int().min(POLICY_LIFETIME_DAYS.min).max(POLICY_LIFETIME_DAYS.max).nullable().default(null),
    requireExpiry: z.boolean().default(false),
    requireDescription: z.boolean().default(false),
  })
  .strict()
  .transform((policy): AccountPolicy => Object.freeze(policy))
