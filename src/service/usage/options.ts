import { z } from 'zod'

/** The `usage` option (SPEC §5.27): `false`, or the time between two flushes with its default. */
export const usageSchema = z.union([
  z.literal(false),
  z.object({ flushIntervalMs: z.number().int().min(10).max(3_600_000).default(60_000) }).strict(),
])
