import type { Principal, PrincipalCredits } from '../../core/entities'
import { StorageTimeoutError } from '../../core/errors'
import { fullCredits, nextRefillAt, rateWindowStart, refillPeriodStart, type RateLimitSetting, type StoredCredits } from '../../core/limits'
import { unrefTimer } from '../../core/time'
import type { CreditNoticeClaim, LimitsLease, LimitsPart, LimitsReturn } from '../../ports/limits-part'
import { limitHeaders } from '../../protocol/rate-limit-headers'
import { limitRefused, refuse, type AuthRefusal } from '../auth-outcome'
import { limitsOf, type CredentialLimits, type LimitsAdmission, type LimitsGate } from '../credential-limits'
import type { Budget } from '../deadline'
import { LeaseSizer } from './lease-sizer'

/**
 * The limits step (SPEC §5.50): each instance holds, per credential with limits, a
 * block of credits and a block of slots of the current rate window leased from the
 * store, and spends them in memory: a request that finds both costs no store call and
 * no promise. When one runs out, one lease (single-flight per credential) asks the
 * store for more, sized by {@link LeaseSizer}; a store with none left is remembered
 * (the window until it ends; credits for `RECHECK_MS`, since other instances may give
 * some back), so a refused caller costs nothing either. What this instance holds goes
 * back to the store when the credential is idle for `idleReturnMs` and on `close()`;
 * if the process dies first, it is lost, never spent twice: the store handed it out
 * once. docs/limits.md has the bounds.
 */

/** How long "the store had no credits" is believed before asking again, in ms. */
export const RECHECK_MS = 1_000

/**
 * What a credential's lease state holds on this instance. What is held belongs to the
 * settings it was leased under (`creditsFor`, `slotsFor`: the epoch and refill interval,
 * the window, as this instance's copy of the settings names them), so a new setting, a
 * refill or a new window drops it; the store's own names for it (`epoch`, `period`,
 * `returnWindow*`) go with a return.
 */
class Held {
  credits = 0
  creditsFor = ''
  epoch = ''
  period = 0
  /** The store's balance after this instance's last lease (other instances' leases counted as spent). */
  balance = 0
  /** When the store last had none for `creditsFor`; `undefined` while it had some. */
  creditsOutAt: number | undefined
  slots = 0
  slotsFor = ''
  returnWindowStart = 0
  returnWindowMs = 0
  /** The store had no slot left for `slotsFor`. */
  slotsOut = false
  /** The settings the store had no credits part for, or no rate part (removed since this copy was read): none counted under them. */
  creditsOff: CredentialLimits | undefined
  slotsOff: CredentialLimits | undefined
  /**
   * The settings and the span of time (`[from, until)`, ms) in which `creditsFor` and
   * `slotsFor` still name what `decide` would name: while both hold, a request costs
   * no key of its own (the warm path makes no string). A lease's answer clears them.
   */
  creditsOf: StoredCredits | undefined
  creditsFrom = 0
  creditsUntil = 0
  slotsOf: RateLimitSetting | undefined
  slotsFrom = 0
  slotsUntil = 0
  readonly sizer = new LeaseSizer()
  /** Requests waiting for a lease of this credential: the least the next lease asks for. */
  waiting = 0
  lastUse = 0
  leasing: Promise<LimitsLease | null> | undefined
  /**
   * The last principal admitted with credits, and a copy of it with a `credits` slot
   * (`base`): an admission clones `base` and sets the slot, which V8 does in about a
   * tenth of a microsecond, where `{ ...principal, credits }` (a spread, then a new
   * property) takes its slow path, several microseconds on Node.js 20.
   */
  baseOf: Principal | undefined
  base: { credits: PrincipalCredits | undefined } | undefined
  /** Given back and forgotten: a request finds a new state under its key. */
  gone = false
}

/** Names what credits are held under: the setting's epoch and the refill interval at `now`. */
function creditsKey(credits: StoredCredits, now: number): string {
  return `${credits.epoch}:${credits.refill === null ? 0 : refillPeriodStart(credits.refill.interval, now)}`
}

