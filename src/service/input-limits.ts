import { z } from 'zod'
import { MAX_CREDITS, RATE_LIMIT_BOUNDS, REFILL_INTERVALS } from '../core/limits'

// Limits and credits (SPEC §5.50), on create, update and grant: null (or, on create and
// grant, absent) for none; on update, absent keeps the current one and null removes it.
const wholeIn = (bounds: { readonly min: number; readonly max: number }, what: string, range: string) =>
  z
    .number({ error: `must be a whole number of ${what} (${range})` })
    .int(`must be a whole number of ${what} (${range})`)
    .min(bounds.min, `must be at least ${bounds.min.toLocaleString('en-US')}`)
    .max(bounds.max, `must be at most ${bounds.max.toLocaleString('en-US')}`)
const creditCount = wholeIn({ min: 0, max: MAX_CREDITS }, 'credits', '0 to 10^12')
export const rateLimit = z
  .strictObject(
    {
      max: wholeIn(RATE_LIMIT_BOUNDS.max, 'requests', '1 to 1,000,000'),
      windowSeconds: wholeIn(RATE_LIMIT_BOUNDS.windowSeconds, 'seconds', '1 to 86,400: up to a day'),
    },
    { error: 'must be { max, windowSeconds }, or null for none' },
  )
  .nullable()
  .describe('At most `max` requests per fixed window of `windowSeconds` (UTC-aligned), across every instance; null: none.')
export const credits = z
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
