/**
 * Concurrent verification lookups sharing statements under load (see {@link SharedCalls}),
 * for `pgPreparedLookup` (pg-prepared-lookup.ts) on a direct connection and
 * through a transaction pooler alike.
 */
import type { LookupKey, Row } from './database-interface'

/**
 * How many lookup statements may be in flight before a new lookup waits to share
 * the next one (see {@link SharedCalls}); measured with
 * `npm run bench -- --only=cold-path --pgbouncer` (docs/benchmarks.md).
 */
export const SHARED_CALL_AFTER = 2

/** The most keys one shared statement carries (a lookup of several keys may take it past, alone). */
export const SHARED_CALL_MAX = 64

/** A lookup's statement as the server gets it: the statement's row as one JSON column, named after the statement's text. */
export interface Wrapped {
  readonly name: string
  readonly text: string
}

/** A lookup waiting for the next shared statement. */
interface Waiting {
  /** Its own statement, for a fallback. */
  readonly statement: Wrapped
  readonly key: LookupKey
  readonly resolve: (rows: Row[] | Promise<Row[]>) => void
  readonly reject: (error: unknown) => void
}

/** Where a lookup goes instead of a {@link SharedCalls}' statements. */
export type Instead = (statement: Wrapped, key: LookupKey) => Promise<Row[]>

/** How one {@link SharedCalls} sends its statements, and where its lookups go when it cannot. */
export interface SharedRoute {
  /** Where every lookup goes instead, for now (a fallback in force), or `undefined`: through this route. */
  elsewhere(): Instead | undefined
  /** One key as its own statement (`statement`, or the function's call): its rows, `{ json }` (the function found usable when it ran it). */
  one(statement: Wrapped, key: string): Promise<readonly unknown[]>
  /** Keys as one statement, the function's array form: its rows, `{ n, json }` (the function found usable). */
  many(keys: readonly string[]): Promise<readonly unknown[]>
  /**
   * A statement failed with `error` (`many`: the array form): where each of its lookups
   * goes instead (a fallback the error calls for), or `undefined`: the error is theirs.
   */
  failed(error: unknown, many: boolean): Instead | undefined
}

/**
 * Concurrent lookups sharing statements under load (DataLoader-style, adaptive):
 * while fewer than {@link SHARED_CALL_AFTER} of its statements are in flight, a
 * lookup is sent at once as its own statement, exactly as without sharing (no timer,
 * no added tick: one at a time nothing changes); beyond, it waits, and when a
 * statement in flight settles, every waiting lookup (up to {@link SHARED_CALL_MAX}
 * keys) goes as one statement, the schema function's array form over their keys (a
 * lone one-key lookup as its own statement, which costs the server less than the
 * array form with one key). Each gets the row at its own position (`n`), or none.
 * Fewer statements for the same misses: fewer round trips (through a pooler, fewer
 * forwarded), fewer statements for the server to run and for `pg` to send and decode.
 *
 * A lookup of several keys (one value under each pepper) always goes as the array form,
 * alone or shared, its keys side by side in one statement: never split across two, so
 * they are read in one snapshot. Its rows carry `n`, the position of the key among its own.
 *
 * The route says which statements: through a transaction pooler, the function's call
 * alone and its array form, unnamed; on a direct connection, the named lookup
 * statement alone and the array form named.
 *
 * A shared statement is one statement like any other: it has the statement deadline
 * of the connection it runs on (a hung one is destroyed, and every lookup in it
 * rejected), an error rejects each of its lookups (each with its own copy of the
 * error, same class and fields), and an error that calls for a fallback (the route's
 * `failed`: a function missing or forbidden, 42883 or 42501; a named statement
 * refused, 26000 or 42P05) sends each of its lookups that way, as a lone statement's
 * lookup is. A waiting lookup waits for at most one statement in flight to settle,
 * which its own deadline bounds.
 */
export class SharedCalls {
  #inFlight = 0
  #waiting: Waiting[] = []

  constructor(private readonly route: SharedRoute) {}

