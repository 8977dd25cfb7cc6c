import { z } from 'zod'

/**
 * The `passcodeLimits` option (SPEC §5.50): when the low-credits notice goes out, and how
 * instances size and return their leases, with the defaults stated once.
 */
export const passcodeLimitsSchema = z
  .object({
    lowCreditsRatio: z.number().min(0).max(1).default(0.1),
    idleReturnMs: z.number().int().min(50).max(600_000).default(2_000),
    leaseTargetMs: z.number().int().min(10).max(60_000).default(1_000),
  })
  .strict()
