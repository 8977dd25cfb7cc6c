import { addressStoreKeys } from '../client-address'
import { startBudget } from '../deadline'
import type { EventInput } from '../events'
import { MemoryRateLimitStore } from './memory-rate-limit-store'
import type { ResolvedRateLimit } from './options'

/** What the limiter needs of the service: its storage deadline (each limiter store call gets its own) and the audit hook. */
export interface LimiterDeps {
  readonly timeoutMs: number
  /** Reports once that a request came without a client address (`limiter.no_client_address`). */
  readonly emit: ((event: EventInput) => void) | undefined
}

/**
 * The brute-force limiter of the `rateLimit` option (SPEC §5.21), as the verification
 * pipeline calls it: its one entry point, made once per service. Failed attempts are
 * counted per client address (IPv6 by its /64) and per account ID in a sliding window
 * kept by its store. A limited address is refused before any credential check (no
 * hashing, no store read), cached credentials included. An account past its count is
 * checked only after its credentials failed: its failing attempts get 429 instead of
 * 400, the same for existing and unknown accounts, while valid credentials from an
 * address that is not limited always pass. A limiter store that throws or misses the
 * deadline lets the request through to the normal check: the limiter is a second line
 * of defence, never a reason to refuse valid credentials on its own.
 *
 * The memory store answers synchronously, and then so does {@link RateLimiter.admit}:
 * the pipeline's warm path stays free of promises. A store that answers with promises
 * (one shared by a fleet) is given the deadline.
 *
 * @example
 * ```ts
 * const limiter = createLimiter({ timeoutMs: 5_000, emit: undefined }, rateLimitSchema.parse({}))
 * const wait = limiter.admit('192.0.2.1', Date.now()) // 0: not limited
 * ```
 */
export function createLimiter(deps: LimiterDeps, options: ResolvedRateLimit): RateLimiter {
  const { windowMs, maxFailuresPerAddress: perAddress, maxFailuresPerAccount: perAccount } = options
  const store = options.store ?? new MemoryRateLimitStore({ maxKeys: options.maxTrackedKeys })
  const { timeoutMs } = deps
  const addressStoreKeyOf = addressStoreKeys(deps.emit)

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

  // The last address's store key: a client's requests usually come in runs, and the
  // same key string keeps its hash for the store's Map.
  // (`null` before the first request: a request without an address has a key too.)
  let lastAddress: string | undefined | null = null
  let lastKey: string | undefined
  const addressKey = (clientAddress: string | undefined): string | undefined => {
    if (clientAddress !== lastAddress) {
      lastAddress = clientAddress
      lastKey = addressStoreKeyOf(clientAddress)
    }
    return lastKey
  }

  return {
    readsAddress: perAddress !== false,
    admit(clientAddress, now) {
      if (perAddress === false) return 0
      const key = addressKey(clientAddress)
      if (key === undefined) return 0
      let wait: number | Promise<number>
      try {
        wait = store.retryAfterMs(key, perAddress, windowMs, now)
      } catch {
        // Not an answer at once: the request takes the full path, which lets it through.
        return Promise.resolve(0)
      }
      return typeof wait === 'number' ? wait : settle(() => wait, 0)
    },
    async failed(accountId, clientAddress, now) {
      const accountKey = accountId === undefined ? undefined : `account:${accountId}`
      const addressStoreKey = perAddress === false ? undefined : addressStoreKeyOf(clientAddress)
      const accountWait = await waitMs(accountKey, perAccount, now)
      await Promise.all([record(addressStoreKey, perAddress, now), record(accountKey, perAccount, now)])
      return accountWait
    },
  }
}

/**
 * The limiter as the verification pipeline calls it: see {@link createLimiter}. The
 * pipeline's `Limiter` (verify/pipeline.ts) is this shape.
 */
export interface RateLimiter {
  /** Whether it counts per address: the pipeline reads the caller's address only then. */
  readonly readsAddress: boolean
  /** How long the address must still wait (0: none); a number while the store answers at once. Never rejects. */
  admit(clientAddress: string | undefined, now: number): number | Promise<number>
  /** Counts a failed attempt against the address and the account; answers how long the account must still wait. */
  failed(accountId: string | undefined, clientAddress: string | undefined, now: number): Promise<number>
}