  lookup(statement: Wrapped, key: LookupKey): Promise<Row[]> {
    const instead = this.route.elsewhere()
    if (instead !== undefined) return instead(statement, key)
    if (this.#inFlight >= SHARED_CALL_AFTER)
      return new Promise<Row[]>((resolve, reject) => void this.#waiting.push({ statement, key, resolve, reject }))
    if (typeof key === 'string') return this.#sendOne(statement, key)
    return new Promise<Row[]>((resolve, reject) => this.#sendMany([{ statement, key, resolve, reject }]))
  }

  /** One key as its own statement. */
  #sendOne(statement: Wrapped, key: string): Promise<Row[]> {
    this.#inFlight += 1
    return this.route.one(statement, key).then(
      (rows) => {
        this.#settled()
        return parsed(rows)
      },
      (error: unknown) => {
        this.#settled()
        const instead = this.route.failed(error, false)
        if (instead === undefined) throw error
        return instead(statement, key)
      },
    )
  }

  /** A statement in flight settled: the lookups waiting go as one. */
  #settled(): void {
    this.#inFlight -= 1
    if (this.#waiting.length > 0) this.#send()
  }

  #send(): void {
    const waiting = this.#take()
    const instead = this.route.elsewhere()
    if (instead !== undefined) {
      for (const { statement, key, resolve } of waiting) resolve(instead(statement, key))
      return
    }
    const lone = waiting.length === 1 ? waiting[0]! : undefined
    if (lone !== undefined && typeof lone.key === 'string') return lone.resolve(this.#sendOne(lone.statement, lone.key))
    this.#sendMany(waiting)
  }

  /** The waiting lookups that fit in one statement: up to {@link SHARED_CALL_MAX} keys, at least one lookup, none split. */
  #take(): Waiting[] {
    let keys = 0
    let count = 0
    for (const { key } of this.#waiting) {
      keys += typeof key === 'string' ? 1 : key.length
      if (count > 0 && keys > SHARED_CALL_MAX) break
      count += 1
    }
    if (count < this.#waiting.length) return this.#waiting.splice(0, count)
    const all = this.#waiting
    this.#waiting = []
    return all
  }

  /** Lookups as one statement of the array form, each lookup's keys side by side. */
  #sendMany(waiting: readonly Waiting[]): void {
    const keys: string[] = []
    for (const { key } of waiting) {
      if (typeof key === 'string') keys.push(key)
      else keys.push(...key)
    }
    this.#inFlight += 1
    this.route.many(keys).then(
      (rows) => {
        this.#settled()
        const json: unknown[] = new Array(keys.length).fill(null)
        for (const row of rows as readonly { n?: unknown; json?: unknown }[]) {
          const at = Number(row.n) - 1
          if (at >= 0 && at < keys.length) json[at] = row.json
        }
        let at = 0
        for (const { key, resolve } of waiting) {
          if (typeof key === 'string') {
            resolve(parsed([{ json: json[at] }]))
            at += 1
          } else {
            resolve(parsedFrom(json, at, key.length))
            at += key.length
          }
        }
      },
      (error: unknown) => {
        this.#settled()
        const instead = this.route.failed(error, true)
        if (instead !== undefined) {
          for (const { statement, key, resolve } of waiting) resolve(instead(statement, key))
          return
        }
        for (let i = 0; i < waiting.length; i += 1) waiting[i]!.reject(i === 0 ? error : copyOf(error))
      },
    )
  }
}

/** The same error again as an object of its own: same prototype (class), message, code, stack and other fields. */
function copyOf(error: unknown): unknown {
  if (typeof error !== 'object' || error === null) return error
  return Object.create(Object.getPrototypeOf(error) as object | null, Object.getOwnPropertyDescriptors(error)) as unknown
}

/**
 * The rows of the wrapped statement and of the function, one JSON text column each
 * (the function's is NULL when nothing matched), as the rows they stand for.
 */
export function parsed(rows: readonly unknown[]): Row[] {
  const result: Row[] = []
  for (const row of rows) {
    const json = (row as { json?: unknown }).json
    if (typeof json === 'string') result.push(JSON.parse(json) as Row)
  }
  return result
}

/** The rows of one lookup's `count` keys from `from` in a shared statement's answers, each with `n`, its key's position among them, as the wrapped statement gives it. */
function parsedFrom(json: readonly unknown[], from: number, count: number): Row[] {
  const result: Row[] = []
  for (let i = 0; i < count; i += 1) {
    const text = json[from + i]
    if (typeof text === 'string') result.push({ n: i + 1, ...(JSON.parse(text) as Row) })
  }
  return result
}
