import { inspectCustom } from './two-generation-map'

/**
 * Store reads shared by the verifications that need the same one at the same time:
 * when many requests with the same passcode miss the cache together (after a start,
 * a TTL's end or an invalidation), the first one reads the store and the others wait
 * for that read instead of making their own. Each caller keeps its own deadline and
 * runs its own checks on what was read (the account ID may differ).
 *
 * A read only exists while it is in flight, so the map holds at most one entry per
 * distinct passcode being verified at that moment. {@link invalidate} makes every
 * later caller start a read of its own: one that began before a credential changed
 * is never joined after the change was heard, and {@link abandon} drops a read that
 * outlived a caller's deadline, so a store call that never settles answers one round
 * of requests with 504, not every later one.
 */
export class SharedReads<T> {
  readonly #inFlight = new Map<string, { readonly generation: number; readonly read: Promise<T> }>()
  #generation = 0

  /** Reads in flight, for tests and metrics. */
  get size(): number {
    return this.#inFlight.size
  }

  /** The read in flight for `key` since the last invalidation, or a new one from `start`. */
  read(key: string, start: () => Promise<T>): Promise<T> {
    const current = this.#inFlight.get(key)
    if (current?.generation === this.#generation) return current.read
    let read: Promise<T>
    try {
      read = start()
    } catch (error) {
      read = Promise.reject(error)
    }
    const entry = { generation: this.#generation, read }
    this.#inFlight.set(key, entry)
    // Inline handlers (this runs on every cache miss): a closure bound to a name is given
    // that name at run time, per call, where the code is compiled keeping names (tsx).
    read.then(
      () => this.#settle(key, entry),
      () => this.#settle(key, entry),
    )
    return read
  }

  #settle(key: string, entry: { readonly read: Promise<T> }): void {
    if (this.#inFlight.get(key) === entry) this.#inFlight.delete(key)
  }

  /** Lets no later caller join `read` (one whose caller gave up on it): they start their own. */
  abandon(key: string, read: Promise<T>): void {
    if (this.#inFlight.get(key)?.read === read) this.#inFlight.delete(key)
  }

  /** Lets no caller join a read that started before now. */
  invalidate(): void {
    this.#generation++
    this.#inFlight.clear()
  }

  /** Keeps passcode values (the keys) out of `util.inspect` and `console.log`. */
  [inspectCustom](): string {
    return `SharedReads { size: ${this.size} }`
  }

  /** Keeps passcode values out of `JSON.stringify`. */
  toJSON(): { size: number } {
    return { size: this.size }
  }
}
