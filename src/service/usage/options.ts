import { z } from 'zod'

/**
 * The `usage` option (SPEC §5.27, §5.41): `false`, or the time between two flushes and
 * how many UTC days of daily counts the store keeps, with their defaults.
 */
export const usageSchema = z.union([
  z.literal(false),
  z
    .object({
      flushIntervalMs: z.number().int().min(10).max(3_600_000).default(60_000),
      retentionDays: z.number().int().min(1).max(3660).default(90),
    })
    .strict(),
])
