import { InvalidOptionsError } from '../../core/errors'
import { unrefTimer } from '../../core/time'
import type { NotificationReport } from './notification-report'

/** Options of {@link startExpiryNotifier}. */
export interface ExpiryNotifierOptions {
  /**
   * Time between the starts of two passes, in ms. A pass that runs longer than this
   * delays the next one; passes never overlap.
   * @default 3600000 (one hour)
   */
  intervalMs?: number
  /** Whether the first pass runs at once rather than after `intervalMs`. @default true */
  runImmediately?: boolean
  /** Receives each pass's report, for metrics. Errors it throws are ignored. */
  onReport?: (report: NotificationReport) => void
  /**
   * Receives the error of a pass that failed as a whole (store down, no mailer). The
   * service's `onEvent` hook already gets a `notifier.failed` event for it. Errors it
   * throws are ignored.
   */
  onError?: (error: unknown) => void
}

/** A running notifier: what {@link startExpiryNotifier} returns. */
export interface ExpiryNotifier {
  /** Stops scheduling passes; resolves once the pass in progress, if any, has finished. Never rejects. */
  stop(): Promise<void>
}

const MAX_TIMER_MS = 2_147_483_647

/**
 * Runs `auth.notifyExpirations()` on a schedule. Passes never overlap, the timers are
 * `unref`'d so the notifier never keeps the process alive, and a failed pass is
 * reported (through `onEvent` as `notifier.failed`, and `onError`) without stopping
 * the schedule. Several processes may run notifiers over one shared store: the store's
 * claims make sure each email goes out once.
 *
 * @param auth - anything with `notifyExpirations()`, normally a `createPasscodeAuth` service
 * @param options - see {@link ExpiryNotifierOptions}
 * @example
 * ```ts
 * import { createPasscodeAuth, startExpiryNotifier } from 'passcode-auth'
 *
 * const auth = createPasscodeAuth({ store, mailer, recipients: (accountId) => admins(accountId) })
 * const notifier = startExpiryNotifier(auth, { intervalMs: 15 * 60_000 })
 * process.on('SIGTERM', async () => {
 *   await notifier.stop()
 * })
 * ```
 */
export function startExpiryNotifier(auth: { notifyExpirations(): Promise<NotificationReport> }, options: ExpiryNotifierOptions = {}): ExpiryNotifier {
  const intervalMs = options.intervalMs ?? 3_600_000
  if (!Number.isInteger(intervalMs) || intervalMs < 1 || intervalMs > MAX_TIMER_MS) {
    throw new InvalidOptionsError('intervalMs', `must be a whole number of milliseconds from 1 to ${MAX_TIMER_MS}`)
  }
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- a JavaScript caller may pass no service
  if (typeof auth?.notifyExpirations !== 'function') {
    throw new InvalidOptionsError('auth', 'startExpiryNotifier needs a passcode-auth service (createPasscodeAuth)')
  }

  let stopped = false
  let timer: ReturnType<typeof setTimeout> | undefined
  let running: Promise<void> | undefined

  const quietly = (callback: (() => void) | undefined): void => {
    try {
      callback?.()
    } catch {
      // The host's callbacks must not break the schedule.
    }
  }

  const schedule = (delayMs: number): void => {
    if (stopped) return
    timer = setTimeout(tick, delayMs)
    unrefTimer(timer)
  }

  const pass = async (): Promise<void> => {
    try {
      const report = await auth.notifyExpirations()
      quietly(() => options.onReport?.(report))
    } catch (error) {
      quietly(() => options.onError?.(error))
    }
  }

  function tick(): void {
    timer = undefined
    const startedAt = performance.now()
    running = pass().finally(() => {
      running = undefined
      schedule(Math.max(0, intervalMs - (performance.now() - startedAt)))
    })
  }

  schedule(options.runImmediately === false ? intervalMs : 0)

  return {
    async stop() {
      stopped = true
      if (timer !== undefined) clearTimeout(timer)
      timer = undefined
      await running
    },
  }
}
