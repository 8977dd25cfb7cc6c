import { isVisibleAscii } from '../../core/rules'
import { FAILURES } from '../../protocol/outcomes'
import type { AuthOutcome, BudgetedAuthenticate } from '../authenticate/authenticate'
import { clientAddressKey } from './client-address'
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
/** What the limiter needs of the service: its clock, its audit hook and its storage deadline. */
export type LimiterContext = Pick<ServiceContext, 'now' | 'emit'> & { readonly options: { readonly timeoutMs: number } }

export function withRateLimit(context: LimiterContext, authenticate: BudgetedAuthenticate, options: ResolvedRateLimit | false): BudgetedAuthenticate {
  if (options === false) return authenticate
  const { windowMs, maxFailuresPerAddress: perAddress, maxFailuresPerAccount: perAccount } = options
  const store = options.store ?? new MemoryRateLimitStore({ maxKeys: options.maxTrackedKeys })
  const timeoutMs = context.options.timeoutMs

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

  return async function limitedAuthenticate(input, budget, observation) {
    const accountId = input?.accountId
    const account = typeof accountId === 'string' && isVisibleAscii(accountId) ? accountId : undefined
    const addressKey = perAddress === false ? undefined : clientAddressKey(input?.clientAddress)
    const accountKey = account === undefined ? undefined : `account:${account}`
    const addressStoreKey = addressKey === undefined ? undefined : `address:${addressKey}`

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
}

/** The 429 refusal, with `Retry-After` in whole seconds (at least 1). */
function rateLimited(waitMs: number): AuthOutcome {
  const { statusCode, body } = FAILURES.rate_limited
  const seconds = Math.max(1, Math.ceil(waitMs / 1000))
  return Object.freeze({ ok: false, reason: 'rate_limited', statusCode, body, headers: Object.freeze({ 'retry-after': String(seconds) }) })
}
