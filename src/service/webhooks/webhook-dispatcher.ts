import { InvalidOptionsError } from '../../core/errors'
import { unrefTimer } from '../../core/time'
import type { WebhookDispatchReport } from './dispatch'

/** Options of {@link startWebhookDispatcher}. */
export interface WebhookDispatcherOptions {
  /**
   * Time between the starts of two passes, in ms: how soon a new event leaves (its first
   * attempt is due at once) and how late a retry may be. Passes never overlap.
   * @default 1000
   */
  intervalMs?: number
  /** Receives each pass's report, for metrics. Errors it throws are ignored. */
  onReport?: (report: WebhookDispatchReport) => void
  /** Receives the error of a pass that failed as a whole (the store down). Errors it throws are ignored. */
  onError?: (error: unknown) => void
}

/** A running dispatcher: what {@link startWebhookDispatcher} returns. */
export interface WebhookDispatcher {
  /** Stops scheduling passes; resolves once the pass in progress, if any, has finished. Never rejects. */
  stop(): Promise<void>
}

const MAX_TIMER_MS = 2_147_483_647

/**
 * Delivers webhooks (SPEC §5.53) on a schedule: runs `auth.webhooks.dispatch()` every
 * `intervalMs`, and again at once while a pass found more due than one pass takes.
 * Passes never overlap, the timers are `unref`'d so the dispatcher never keeps the
 * process alive, and a failed pass is reported (through `onEvent` as
 * `webhook.dispatch_failed`, and `onError`) without stopping the schedule. Run one in
 * every instance of a fleet: the store's claims make sure one instance sends each attempt.
 *
 * @param auth - anything with `webhooks.dispatch()`, normally a `createPasscodeAuth` service
 * @param options - see {@link WebhookDispatcherOptions}
 * @example
 * ```ts
 * import { createPasscodeAuth, startWebhookDispatcher } from 'passcode-auth'
 *
 * const auth = createPasscodeAuth({ store, mailer, recipients })
 * const dispatcher = startWebhookDispatcher(auth)
 * process.on('SIGTERM', async () => {
 *   await dispatcher.stop()
 * })
 * ```
 */
export function startWebhookDispatcher(
  auth: { readonly webhooks: { dispatch(): Promise<WebhookDispatchReport> } },
  options: WebhookDispatcherOptions = {},
): WebhookDispatcher {
  const intervalMs = options.intervalMs ?? 1_000
  if (!Number.isInteger(intervalMs) || intervalMs < 1 || intervalMs > MAX_TIMER_MS) {
    throw new InvalidOptionsError('intervalMs', `must be a whole number of milliseconds from 1 to ${MAX_TIMER_MS}`)
  }
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- a JavaScript caller may pass no service
  if (typeof auth?.webhooks?.dispatch !== 'function') {
    throw new InvalidOptionsError('auth', 'startWebhookDispatcher needs a passcode-auth service (createPasscodeAuth)')
  }

  let stopped = false
  let timer: ReturnType<typeof setTimeout> | undefined
  let running: Promise<void> | undefined

  const quietly = (callback: () => void): void => {
    try {
      callback()
    } catch {
      // The host's callbacks must not break the schedule.
    }
  }

  const schedule = (delayMs: number): void => {
    if (stopped) return
    timer = setTimeout(tick, delayMs)
    unrefTimer(timer)
  }

  /** Whether the pass left work behind (it stopped at its bound): then the next starts at once. */
  const pass = async (): Promise<boolean> => {
    try {
      const report = await auth.webhooks.dispatch()
      quietly(() => options.onReport?.(report))
      return report.more
    } catch (error) {
      quietly(() => options.onError?.(error))
      return false
    }
  }

  function tick(): void {
    timer = undefined
    const startedAt = performance.now()
    running = pass().then((more) => {
      running = undefined
      schedule(more ? 0 : Math.max(0, intervalMs - (performance.now() - startedAt)))
    })
  }

  schedule(0)

  return {
    async stop() {
      stopped = true
      if (timer !== undefined) clearTimeout(timer)
      timer = undefined
      await running
    },
  }
}
