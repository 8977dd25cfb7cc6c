import { z } from 'zod'

/** What a confirmed leak of an account passcode does (SPEC §5.42): disable it (the default) or delete it. */
export const leakActionSchema = z.enum(['disable', 'revoke'])

/** The `leaks` option: what a confirmed leak does, with its default stated once. */
export const leaksSchema = z.object({ action: leakActionSchema.default('disable') }).strict()
