import type { Database, Subscription } from './database-interface'
import { deliveryProof, type ProofState } from './delivery-proof'
import { namedStatement, sqlType } from './named-statement'
import { DEFAULT_PROOF_INTERVAL_MS } from './options'

/** A notification on a channel, sent as a statement (the delivery proof's). */
const NOTIFY = namedStatement({ channel: sqlType.text, payload: sqlType.text }, ($) => `SELECT pg_notify(${$.channel}, ${$.payload})`)

export type { ProofState }

/** What one store or registry hears on a shared channel. */
export interface ChannelSubscriber {
  /** Each notification's payload. */
  readonly onPayload: (payload: string) => void
  /** Listening resumed after a time without it: payloads may have been lost. */
  readonly onGap?: (() => void) | undefined
  /** The delivery proof was lost, or regained (SPEC §5.32). */
  readonly onProof?: ((state: ProofState) => void) | undefined
  /** A proof came back: what was heard vouches for caches until `until` (`performance.now()` ms; see {@link deliveryProof}). */
  readonly onFresh?: ((until: number) => void) | undefined
}

/** How the shared `LISTEN` is made and proven; the first subscriber of a channel sets it. */
export interface SharedListenOptions {
  /** `listenConnectionString`. */
  readonly connectionString?: string | undefined
  /** `proofIntervalMs`; @default {@link DEFAULT_PROOF_INTERVAL_MS} */
  readonly proofIntervalMs?: number | undefined
}

interface SharedChannel {
  readonly subscribers: Set<ChannelSubscriber>
  readonly subscription: Subscription
  readonly proof: { readonly state: () => ProofState | undefined; stop(): void } | undefined
}

const shared = new WeakMap<Database, Map<string, SharedChannel>>()

function each(subscribers: ReadonlySet<ChannelSubscriber>, call: (subscriber: ChannelSubscriber) => void): void {
  for (const subscriber of [...subscribers]) {
    try {
      call(subscriber)
    } catch {
      // One subscriber's failure must not reach the listening connection or the others.
    }
  }
}

/**
 * `database.listen`, shared: every store and partner registry over the same
 * database, channel and listening connection string hears it through one `LISTEN`
 * (for a `pg` Pool, one connection of its own rather than one per listener), proven
 * by one {@link deliveryProof} (none for PGlite, whose notifications never leave the
 * process). The `LISTEN` and its proof stop when the last subscriber stops. A
 * subscriber that joins while delivery is unproven is told so at once.
 */
export function listenShared(database: Database, channel: string, subscriber: ChannelSubscriber, options: SharedListenOptions): Subscription {
  let channels = shared.get(database)
  if (channels === undefined) {
    channels = new Map()
    shared.set(database, channels)
  }
  const byName = channels
  const key = `${channel}\n${options.connectionString ?? ''}`
  let entry = byName.get(key)
  if (entry === undefined) {
    const subscribers = new Set<ChannelSubscriber>()
    let proof: ReturnType<typeof deliveryProof> | undefined
    const subscription = database.listen(
      channel,
      (payload) => {
        if (proof?.heard(payload) === true) return
        each(subscribers, (one) => one.onPayload(payload))
      },
      () => {
        each(subscribers, (one) => one.onGap?.())
        proof?.listening()
      },
      { connectionString: options.connectionString },
    )
    if (database.local !== true) {
      proof = deliveryProof({
        send: (payload) => database.query(NOTIFY.text, NOTIFY.values({ channel, payload })),
        renew: () => subscription.renew?.(),
        intervalMs: options.proofIntervalMs ?? DEFAULT_PROOF_INTERVAL_MS,
        report: (state) => each(subscribers, (one) => one.onProof?.(state)),
        fresh: (until) => each(subscribers, (one) => one.onFresh?.(until)),
      })
      subscription.ready.then(
        () => proof?.listening(),
        () => undefined,
      )
    }
    const created: SharedChannel = { subscribers, subscription, proof }
    entry = created
    byName.set(key, created)
    // A LISTEN that failed for good is started afresh by the next subscriber.
    subscription.ready.catch(() => {
      if (byName.get(key) === created) {
        byName.delete(key)
        created.proof?.stop()
      }
    })
  }
  const current = entry
  current.subscribers.add(subscriber)
  const state = current.proof?.state()
  if (state !== undefined && !state.proven) subscriber.onProof?.(state)
  let stopped = false
  return {
    ready: current.subscription.ready,
    async stop() {
      if (stopped) return
      stopped = true
      current.subscribers.delete(subscriber)
      if (current.subscribers.size > 0) return
      if (byName.get(key) === current) byName.delete(key)
      current.proof?.stop()
      await current.subscription.stop()
    },
  }
}