/** Names what slots are held under: the window at `now`. */
function slotsKey(rateLimit: RateLimitSetting, now: number): string {
  return `${rateWindowStart(rateLimit.windowSeconds, now)}:${rateLimit.windowSeconds}`
}

/** What the limits step needs of the service. */
export interface LimitsGateDeps {
  /** The store's limits part; `undefined` for a store without one (no limit can be set then). */
  readonly store: LimitsPart | undefined
  readonly now: () => number
  readonly lowRatio: number
  readonly idleReturnMs: number
  readonly leaseTargetMs: number
  /** How long the claim of a notice this instance makes holds, in ms (the notifier's `leaseMs`). */
  readonly noticeLeaseMs: number
  /** The notices a lease crossed into: events and the admins' email. */
  readonly crossed: (notices: readonly CreditNoticeClaim[]) => void
  /** The store call's deadline when the request has none of its own (`timeoutMs`). */
  readonly startBudget: () => Budget
}

/** The limits step and its lifecycle. */
export interface LimitsGateControl extends LimitsGate {
  /** Gives back what idle credentials hold; the timer calls it every `idleReturnMs / 2`. */
  sweep(): Promise<void>
  /** Stops the timer, waits for leases under way, and gives back everything held. */
  close(): Promise<void>
}

const keyOf = (limits: CredentialLimits): string => `${limits.kind}\u0000${limits.accountId}\u0000${limits.key}`
const LEASE = Symbol('lease')
const noop = (): void => {}

function rateRefusal(rateLimit: RateLimitSetting, windowEnd: number, now: number): AuthRefusal {
  const headers = limitHeaders({ policy: 'rate', quota: rateLimit.max, windowSeconds: rateLimit.windowSeconds, retryAfterMs: windowEnd - now })
  return limitRefused('rate_limit_exceeded', headers)
}

function creditsRefusal(credits: StoredCredits, now: number): AuthRefusal {
  const { refill } = credits
  const next = refill === null ? null : nextRefillAt(refill.interval, now)
  const windowSeconds = refill === null ? null : Math.round((next! - refillPeriodStart(refill.interval, now)) / 1000)
  return limitRefused(
    'credits_exhausted',
    limitHeaders({ policy: 'credits', quota: fullCredits(credits), windowSeconds, retryAfterMs: next === null ? null : next - now }),
  )
}

/**
 * Builds the limits step of one service.
 *
 * @example
 * ```ts
 * const gate = createLimitsGate({ store, now: Date.now, lowRatio: 0.1, idleReturnMs: 2_000, leaseTargetMs: 1_000, noticeLeaseMs: 300_000,
 *   crossed: () => {}, startBudget: () => startBudget(2_000) })
 * const admission = gate.admit(principal, Date.now(), undefined)
 * ```
 */
