import type { Invalidation } from '../../ports/passcode-store'
import type { Database, Subscription } from './database-interface'
import { listenShared, type SharedListenOptions } from './shared-listen'

/** Subscribers of one store and, when listening, the `LISTEN` that feeds them. */
export interface InvalidationHub {
  subscribe(this: void, listener: (invalidation: Invalidation) => void): () => void
  /** Called after a write that published `invalidation` committed. */
  committed(invalidation: Invalidation): void
  /** Settles once invalidations from other instances are being received. */
  ready(this: void): Promise<void>
  close(this: void): Promise<void>
}

/** Reads a payload from the channel; anything else sent on it is ignored. */
export function parseInvalidation(payload: string): Invalidation | undefined {
  let value: unknown
  try {
    value = JSON.parse(payload)
  } catch {
    return undefined
  }
  if (typeof value !== 'object' || value === null) return undefined
  const { type, accountId, passcodeId, userId } = value as Record<string, unknown>
  if (typeof accountId !== 'string') return undefined
  if (type === 'account') return { type, accountId }
  if (type === 'account_passcode' && typeof passcodeId === 'string') return { type, accountId, passcodeId }
  if (type === 'user_passcode' && typeof userId === 'string') return { type, accountId, userId }
  return undefined
}

/**
 * With `listen`, every instance (this one included) hears committed writes through
 * `LISTEN`, started at the first subscription; without it, only this instance's
 * writes reach its subscribers, directly after commit. While listening, the delivery
 * proof's state changes reach the subscribers as `{ type: 'unproven' }` and
 * `{ type: 'proven' }` (SPEC §5.32), and each proof heard back as `{ type: 'fresh', until }`;
 * one who subscribes while it is unproven hears so at once.
 */
export function invalidationHub(database: Database, channel: string, listen: boolean, listenOptions: SharedListenOptions = {}): InvalidationHub {
  const listeners = new Set<(invalidation: Invalidation) => void>()
  let subscription: Subscription | undefined
  let closed = false
  let unproven: Invalidation | undefined

  const deliver = (invalidation: Invalidation): void => {
    for (const listener of listeners) {
      try {
        listener(invalidation)
      } catch {
        // A subscriber's failure must not reach the write or the other subscribers.
      }
    }
  }

  const start = (): Promise<void> => {
    if (!listen || closed) return Promise.resolve()
    if (subscription === undefined) {
      const started = listenShared(
        database,
        channel,
        {
          onPayload(payload) {
            const invalidation = parseInvalidation(payload)
            if (invalidation !== undefined) deliver(invalidation)
          },
          // Changes committed while no LISTEN was active were never heard: drop everything.
          onGap: () => deliver({ type: 'all' }),
          onProof(state) {
            unproven = state.proven ? undefined : { type: 'unproven', message: state.message }
            deliver(unproven ?? { type: 'proven' })
          },
          onFresh: (until) => deliver({ type: 'fresh', until }),
        },
        listenOptions,
      )
      subscription = started
      // A failed LISTEN is tried again by the next subscribe() or ready().
      started.ready.catch(() => {
        if (subscription === started) subscription = undefined
      })
    }
    return subscription.ready
  }

  return {
    subscribe(listener) {
      listeners.add(listener)
      start().catch(() => undefined)
      if (unproven !== undefined && listeners.has(listener)) {
        try {
          listener(unproven)
        } catch {
          // As in deliver.
        }
      }
      return () => {
        listeners.delete(listener)
      }
    },
    committed(invalidation) {
      if (!listen) deliver(invalidation)
    },
    ready: start,
    async close() {
      closed = true
      listeners.clear()
      const current = subscription
      subscription = undefined
      // Best effort: the host may have closed the database first.
      await current?.stop().catch(() => undefined)
    },
  }
}
