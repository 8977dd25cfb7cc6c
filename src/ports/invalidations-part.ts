/**
 * A message from the store that a credential changed, for verification caches.
 * `{ type: 'all' }` means the store may have missed changes (its listening
 * connection dropped and came back): subscribers drop everything they cached.
 *
 * A store shared by a fleet proves that it still hears the others (SPEC §5.32; the
 * PostgreSQL store sends itself a notification every `proofIntervalMs`). When it cannot,
 * it says `{ type: 'unproven' }`: subscribers drop everything and trust no cache (each
 * verification reads the store) until `{ type: 'proven' }`, after which they drop
 * everything once more and cache again. A store that cannot miss anything (memory,
 * PGlite) never says either. Each proof heard back also says `{ type: 'fresh', until }`:
 * every change committed before that proof was sent has been heard, so subscribers may
 * answer from what they hold until `until` and not after it without a newer one (a
 * process so starved that its proofs run late then reads the store, whatever its own
 * timers did). A store that never says it leaves caches unbounded by it.
 *
 * @example
 * ```ts
 * let trusted = true
 * store.subscribe?.((invalidation) => {
 *   if (invalidation.type === 'unproven' || invalidation.type === 'proven') trusted = invalidation.type === 'proven'
 *   cache.clear() // or drop only what a credential invalidation names
 * })
 * ```
 */
export type Invalidation =
  | {
      /** One account passcode changed or went. */
      readonly type: 'account_passcode'
      /** Its account. */
      readonly accountId: string
      /** The passcode. */
      readonly passcodeId: string
    }
  | {
      /** One user passcode changed or went. */
      readonly type: 'user_passcode'
      /** Its account. */
      readonly accountId: string
      /** The user. */
      readonly userId: string
    }
  | {
      /** Everything cached for an account (its accepted-passcodes setting changed). */
      readonly type: 'account'
      /** The account. */
      readonly accountId: string
    }
  | {
      /** Everything cached (the store may have missed invalidations, e.g. after a reconnect). */
      readonly type: 'all'
    }
  | {
      /** The store can no longer prove it hears other instances' changes: drop everything and cache nothing until `proven`. */
      readonly type: 'unproven'
      /** Why, and what an operator can do about it; no secret. */
      readonly message: string
    }
  | {
      /** Delivery is proven again: drop everything (changes may have been missed meanwhile), then cache again. */
      readonly type: 'proven'
    }
  | {
      /** A proof came back: every change committed before it was sent has been heard. Nothing is dropped. */
      readonly type: 'fresh'
      /**
       * Until when what is held may answer without a newer proof: a `performance.now()`
       * instant of this process (monotonic; a wall clock set back cannot extend it).
       */
      readonly until: number
    }

/**
 * Invalidations for verification caches, an optional part of {@link PasscodeStore}:
 * without it an instance hears only its own changes.
 *
 * @example
 * ```ts
 * const invalidations: InvalidationsPart = memoryStore()
 * const stop = invalidations.subscribe((invalidation) => console.log(invalidation.type))
 * ```
 */
export interface InvalidationsPart {
  /**
   * Subscribes to invalidations published by any instance sharing this storage.
   * Returns the unsubscribe function.
   */
  subscribe(listener: (invalidation: Invalidation) => void): () => void
}
