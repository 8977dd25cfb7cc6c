import { PasscodeAuthError, StorageError, StorageTimeoutError } from '../core/errors'
import { unrefTimer } from '../core/time'

/**
 * Settles with `promise`, or, once `ms` have passed, with what `onTimeout` returns (or
 * rejects with what it throws). The timer is cleared as soon as either side settles
 * and never keeps the process alive; the losing promise's later rejection is observed,
 * so it never becomes an unhandled rejection. The one timeout race of the package.
 *
 * @param ms - how long to wait, in milliseconds
 * @param onTimeout - the answer once the time is up
 * @param mapError - turns `promise`'s rejection into the one to settle with (default: as it is)
 * @example
 * ```ts
 * const answer = await settleWithin(mailer.send(message), 30_000, () => TIMED_OUT)
 * ```
 */
export function settleWithin<T, F>(promise: Promise<T>, ms: number, onTimeout: () => F, mapError?: (error: unknown) => unknown): Promise<T | F> {
  // One promise and one timer (no race, no finally): the budget runs this on every cache miss.
  return new Promise<T | F>((resolve, reject) => {
    const timer = setTimeout(
      () => {
        try {
          resolve(onTimeout())
        } catch (error) {
          reject(error)
        }
      },
      Math.max(0, ms),
    )
    unrefTimer(timer)
    promise.then(
      (value) => {
        clearTimeout(timer)
        resolve(value)
      },
      (error: unknown) => {
        clearTimeout(timer)
        reject(mapError === undefined ? error : mapError(error))
      },
    )
  })
}

/**
 * One deadline shared by every storage call of a request (SPEC §5.23): a verification
 * or a connect, credential lookup and partner lookup together, ends within `timeoutMs`
 * of its start, not within `timeoutMs` of each call. The limiter's store calls are not
 * in it: each has a deadline of its own and lets the request through when late
 * (`limiter/rate-limit.ts`).
 */
export interface Budget {
  /**
   * Settles with `promise` while time is left, or rejects with a
   * {@link StorageTimeoutError} when the request's time is up; a store error becomes a
   * {@link StorageError} that keeps the original as `cause`.
   */
  run<T>(promise: Promise<T>): Promise<T>
}

/**
 * Starts the budget of one request: `timeoutMs` from now (`Date.now`, which fake
 * timers control in tests).
 *
 * @param timeoutMs - the whole request's storage deadline (the `timeoutMs` option)
 * @example
 * ```ts
 * const budget = startBudget(context.options.timeoutMs)
 * const match = await budget.run(store.findCredentialByHash(hash))
 * const listed = await budget.run(Promise.resolve(partners.isWhitelisted(name)))
 * ```
 */
export function startBudget(timeoutMs: number): Budget {
  const endsAt = Date.now() + timeoutMs
  return {
    run(promise) {
      const left = endsAt - Date.now()
      if (left <= 0) {
        promise.catch(() => {})
        return Promise.reject(new StorageTimeoutError(timeoutMs))
      }
      return settleWithin(
        promise,
        left,
        () => {
          throw new StorageTimeoutError(timeoutMs)
        },
        storageErrorOf,
      )
    },
  }
}

/** Runs a store call and turns whatever it throws into a typed storage error. */
export async function storeCall<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call()
  } catch (error) {
    return asStorageError(error)
  }
}

function storageErrorOf(error: unknown): unknown {
  return error instanceof PasscodeAuthError ? error : new StorageError({ cause: error })
}

function asStorageError(error: unknown): never {
  throw storageErrorOf(error)
}