export function createLimitsGate(deps: LimitsGateDeps): LimitsGateControl {
  const { store, now: clock, lowRatio, leaseTargetMs } = deps
  const held = new Map<string, Held>()
  // The state of the credential a cached principal's limits name, found without making its key.
  const heldByLimits = new WeakMap<CredentialLimits, Held>()
  let closed = false

  /** The answer for `principal` from what is held, or {@link LEASE} when a lease must come first. Spends on admission. */
  function decide(state: Held, limits: CredentialLimits, principal: Principal, now: number): LimitsAdmission | typeof LEASE {
    const rateLimit = state.slotsOff === limits ? null : limits.rateLimit
    const credits = state.creditsOff === limits ? null : limits.credits
    let lease = false
    if (rateLimit !== null) {
      if (rateLimit !== state.slotsOf || now >= state.slotsUntil || now < state.slotsFrom) {
        const key = slotsKey(rateLimit, now)
        // A new window: what was held of the last one is gone with it.
        if (state.slotsFor !== key) Object.assign(state, { slots: 0, slotsOut: false, slotsFor: key })
        const from = rateWindowStart(rateLimit.windowSeconds, now)
        Object.assign(state, { slotsOf: rateLimit, slotsFrom: from, slotsUntil: from + rateLimit.windowSeconds * 1000 })
      }
      if (state.slots === 0) {
        if (state.slotsOut) return rateRefusal(rateLimit, rateWindowStart(rateLimit.windowSeconds, now) + rateLimit.windowSeconds * 1000, now)
        lease = true
      }
    }
    if (credits !== null) {
      if (credits !== state.creditsOf || now >= state.creditsUntil || now < state.creditsFrom) {
        const key = creditsKey(credits, now)
        // A new setting or a refill: credits held from before are not this balance's.
        if (state.creditsFor !== key) Object.assign(state, { credits: 0, creditsOutAt: undefined, creditsFor: key })
        const { refill } = credits
        Object.assign(state, {
          creditsOf: credits,
          creditsFrom: refill === null ? -Infinity : refillPeriodStart(refill.interval, now),
          creditsUntil: refill === null ? Infinity : nextRefillAt(refill.interval, now),
        })
      }
      if (state.credits === 0) {
        if (state.creditsOutAt !== undefined && now - state.creditsOutAt < RECHECK_MS) return creditsRefusal(credits, now)
        lease = true
      }
    }
    if (lease) return LEASE
    if (rateLimit !== null) state.slots--
    state.sizer.spent()
    state.lastUse = now
    if (credits === null) return principal
    state.credits--
    if (state.baseOf !== principal) Object.assign(state, { baseOf: principal, base: { ...principal, credits: undefined } })
    const admitted = { ...state.base! }
    admitted.credits = { remaining: state.balance + state.credits }
    return admitted as Principal
  }

  /** One lease for what `state` lacks; shared by the requests that wait for it. */
  function lease(state: Held, limits: CredentialLimits, now: number, budget: Budget): Promise<LimitsLease | null> {
    state.leasing ??= (async () => {
      const ask = state.sizer.next(now, leaseTargetMs, state.waiting)
      const wantsSlots = limits.rateLimit !== null && state.slotsOff !== limits && state.slots === 0 && !state.slotsOut
      const wantsCredits = limits.credits !== null && state.creditsOff !== limits && state.credits === 0
      const request = {
        kind: limits.kind,
        accountId: limits.accountId,
        key: limits.key,
        now,
        credits: wantsCredits ? ask : 0,
        slots: wantsSlots ? Math.min(ask, limits.rateLimit.max) : 0,
        lowRatio,
        notices: { token: crypto.randomUUID(), claimedUntil: now + deps.noticeLeaseMs },
      }
      const answer = await budget.run(store!.leaseLimits(request))
      take(state, limits, answer, now, { credits: request.credits > 0, slots: request.slots > 0 })
      if (answer !== null && answer.notices.length > 0) deps.crossed(answer.notices)
      return answer
    })().finally(() => {
      state.leasing = undefined
    })
    return state.leasing
  }

  /**
   * Adds a lease's answer at `now` to what `state` holds. Only a part the lease asked for
   * and got none of is out: a lease for slots alone is granted no credits, which says
   * nothing about the balance.
   */
  function take(state: Held, limits: CredentialLimits, answer: LimitsLease | null, now: number, asked: { credits: boolean; slots: boolean }): void {
    // What is held is named anew by the next request.
    Object.assign(state, { creditsOf: undefined, slotsOf: undefined })
    // A credential the store no longer has is refused once its invalidation arrives; nothing to count till then.
    const credits = answer === null ? null : answer.credits
    const slots = answer === null ? null : answer.slots
    if (limits.credits !== null) {
      if (credits === null) {
        state.creditsOff = limits
      } else {
        const key = creditsKey(limits.credits, now)
        // What is held under another name than the store's now cannot go back as this lease's.
        if (state.creditsFor !== key || credits.epoch !== state.epoch || credits.period !== state.period) state.credits = 0
        Object.assign(state, { creditsFor: key, epoch: credits.epoch, period: credits.period, balance: credits.balance })
        state.credits += credits.granted
        if (credits.granted > 0) state.creditsOutAt = undefined
        else if (asked.credits) state.creditsOutAt = now
      }
    }
    if (limits.rateLimit !== null) {
      if (slots === null) {
        state.slotsOff = limits
      } else if (slots.windowStart !== rateWindowStart(slots.windowMs / 1000, now)) {
        // The store has moved past this instance's window (its clock lags the newest lease's): none here until it moves on.
        state.slotsOut = true
      } else {
        const key = slotsKey(limits.rateLimit, now)
        if (state.slotsFor !== key || slots.windowStart !== state.returnWindowStart || slots.windowMs !== state.returnWindowMs) state.slots = 0
        Object.assign(state, { slotsFor: key, returnWindowStart: slots.windowStart, returnWindowMs: slots.windowMs })
        state.slots += slots.granted
        if (slots.granted > 0) state.slotsOut = false
        else if (asked.slots) state.slotsOut = true
      }
    }
  }

  async function leaseThen(state: Held, limits: CredentialLimits, principal: Principal, budget: Budget | undefined): Promise<LimitsAdmission> {
    const within = budget ?? deps.startBudget()
    state.waiting++
    try {
      for (;;) {
        const now = clock()
        const decided = decide(state, limits, principal, now)
        if (decided !== LEASE) return decided
        const started = state.leasing === undefined
        const leasing = state.leasing ?? lease(state, limits, now, within)
        // Another request's lease is waited for within this request's own deadline.
        let failed: unknown
        const settled: Promise<unknown> = started ? leasing : leasing.then(noop, (error: unknown) => void (failed = error))
        try {
          await (started ? settled : within.run(settled))
        } catch (error) {
          return refuse(error instanceof StorageTimeoutError ? 'storage_timeout' : 'storage_error')
        }
        // It ran out of its starter's time, not of this request's: lease again, within this one's.
        if (failed !== undefined && !(failed instanceof StorageTimeoutError)) return refuse('storage_error')
      }
    } finally {
      state.waiting--
    }
  }

  /** What `state` would give back at `now`: credits of its lease, slots of a window that still runs. */
  function returnOf(key: string, state: Held, now: number): LimitsReturn | undefined {
    const slots = state.returnWindowStart + state.returnWindowMs > now ? state.slots : 0
    if (state.credits === 0 && slots === 0) return undefined
    const [kind, accountId, credentialKey] = key.split('\u0000') as ['account' | 'user', string, string]
    return {
      kind,
      accountId,
      key: credentialKey,
      credits: state.credits,
      epoch: state.epoch,
      period: state.period,
      slots,
      windowStart: state.returnWindowStart,
      windowMs: state.returnWindowMs,
    }
  }

  /** Gives back what the states picked hold, and forgets them. A failed return loses it: never spent twice. */
  async function giveBack(pick: (state: Held, now: number) => boolean): Promise<void> {
    const now = clock()
    const returns: LimitsReturn[] = []
    for (const [key, state] of held) {
      if (state.leasing !== undefined || !pick(state, now)) continue
      const back = returnOf(key, state, now)
      if (back !== undefined) returns.push(back)
      held.delete(key)
      state.gone = true
    }
    if (returns.length > 0) await store?.returnLimits(returns, now).catch(() => undefined)
  }

  const timer = store === undefined ? undefined : setInterval(() => void sweep(), Math.max(25, deps.idleReturnMs / 2))
  unrefTimer(timer)
  const sweep = (): Promise<void> => giveBack((state, now) => now - state.lastUse >= deps.idleReturnMs)

  return {
    admit(principal, now, budget) {
      const limits = limitsOf(principal)
      if (limits === undefined || store === undefined) return principal
      // Nothing held any more: a limit counted without leases is not exact (SPEC §5.50), so a closed service refuses.
      if (closed) return refuse('storage_error')
      let state = heldByLimits.get(limits)
      if (state === undefined || state.gone) {
        const key = keyOf(limits)
        state = held.get(key)
        if (state === undefined) {
          state = new Held()
          held.set(key, state)
        }
        heldByLimits.set(limits, state)
      }
      const decided = state.leasing === undefined ? decide(state, limits, principal, now) : LEASE
      return decided === LEASE ? leaseThen(state, limits, principal, budget) : decided
    },
    sweep,
    async close() {
      closed = true
      if (timer !== undefined) clearInterval(timer)
      await Promise.allSettled([...held.values()].flatMap((state) => (state.leasing === undefined ? [] : [state.leasing])))
      await giveBack(() => true)
    },
  }
}
