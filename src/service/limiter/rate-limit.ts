import { isVisibleAscii } from '../../core/rules'
import { FAILURES } from '../../protocol/outcomes'
import type { AuthenticateCached, AuthOutcome, BudgetedAuthenticate } from '../authenticate/authenticate'
import { addressStoreKeys } from './client-address'
import type { ServiceContext } from '../context'
import { startBudget } from '../deadline'
import { MemoryRateLimitStore } from './memory-rate-limit-store'
import type { ResolvedRateLimit } from './options'

/** Failures are credential refusals only; 429, 503 and 504 are not the caller's guess. */
const isCountedFailure = (outcome: AuthOutcome): boolean => !outcome.ok && (outcome.statusCode === 400 || outcome.statusCode === 401)

/**
 * Wraps `authenticate` with the limiter; returns it untouched when the option is off,
 * so an unlimited service pays nothing. A limited address is answered 429 with
 * `Retry-After` before any credential check (no hashing, no store read). An account
 * past its count of failures is checked only after the credentials failed: its
 * failing attempts get 429 instead of 400, the same for existing and unknown
 * accounts, while valid credentials from an address that is not limited always pass
 * (SPEC §5.21). A request that succeeds reads only the address's count. A limiter
 * store that throws or misses the deadline lets the request through to the normal
 * check: the limiter is a second line of defence, never a reason to refuse valid
 * credentials on its own.
 */
export function withRateLimit(context: LimiterContext, authenticate: BudgetedAuthenticate, options: ResolvedRateLimit | false): BudgetedAuthenticate {
  return options === false ? authenticate : createLimiter(context, options).limit(authenticate)
}

/** What the limiter needs of the service: its clock, its audit hook and its storage deadline. */
export type LimiterContext = Pick<ServiceContext, 'now' | 'emit'> & { readonly options: { readonly timeoutMs: number } }

/** The limiter of one service: both of its paths share one store. */
export interface Limiter {
  /** Wraps the full `authenticate` path: see {@link withRateLimit}. */
  limit(authenticate: BudgetedAuthenticate): BudgetedAuthenticate
  /**
   * Puts the limiter in front of the synchronous cache-hit path. Once its store has
   * answered with a promise (a store shared by a fleet may), the gate answers
   * `undefined` from then on, and every request takes the full path. A hit is answered as the full
   * path answers valid credentials: at once unless the caller's address is limited
   * (then `undefined`, and the full path answers the 429). Successes are never counted,
   * and an account's count only ever holds back failing attempts (SPEC §5.21), so
   * without a per-address limit the cache-hit path is the same with or without it.
   */
  gate(cached: AuthenticateCached | undefined): AuthenticateCached | undefined
}

/**
 * The limiter for `options`; see {@link withRateLimit} for what it does.
 *
 * @example
 * ```ts
 * const limiter = createLimiter(context, rateLimitSchema.parse({}))
 * const authenticate = limiter.limit(createAuthenticate(context))
 * ```
 */
export function createLimiter(context: LimiterContext, options: ResolvedRateLimit): Limiter {
  const { windowMs, maxFailuresPerAddress: perAddress, maxFailuresPerAccount: perAccount } = options
  const store = options.store ?? new MemoryRateLimitStore({ maxKeys: options.maxTrackedKeys })
  const timeoutMs = context.options.timeoutMs
  const addressStoreKeyOf = addressStoreKeys(context.emit)

  // Sync answers (the memory store) skip the deadline timer; a failing store counts as "not limited".
  // Each limiter store call has its own deadline, outside the request's budget: a hung
  // limiter store must let requests through (see above), not spend their time.
  const settle = async <T>(call: () => T | Promise<T>, fallback: T): Promise<T> => {
    try {
      const result = call()
      return result instanceof Promise ? await startBudget(timeoutMs).run(result) : result
    } catch {
      return fallback
    }
  }
  const waitMs = (key: string | undefined, limit: number | false, now: number): Promise<number> | number =>
    key === undefined || limit === false ? 0 : settle(() => store.retryAfterMs(key, limit, windowMs, now), 0)
  const record = (key: string | undefined, limit: number | false, now: number): Promise<void> | undefined =>
    key === undefined || limit === false ? undefined : settle(() => store.recordFailure(key, limit, windowMs, now), undefined)

  const limit = (authenticate: BudgetedAuthenticate): BudgetedAuthenticate => async function limitedAuthenticate(input, budget, observation) {
    const accountId = input?.accountId
    const account = typeof accountId === 'string' && isVisibleAscii(accountId) ? accountId : undefined
    const accountKey = account === undefined ? undefined : `account:${account}`
    const addressStoreKey = perAddress === false ? undefined : addressStoreKeyOf(input?.clientAddress)

    // A flooding address is shed entirely, before any hashing or store read.
    const addressWait = await waitMs(addressStoreKey, perAddress, context.now())
    if (addressWait > 0) {
      if (observation !== undefined) observation.limitedBy = 'address'
      context.emit?.({ type: 'auth.failed', accountId: account ?? '', reason: 'rate_limited', statusCode: 429 })
      return rateLimited(addressWait)
    }

    const outcome = await authenticate(input, budget, observation)
    if (!isCountedFailure(outcome)) return outcome
    // The account's count is read only now, for a failing attempt (SPEC §5.21): nobody
    // can lock an account's partners out by failing against its ID, which is no secret.
    const failedAt = context.now()
    const accountWait = await waitMs(accountKey, perAccount, failedAt)
    await Promise.all([record(addressStoreKey, perAddress, failedAt), record(accountKey, perAccount, failedAt)])
    if (accountWait <= 0) return outcome
    if (observation !== undefined) observation.limitedBy = 'account'
    return rateLimited(accountWait)
  }

  const gate = (cached: AuthenticateCached | undefined): AuthenticateCached | undefined => {
    if (cached === undefined || perAddress === false) return cached
    // Until the store answers a promise once (then the full path takes every request).
    let synchronous = true
    // The last address's store key: a client's requests usually come in runs, and the
    // same key string keeps its hash for the store's Map.
    // (`null` before the first request: a request without an address has a key too.)
    let lastAddress: string | undefined | null = null
    let lastKey: string | undefined
    return function limitedCached(accountId, passcode, clientAddress) {
      if (!synchronous) return undefined
      if (clientAddress !== lastAddress) {
        lastAddress = clientAddress
        lastKey = addressStoreKeyOf(clientAddress)
      }
      const storeKey = lastKey
      if (storeKey !== undefined) {
        let wait: number | Promise<number>
        try {
          wait = store.retryAfterMs(storeKey, perAddress, windowMs, context.now())
        } catch {
          return undefined // the full path asks again, and lets the request through if it throws again
        }
        if (typeof wait !== 'number') {
          synchronous = false
          Promise.resolve(wait).catch(() => undefined)
          return undefined
        }
        if (wait > 0) return undefined
      }
      return cached(accountId, passcode)
    }
  }
  return { limit, gate }
}

/** The 429 refusal, with `Retry-After` in whole seconds (at least 1). */
function rateLimited(waitMs: number): AuthOutcome {
  const { statusCode, body } = FAILURES.rate_limited
  const seconds = Math.max(1, Math.ceil(waitMs / 1000))
  return Object.freeze({ ok: false, reason: 'rate_limited', statusCode, body, headers: Object.freeze({ 'retry-after': String(seconds) }) })
}
