import type { Database, Subscription } from './database-interface'

interface Subscriber {
  readonly onPayload: (payload: string) => void
  readonly onGap: (() => void) | undefined
}

interface SharedChannel {
  readonly subscribers: Set<Subscriber>
  readonly subscription: Subscription
}

const shared = new WeakMap<Database, Map<string, SharedChannel>>()

function each(subscribers: ReadonlySet<Subscriber>, call: (subscriber: Subscriber) => void): void {
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
 * database and channel hears it through one `LISTEN` (for a `pg` Pool, one
 * connection of its own rather than one per listener). The `LISTEN` stops when the
 * last subscriber stops.
 */
export function listenShared(database: Database, channel: string, onPayload: (payload: string) => void, onGap?: () => void): Subscription {
  let channels = shared.get(database)
  if (channels === undefined) {
    channels = new Map()
    shared.set(database, channels)
  }
  const byName = channels
  let entry = byName.get(channel)
  if (entry === undefined) {
    const subscribers = new Set<Subscriber>()
    const subscription = database.listen(
      channel,
      (payload) => each(subscribers, (subscriber) => subscriber.onPayload(payload)),
      () => each(subscribers, (subscriber) => subscriber.onGap?.()),
    )
    const created: SharedChannel = { subscribers, subscription }
    entry = created
    byName.set(channel, created)
    // A LISTEN that failed for good is started afresh by the next subscriber.
    subscription.ready.catch(() => {
      if (byName.get(channel) === created) byName.delete(channel)
    })
  }
  const current = entry
  const subscriber: Subscriber = { onPayload, onGap }
  current.subscribers.add(subscriber)
  let stopped = false
  return {
    ready: current.subscription.ready,
    async stop() {
      if (stopped) return
      stopped = true
      current.subscribers.delete(subscriber)
      if (current.subscribers.size > 0) return
      if (byName.get(channel) === current) byName.delete(channel)
      await current.subscription.stop()
    },
  }
}
