import { lowCreditsLine, rateWindowStart, refillPeriodStart, type RateLimitSetting, type StoredCredits } from './limits'

/**
 * The store's side of limits and credits (SPEC §5.50): what one credential's counters
 * hold and how a lease changes them. Instances lease blocks of credits and of window
 * slots and spend them in memory; the store only ever hands out what it holds, in one
 * atomic step, so a fleet never spends more than the balance nor admits more than
 * `max` in a window. The memory store runs these functions; the SQL store's functions
 * (migration 15) compute the same in SQL, and the store conformance suite holds both to
 * the same answers.
 */

/**
 * A credential's credit counter: the balance the store still holds (leased credits
 * are gone from it), for which setting (`epoch`) and refill interval (`period`, its
 * start; 0 without a refill), and whether the low and exhausted notices of that balance
 * were made.
 */
export interface CreditCounter {
  readonly epoch: string
  readonly period: number
  readonly balance: number
  readonly lowSent: boolean
  readonly exhaustedSent: boolean
}

/** A credential's window counter: the fixed window (its start and length) and the slots leased in it. */
export interface WindowCounter {
  readonly start: number
  readonly windowMs: number
  readonly used: number
}

/**
 * The credit counter as it stands at `now`: the stored one, unless the credits were set
 * anew since (another epoch: the new setting's balance, whatever was leased before) or
 * a refill interval began (the refill amount). A fresh balance at or below the low line
 * counts as notified: a notice is for a crossing, not for a balance set low.
 *
 * @example
 * ```ts
 * currentCredits({ remaining: 10, refill: null, epoch: 'e1', setAt: 0 }, null, Date.now(), 0.1).balance // 10
 * ```
 */
export function currentCredits(credits: StoredCredits, counter: CreditCounter | null, now: number, lowRatio: number): CreditCounter {
  const { refill } = credits
  const period = refill === null ? 0 : refillPeriodStart(refill.interval, now)
  const fresh = (balance: number, at: number): CreditCounter => ({
    epoch: credits.epoch,
    period: at,
    balance,
    lowSent: balance <= lowCreditsLine(credits, lowRatio),
    exhaustedSent: false,
  })
  if (counter?.epoch !== credits.epoch) {
    const setPeriod = refill === null ? 0 : refillPeriodStart(refill.interval, credits.setAt)
    return period > setPeriod ? fresh(refill!.amount, period) : fresh(credits.remaining, setPeriod)
  }
  if (refill !== null && period > counter.period) return fresh(refill.amount, period)
  return counter
}

/** What a credit lease did: how many credits it handed out, the counter after it, and the notices it crossed into. */
export interface CreditGrant {
  readonly granted: number
  readonly counter: CreditCounter
  /** The balance fell to the low line with this lease (once per epoch and interval). */
  readonly crossedLow: boolean
  /** An instance needed a credit and the store had none (once per epoch and interval). */
  readonly crossedExhausted: boolean
}

/**
 * Hands out up to `ask` credits: never more than half of the balance, rounded up, so
 * that one instance's lease leaves the others some while the balance runs low, and a
 * lease a dead instance takes with it is at most half of what was left. A lease of 0
 * when the balance is 0 and credits were asked for is the exhaustion crossing.
 *
 * @example
 * ```ts
 * grantCredits(credits, null, Date.now(), 500, 0.1).granted // min(500, ceil(balance / 2))
 * ```
 */
export function grantCredits(credits: StoredCredits, counter: CreditCounter | null, now: number, ask: number, lowRatio: number): CreditGrant {
  const current = currentCredits(credits, counter, now, lowRatio)
  const granted = Math.min(ask, Math.ceil(current.balance / 2))
  const balance = current.balance - granted
  const crossedLow = !current.lowSent && balance <= lowCreditsLine(credits, lowRatio)
  const crossedExhausted = !current.exhaustedSent && ask > 0 && granted === 0
  return {
    granted,
    counter: { ...current, balance, lowSent: current.lowSent || crossedLow, exhaustedSent: current.exhaustedSent || crossedExhausted },
    crossedLow,
    crossedExhausted,
  }
}

/**
 * Takes back `n` unspent credits of a lease: only into the setting and refill interval
 * they were leased from, while the counter still holds that balance (a new setting or a
 * refill replaced it; adding them would spend them twice).
 *
 * @example
 * ```ts
 * returnCredits(credits, counter, Date.now(), { epoch: counter.epoch, period: counter.period, n: 3 })
 * ```
 */
export function returnCredits(
  credits: StoredCredits,
  counter: CreditCounter | null,
  now: number,
  leased: { readonly epoch: string; readonly period: number; readonly n: number },
): CreditCounter | null {
  if (counter === null) return null
  const refilled = credits.refill !== null && refillPeriodStart(credits.refill.interval, now) > counter.period
  if (refilled || credits.epoch !== counter.epoch || counter.epoch !== leased.epoch || counter.period !== leased.period) return counter
  return { ...counter, balance: counter.balance + leased.n }
}

/** What a slot lease did: the slots it handed out and the counter after it. */
export interface SlotGrant {
  readonly granted: number
  readonly counter: WindowCounter
}

/**
 * Hands out up to `ask` slots of the fixed window that holds `now`: never more than
 * half of what is left of `max`, rounded up; a window the counter has passed (this
 * instance's clock lags the store's newest lease) gets none. A window of another length
 * (the limit was edited) starts afresh.
 *
 * @example
 * ```ts
 * grantSlots({ max: 100, windowSeconds: 60 }, null, Date.now(), 10).granted // 10
 * ```
 */
export function grantSlots(rateLimit: RateLimitSetting, counter: WindowCounter | null, now: number, ask: number): SlotGrant {
  const windowMs = rateLimit.windowSeconds * 1000
  const start = rateWindowStart(rateLimit.windowSeconds, now)
  const same = counter?.windowMs === windowMs && counter.start >= start ? counter : null
  if (same !== null && same.start > start) return { granted: 0, counter: same }
  const used = same === null ? 0 : same.used
  const granted = Math.max(0, Math.min(ask, Math.ceil((rateLimit.max - used) / 2)))
  return { granted, counter: { start, windowMs, used: used + granted } }
}

/**
 * Takes back `n` unused slots of a lease of the window that starts at `start`: only
 * while the counter is still in that window.
 *
 * @example
 * ```ts
 * returnSlots(counter, { start: counter.start, windowMs: counter.windowMs, n: 2 })
 * ```
 */
export function returnSlots(
  counter: WindowCounter | null,
  leased: { readonly start: number; readonly windowMs: number; readonly n: number },
): WindowCounter | null {
  if (counter?.start !== leased.start || counter.windowMs !== leased.windowMs) return counter
  return { ...counter, used: Math.max(0, counter.used - leased.n) }
}
