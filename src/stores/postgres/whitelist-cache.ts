import type { Database, Subscription } from './database-interface'
import { listenShared, type SharedListenOptions } from './shared-listen'

/** The payload `postgresPartners` publishes on the channel when the whitelist changed. */
export const PARTNERS_CHANGED = '{"type":"partners"}'

/** How long a loaded whitelist is trusted without hearing of a change: bounds staleness while `LISTEN` is down. */
export const WHITELIST_TTL_MS = 30_000

/** The whitelist held in memory, as the partner registry uses it. */
export interface WhitelistCache {
  /** The answer from memory when the list is loaded and fresh; else a promise of it. */
  has(this: void, normalizedName: string): boolean | Promise<boolean>
  /** Forgets the list (this instance changed it); the next lookup loads it again. */
  drop(): void
  /** Stops listening. */
  close(this: void): Promise<void>
}

/**
 * Keeps the partner whitelist in memory per instance. The list is loaded whole once
 * `LISTEN` on the channel is active, so no change committed after the load goes
 * unheard; every `PARTNERS_CHANGED` notification, and every resumption of `LISTEN`
 * after a gap, drops it, and the next lookup loads it again (one read shared by the
 * lookups waiting for it). A load that a change overtook is not kept, and lookups
 * made after the change wait for a load of their own. Until `LISTEN`
 * is active, and for good without `listen`, each lookup reads the database, as
 * without a cache. A loaded list is also dropped after {@link WHITELIST_TTL_MS}:
 * a listening connection that dropped unnoticed cannot keep a removed partner
 * whitelisted for longer. While the store's delivery proof is lost (SPEC §5.32) the
 * list is dropped and each lookup reads the database, as before `LISTEN`; once it is
 * proven again the list is loaded afresh. Past the `until` of the last proof heard back
 * (the delivery proof's `fresh`), each lookup reads the database too, whether or not a timer
 * has said the proof is lost yet (a starved process).
 */
export function whitelistCache(options: {
  readonly database: Database
  readonly channel: string
  readonly listen: boolean
  readonly listenOptions?: SharedListenOptions
  readonly loadAll: () => Promise<readonly string[]>
  readonly loadOne: (normalizedName: string) => Promise<boolean>
  readonly now?: () => number
}): WhitelistCache {
  const { database, channel, listen, loadAll, loadOne } = options
  const listenOptions = options.listenOptions ?? {}
  const now = options.now ?? Date.now
  let names: ReadonlySet<string> | undefined
  let loadedAt = 0
  let generation = 0
  /** The load under way, and the generation it started at: a later lookup joins it only if nothing changed since. */
  let loading: { readonly generation: number; readonly promise: Promise<ReadonlySet<string>> } | undefined
  let subscription: Subscription | undefined
  let listening = false
  let proven = true
  /** `performance.now()` past which the list is not trusted without a newer proof (never, until one came back). */
  let freshUntil = Number.POSITIVE_INFINITY
  let closed = false

  const drop = (): void => {
    generation++
    names = undefined
  }

  const subscribe = (): void => {
    if (!listen || closed || subscription !== undefined) return
    const started = listenShared(
      database,
      channel,
      {
        onPayload: (payload) => payload === PARTNERS_CHANGED && drop(),
        onGap: drop,
        onProof(state) {
          proven = state.proven
          drop()
        },
        onFresh(until) {
          freshUntil = until
        },
      },
      listenOptions,
    )
    subscription = started
    started.ready.then(
      () => {
        if (subscription === started) listening = true
      },
      () => {
        if (subscription === started) subscription = undefined
      },
    )
  }

  const load = (): Promise<ReadonlySet<string>> => {
    const startedAt = now()
    const at = generation
    const promise: Promise<ReadonlySet<string>> = loadAll().then(
      (list) => {
        const set = new Set(list)
        if (at === generation && !closed) {
          names = set
          loadedAt = startedAt
        }
        if (loading?.promise === promise) loading = undefined
        return set
      },
      (error: unknown) => {
        if (loading?.promise === promise) loading = undefined
        throw error
      },
    )
    loading = { generation: at, promise }
    return promise
  }

  return {
    has(normalizedName) {
      const fresh = freshUntil === Number.POSITIVE_INFINITY || performance.now() <= freshUntil
      if (names !== undefined && fresh && now() - loadedAt < WHITELIST_TTL_MS) return names.has(normalizedName)
      subscribe()
      if (!listening || !proven || !fresh) return loadOne(normalizedName)
      const shared = loading?.generation === generation ? loading.promise : load()
      return shared.then((set) => set.has(normalizedName))
    },
    drop,
    async close() {
      closed = true
      drop()
      const current = subscription
      subscription = undefined
      listening = false
      await current?.stop()
    },
  }
}
