import { describe, expect, it } from 'vitest'
import { shownText } from '../../src/dashboard/client/components/pager'
import { relativeTime, utcTime } from '../../src/dashboard/client/format'

/** The dashboard's words for times and counts (src/dashboard/client/format.ts, components/pager.ts), which the browser tests read in Chromium too. */

const now = Date.UTC(2026, 0, 3, 2, 0)
const MINUTE = 60_000
const DAY = 86_400_000

describe('relativeTime', () => {
  it('says the largest unit that fits at least once, days up to 60, and "just now" within a minute', () => {
    expect(relativeTime(now + 30_000, now)).toBe('just now')
    expect(relativeTime(now - 59_999, now)).toBe('just now')
    expect(relativeTime(now + 60 * MINUTE, now)).toBe('in 1 hour')
    expect(relativeTime(now - 5 * MINUTE, now)).toBe('5 minutes ago')
    expect(relativeTime(now + 27.9 * DAY, now)).toBe('in 28 days')
    expect(relativeTime(now + 59 * DAY, now)).toBe('in 59 days')
    expect(relativeTime(now + 88 * DAY, now)).toBe('in 3 months')
    expect(relativeTime(now + 3653 * DAY, now)).toBe('in 10 years')
  })

  it('gives the UTC time shown on hover', () => {
    expect(utcTime('2026-01-03T02:00:00.000Z')).toBe('2026-01-03 02:00 UTC')
  })
})

describe('shownText', () => {
  it('says nothing when every row shows, the range of a page, and how many match a search', () => {
    expect(shownText(1, 12, 12, 12)).toBe('')
    expect(shownText(1, 25, 100, 100)).toBe('Showing 1–25 of 100')
    expect(shownText(76, 100, 100, 100)).toBe('Showing 76–100 of 100')
    expect(shownText(1, 10, 10, 100)).toBe('Showing 10 of 100')
    expect(shownText(1, 0, 0, 100)).toBe('Showing 0 of 100')
    expect(shownText(26, 50, 99, 100)).toBe('Showing 26–50 of 99 matching (100 in all)')
  })
})
