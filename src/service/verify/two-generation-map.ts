/** Node's `util.inspect.custom`, by its registered name (no `node:util` import, for the browser and edge builds). */
export const inspectCustom: unique symbol = Symbol.for('nodejs.util.inspect.custom')

/**
 * A map bounded in entries and in time, kept per half rather than per entry: new
 * entries go into the newer half for `ttlMs / 2`, which then becomes the older half
 * and is dropped whole once its first entry is `ttlMs` old. So no entry outlives
 * `ttlMs`, most live at least half of it, and an entry costs only its key, its value
 * and a slot of a Map (no record, no timestamp). Past `maxEntries`, the oldest
 * insertion goes first (cheaper than LRU bookkeeping on every hit). A generation
 * counter, moved by every deletion but time's, lets a read that started before an
 * invalidation refuse to store what it read. Once told until when what it holds is
 * fresh ({@link freshUntil}, SPEC §5.32), it answers nothing past that instant of the
 * monotonic clock, without a timer, until told a later one.
 *
 * The storage of the verification and refusal caches. Values live in this process's
 * memory only: never serialised, logged or inspected (custom `inspect`, `toJSON`).
 */
export class TwoGenerationMap<Value> {
  #newer = new Map<string, Value>()
  #older = new Map<string, Value>()
  /** When every entry of the newer half must be gone (its start + ttl). */
  #newerEnd = Number.NEGATIVE_INFINITY
  /** When the newer half stops taking entries and becomes the older one. */
  #rotateAt = Number.NEGATIVE_INFINITY
  /** When every entry of the older half must be gone. */
  #olderEnd = Number.POSITIVE_INFINITY
  /** min(#rotateAt, #olderEnd): the one comparison the hot path makes. */
  #nextCheck = Number.NEGATIVE_INFINITY
  #generation = 0
  #trusted = true
  /** `performance.now()` past which nothing held is answered; never, until a store says otherwise. */
  #freshUntil = Number.POSITIVE_INFINITY
  readonly #ttlMs: number
  readonly #maxEntries: number
  readonly #name: string

  /** `name` is what `inspect` and `toJSON` show, with the size and nothing else. */
  constructor(name: string, options: { ttlMs: number; maxEntries: number }) {
    this.#name = name
    this.#ttlMs = options.ttlMs
    this.#maxEntries = options.maxEntries
  }

  /** Number of entries. */
  get size(): number {
    return this.#newer.size + this.#older.size
  }

  /** The current generation; pass it back to {@link set}. */
  get generation(): number {
    return this.#generation
  }

  /** When an entry set at the `now` last passed to this map must be gone at the latest. */
  get newerEnd(): number {
    return this.#newerEnd
  }

  /** The value kept for `key` at `now`, if any. */
  get(key: string, now: number): Value | undefined {
    if (now >= this.#nextCheck) this.#age(now)
    // One clock read per lookup, only where a store bounds freshness (a fleet's PostgreSQL).
    if (this.#freshUntil !== Number.POSITIVE_INFINITY && performance.now() > this.#freshUntil) return undefined
    const value = this.#newer.get(key)
    return value === undefined ? this.#older.get(key) : value
  }

  /**
   * Keeps `value` for `key` (in the newer half, with the end that half gives it);
   * ignored when the generation moved since `generation` was read.
   */
  set(key: string, value: Value, now: number, generation: number): void {
    if (generation !== this.#generation || !this.#trusted) return
    if (now >= this.#nextCheck) this.#age(now)
    this.#store(key, value)
  }

  /** Whether {@link set} at `generation` would keep its value; ages the halves to `now` first, so {@link newerEnd} is the one `set` will use. */
  accepts(now: number, generation: number): boolean {
    if (now >= this.#nextCheck) this.#age(now)
    return generation === this.#generation && this.#trusted
  }

  /** {@link set} after {@link accepts} answered true for the same `now` and generation. */
  store(key: string, value: Value): void {
    this.#store(key, value)
  }

  /** Forgets `key` (an entry found to be over: does not move the generation). */
  delete(key: string): void {
    this.#newer.delete(key)
    this.#older.delete(key)
  }

  /** Drops every entry for which `matches` is true, and moves the generation. */
  deleteWhere(matches: (value: Value) => boolean): void {
    this.#generation++
    for (const entries of [this.#newer, this.#older]) {
      for (const [key, value] of entries) if (matches(value)) entries.delete(key)
    }
  }

  /** Drops everything, and moves the generation. */
  clear(): void {
    this.#generation++
    this.#newer.clear()
    this.#older.clear()
  }

  /**
   * Empties the map and, with `false`, keeps it empty: every `set` is ignored and so
   * every `get` misses, at no cost to `get`, until `trust(true)` (SPEC §5.32: the store
   * cannot prove it hears invalidations, then can again).
   */
  trust(trusted: boolean): void {
    this.clear()
    this.#trusted = trusted
  }

  /**
   * Answers nothing held after `until` (a `performance.now()` instant), until a later
   * one: what the store heard vouches for the entries that long (a proof of delivery
   * came back, SPEC §5.32). Drops nothing: an invalidation heard meanwhile still drops
   * its entries, so what is held is as fresh as what was heard when the next proof comes.
   */
  freshUntil(until: number): void {
    this.#freshUntil = until
  }

  /** Keeps the values out of `util.inspect` and `console.log`. */
  [inspectCustom](): string {
    return `${this.#name} { size: ${this.size} }`
  }

  /** Keeps the values out of `JSON.stringify`. */
  toJSON(): { size: number } {
    return { size: this.size }
  }

  #store(key: string, value: Value): void {
    if (!this.#older.delete(key) && !this.#newer.has(key) && this.size >= this.#maxEntries) {
      const half = this.#older.size > 0 ? this.#older : this.#newer
      const oldest = half.keys().next()
      if (oldest.done !== true) half.delete(oldest.value)
    }
    this.#newer.set(key, value)
  }

  /** Drops the older half once it is `ttlMs` old, and turns the newer half into the older one every `ttlMs / 2`. */
  #age(now: number): void {
    if (now >= this.#rotateAt) {
      const keep = this.#newer.size > 0 && now < this.#newerEnd
      this.#older = keep ? this.#newer : new Map<string, Value>()
      this.#olderEnd = keep ? this.#newerEnd : Number.POSITIVE_INFINITY
      this.#newer = new Map()
      this.#newerEnd = now + this.#ttlMs
      this.#rotateAt = now + this.#ttlMs / 2
    } else if (now >= this.#olderEnd) {
      this.#older = new Map()
      this.#olderEnd = Number.POSITIVE_INFINITY
    }
    this.#nextCheck = Math.min(this.#rotateAt, this.#olderEnd)
  }
}
