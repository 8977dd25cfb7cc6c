import { describe, expect, it } from 'vitest'
import { currentCredits, grantCredits, grantSlots, returnCredits, returnSlots, type WindowCounter } from '../../src/core/limit-counters'
import { nextRefillAt, rateWindowStart, refillPeriodStart, type StoredCredits } from '../../src/core/limits'
import { limitHeaders } from '../../src/protocol/rate-limit-headers'

/** The store's counters of SPEC §5.50: what one atomic lease hands out and what a return may give back. */

const T = Date.UTC(2026, 1, 14, 9, 30)
const credits = (remaining: number, refill: StoredCredits['refill'] = null, epoch = 'e1', setAt = T): StoredCredits => ({
  remaining,
  refill,
  epoch,
  setAt,
})

describe('SPEC 5.50 UTC refill calendar and fixed windows', () => {
  it('cuts days, ISO weeks (Monday) and calendar months in UTC', () => {
    expect(refillPeriodStart('day', T)).toBe(Date.UTC(2026, 1, 14))
    expect(refillPeriodStart('week', T)).toBe(Date.UTC(2026, 1, 9)) // Monday
    expect(new Date(refillPeriodStart('week', T)).getUTCDay()).toBe(1)
    expect(refillPeriodStart('month', T)).toBe(Date.UTC(2026, 1, 1))
    expect(nextRefillAt('month', Date.UTC(2026, 11, 31, 23))).toBe(Date.UTC(2027, 0, 1))
    expect(nextRefillAt('week', Date.UTC(2026, 0, 1))).toBe(Date.UTC(2026, 0, 5))
    expect(nextRefillAt('day', T)).toBe(Date.UTC(2026, 1, 15))
    expect(rateWindowStart(60, 90_500)).toBe(60_000)
  })
})

describe('SPEC 5.50 credit leases', () => {
  it('hands out at most half of the balance, rounded up, and never more than the balance in total', () => {
    const set = credits(10)
    let counter = null
    const granted: number[] = []
    for (let i = 0; i < 8; i++) {
      const grant = grantCredits(set, counter, T, 100, 0.1)
      granted.push(grant.granted)
      counter = grant.counter
    }
    expect(granted).toEqual([5, 3, 1, 1, 0, 0, 0, 0])
    expect(granted.reduce((a, b) => a + b)).toBe(10)
  })

  it('crosses the low line and exhaustion once each per setting', () => {
    const set = credits(20)
    const first = grantCredits(set, null, T, 17, 0.1)
    expect(first).toMatchObject({ granted: 10, crossedLow: false, crossedExhausted: false })
    const second = grantCredits(set, first.counter, T, 8, 0.1)
    expect(second).toMatchObject({ granted: 5, crossedLow: false })
    const third = grantCredits(set, second.counter, T, 3, 0.1)
    expect(third).toMatchObject({ granted: 3, crossedLow: true }) // balance 2 ≤ 2
    const drained = grantCredits(set, third.counter, T, 2, 0.1)
    expect(drained).toMatchObject({ granted: 1, crossedLow: false })
    const last = grantCredits(set, drained.counter, T, 1, 0.1)
    const empty = grantCredits(set, last.counter, T, 1, 0.1)
    expect(empty).toMatchObject({ granted: 0, crossedExhausted: true })
    expect(grantCredits(set, empty.counter, T, 1, 0.1)).toMatchObject({ granted: 0, crossedExhausted: false, crossedLow: false })
  })

  it('a balance set at or below the low line is no crossing', () => {
    expect(grantCredits(credits(5, { amount: 100, interval: 'day' }), null, T, 1, 0.1)).toMatchObject({ granted: 1, crossedLow: false })
  })

  it('a refill sets the balance to the amount at the start of the next UTC interval, not added', () => {
    const set = credits(3, { amount: 100, interval: 'day' })
    const spent = grantCredits(set, null, T, 2, 0.1).counter
    expect(spent.balance).toBe(1)
    expect(currentCredits(set, spent, T + 3_600_000, 0.1).balance).toBe(1)
    expect(currentCredits(set, spent, Date.UTC(2026, 1, 15), 0.1)).toMatchObject({ balance: 100, period: Date.UTC(2026, 1, 15) })
  })

  it('a new setting (epoch) starts from its own balance, and a return never goes into another setting or interval', () => {
    const first = credits(100)
    const leased = grantCredits(first, null, T, 40, 0.1).counter
    expect(leased.balance).toBe(60)
    const second = credits(7, null, 'e2', T + 1)
    expect(currentCredits(second, leased, T + 2, 0.1).balance).toBe(7)
    // The 40 leased under e1 do not go back into e2's balance.
    expect(returnCredits(second, leased, T + 2, { epoch: 'e1', period: 0, n: 40 })).toBe(leased)
    expect(returnCredits(first, leased, T + 2, { epoch: 'e1', period: 0, n: 40 })?.balance).toBe(100)
    const daily = credits(10, { amount: 10, interval: 'day' })
    const today = grantCredits(daily, null, T, 5, 0.1).counter
    expect(returnCredits(daily, today, Date.UTC(2026, 1, 15), { epoch: 'e1', period: today.period, n: 5 })).toBe(today)
  })
})

describe('SPEC 5.50 window slot leases', () => {
  it('admits at most max per window in total, starts afresh in the next window, refuses a window the store has passed', () => {
    const limit = { max: 7, windowSeconds: 60 }
    let counter: WindowCounter | null = null
    let total = 0
    for (let i = 0; i < 10; i++) {
      const grant = grantSlots(limit, counter, T, 5)
      total += grant.granted
      counter = grant.counter
    }
    expect(total).toBe(7)
    const first = counter!
    const next = grantSlots(limit, counter, T + 60_000, 5)
    expect(next.granted).toBe(4) // ceil(7 / 2)
    expect(grantSlots(limit, next.counter, T, 5).granted).toBe(0)
    expect(returnSlots(next.counter, { start: first.start, windowMs: 60_000, n: 3 })).toBe(next.counter)
    expect(returnSlots(next.counter, { start: next.counter.start, windowMs: 60_000, n: 3 })?.used).toBe(1)
  })
})

describe('SPEC 5.50 RateLimit headers (IETF httpapi draft)', () => {
  it('names the policy, quota, window, and seconds to reset, as Retry-After does', () => {
    expect(limitHeaders({ policy: 'rate', quota: 100, windowSeconds: 60, retryAfterMs: 11_200 })).toEqual({
      'retry-after': '12',
      'ratelimit-policy': '"rate";q=100;w=60',
      ratelimit: '"rate";r=0;t=12',
    })
    expect(limitHeaders({ policy: 'credits', quota: 500, windowSeconds: null, retryAfterMs: null })).toEqual({
      'ratelimit-policy': '"credits";q=500',
      ratelimit: '"credits";r=0',
    })
    expect(limitHeaders({ policy: 'rate', quota: 1, windowSeconds: 1, retryAfterMs: 10 })['retry-after']).toBe('1')
  })
})
