import { AbortedError, type ConnectError, TimeoutError } from './errors'

/**
 * One call's deadline and cancellation: a single internal signal that fires with a
 * {@link TimeoutError} when `timeoutMs` passes or an {@link AbortedError} when a
 * caller's signal fires. Everything the call awaits goes through {@link CallScope.guard},
 * so cancellation is immediate even with a `fetch` that ignores its signal.
 */
export interface CallScope {
  /** Passed to `fetch`; its `reason` is the ConnectError to throw once it fired. */
  readonly signal: AbortSignal
  /** Milliseconds left before the deadline. */
  remainingMs(this: void): number
  /** Settles like `promise`, or rejects with the scope's error as soon as it fires. */
  guard<T>(this: void, promise: Promise<T>): Promise<T>
  /** Waits `ms`, or rejects with the scope's error as soon as it fires. */
  sleep(this: void, ms: number): Promise<void>
  /** Clears the timer and detaches from the caller's signals (they may outlive the call). */
  dispose(this: void): void
}

/** Opens the scope of one call. Signals already aborted abort it at once. */
export function openCallScope(timeoutMs: number, callerSignals: readonly (AbortSignal | undefined)[]): CallScope {
  const controller = new AbortController()
  const deadline = Date.now() + timeoutMs
  const abort = (reason: ConnectError): void => {
    if (!controller.signal.aborted) controller.abort(reason)
  }
  const timer = setTimeout(() => abort(new TimeoutError(timeoutMs)), timeoutMs)
  const detachers: (() => void)[] = []
  for (const callerSignal of callerSignals) {
    if (callerSignal === undefined) continue
    if (callerSignal.aborted) {
      abort(new AbortedError({ cause: callerSignal.reason }))
      break
    }
    const onAbort = (): void => abort(new AbortedError({ cause: callerSignal.reason }))
    callerSignal.addEventListener('abort', onAbort, { once: true })
    detachers.push(() => callerSignal.removeEventListener('abort', onAbort))
  }
  const signal = controller.signal

  function guard<T>(promise: Promise<T>): Promise<T> {
    if (signal.aborted) {
      promise.catch(() => {})
      return Promise.reject(signal.reason)
    }
    return new Promise<T>((resolve, reject) => {
      const onAbort = (): void => reject(signal.reason)
      signal.addEventListener('abort', onAbort, { once: true })
      promise.then(
        (value) => {
          signal.removeEventListener('abort', onAbort)
          resolve(value)
        },
        (error: unknown) => {
          signal.removeEventListener('abort', onAbort)
          reject(signal.aborted ? signal.reason : error)
        },
      )
    })
  }

  return {
    signal,
    remainingMs: () => deadline - Date.now(),
    guard,
    sleep: (ms) => {
      let wait: ReturnType<typeof setTimeout> | undefined
      return guard(new Promise<void>((resolve) => (wait = setTimeout(resolve, ms)))).finally(() => clearTimeout(wait))
    },
    dispose() {
      clearTimeout(timer)
      for (const detach of detachers) detach()
    },
  }
}
