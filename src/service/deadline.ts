import { PasscodeAuthError, StorageError, StorageTimeoutError } from '../core/errors'

/**
 * Settles with `promise`, or rejects with {@link StorageTimeoutError} after `ms`.
 * A store error becomes a {@link StorageError} that keeps the original as `cause`.
 * The losing promise's later rejection is observed, so it never becomes an
 * unhandled rejection.
 */
export function withDeadline<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new StorageTimeoutError(ms)), ms)
  })
  return Promise.race([promise.catch(asStorageError), timeout]).finally(() => clearTimeout(timer))
}

/** Runs a store call and turns whatever it throws into a typed storage error. */
export async function storeCall<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call()
  } catch (error) {
    return asStorageError(error)
  }
}

function asStorageError(error: unknown): never {
  if (error instanceof PasscodeAuthError) throw error
  throw new StorageError({ cause: error })
}
