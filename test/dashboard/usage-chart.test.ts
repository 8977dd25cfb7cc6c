import { describe, expect, it } from 'vitest'
import { unusedFor, usageSummary } from '../../src/dashboard/client/components/usage-chart'
import { usageDay as day } from '../helpers/usage-days'

/** The words of the dashboard's usage (SPEC §5.41), which the browser tests read in Chromium too. */

const DAY = 86_400_000
const now = Date.UTC(2026, 10, 26, 9, 0)
const label = (date: string) => new Intl.DateTimeFormat(undefined, { day: 'numeric', month: 'short', timeZone: 'UTC' }).format(new Date(date))

describe('unusedFor', () => {
  it('says "Never used", nothing within the first day, then whole days rounded as "N days ago" is', () => {
    expect(unusedFor(null, now)).toBe('Never used')
    expect(unusedFor(new Date(now - 23 * 3_600_000).toISOString(), now)).toBe('')
    expect(unusedFor(new Date(now - DAY).toISOString(), now)).toBe('Unused for 1 day')
    expect(unusedFor(new Date(now - 12.6 * DAY).toISOString(), now)).toBe('Unused for 13 days')
    expect(unusedFor(new Date(now - 400 * DAY).toISOString(), now)).toBe('Unused for 400 days')
  })
})

describe('usageSummary', () => {
  it('counts the last 30 days up to today only, names the busiest day and each kind of refusal', () => {
    const usage = {
      from: '2026-08-28',
      to: '2026-11-26',
      days: [
        day('2026-10-27', { succeeded: 500 }), // 30 days before today: outside the chart
        day('2026-10-28', { succeeded: 2, expired: 1 }),
        day('2026-11-24', { succeeded: 40, wrongPartner: 2 }),
        day('2026-11-26', { succeeded: 90 - 2, rotatedOut: 1 }),
      ],
    }
    expect(usageSummary(usage)).toBe(
      `Used 130 times in the last 30 days, most on ${label('2026-11-26')} (88). 4 refused: 1 expired, 2 wrong partner, 1 rotated out.`,
    )
    expect(usageSummary({ ...usage, days: [day('2026-11-01', { succeeded: 1 })] })).toBe(
      `Used 1 time in the last 30 days, most on ${label('2026-11-01')} (1).`,
    )
    expect(usageSummary({ ...usage, days: [day('2026-11-01', { disabled: 3 })] })).toBe('Not used in the last 30 days. 3 refused: 3 disabled.')
    expect(usageSummary({ ...usage, days: [] })).toBe('Not used in the last 30 days.')
  })

  it('counts the 429s apart from the refusals, each kind named (SPEC §5.50)', () => {
    const usage = {
      from: '2026-08-28',
      to: '2026-11-26',
      days: [day('2026-11-20', { succeeded: 10, rateLimited: 3, address: 1 }), day('2026-11-25', { creditsExhausted: 2, rateLimited: 1 })],
    }
    expect(usageSummary(usage)).toBe(
      `Used 10 times in the last 30 days, most on ${label('2026-11-20')} (10). 1 refused: 1 address not allowed. 6 limited (429): 4 over the rate limit, 2 out of credits.`,
    )
    expect(usageSummary({ ...usage, days: [day('2026-11-25', { creditsExhausted: 1 })] })).toBe(
      'Not used in the last 30 days. 1 limited (429): 1 out of credits.',
    )
  })
})
