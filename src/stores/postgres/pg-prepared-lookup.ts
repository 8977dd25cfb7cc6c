import { sha256 } from '@noble/hashes/sha2.js'
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js'
import { inTransaction, pgQueryable, type LookupKey, type PgConnectionLike, type PgResultLike, type Queryable, type Row } from './database-interface'
import { parsed, SharedCalls, type Instead, type Wrapped } from './shared-calls'

/** `pg`'s query config: a named statement is parsed once per connection, then only bound and run. */
interface NamedQuery {
  query(config: { name: string; text: string; values: unknown[] }): Promise<PgResultLike>
}

/** SQLSTATEs of a named statement the server does not have, or already has under that name. */
const STATEMENT_LOST = new Set(['26000', '42P05'])

/**
 * SQLSTATEs of a lookup function the schema does not have (a database not migrated to
 * version 10 yet) or that the role may not run (EXECUTE revoked from PUBLIC).
 */
const FUNCTION_UNUSABLE = new Set(['42883', '42501'])

/** How long the lookup sends its plain statement after finding the function unusable, ms; then it tries again. */
export const FUNCTION_RETRY_MS = 60_000

const sqlState = (error: unknown): string => String((error as { code?: unknown } | null)?.code)

/** The name of each fixed text seen (a few per schema), so a call does not hash its text again. */
const names = new Map<string, string>()
const nameOf = (text: string): string => {
  let name = names.get(text)
  if (name === undefined) {
    name = `passcode_auth_${bytesToHex(sha256(utf8ToBytes(text))).slice(0, 32)}`
    names.set(text, name)
  }
  return name
}

/**
 * Whether named statements work on a database's connections: one per `pg` Pool or
 * Client, shared by its {@link pgPrepared}, {@link pgPreparedLookup} and
 * {@link pgPreparedTransaction}, set to `false` for good at the first refusal.
 */
export interface NamedStatements {
  usable: boolean
}

/** Whether `error` is the server refusing a named statement (see {@link pgPrepared}). */
const statementLost = (error: unknown): boolean => STATEMENT_LOST.has(sqlState(error))

/**
 * Runs statements as named prepared statements on a `pg` Pool or Client: `pg` parses
 * each once per connection, and every later call only binds and executes it, in the
 * same one round trip. For the store's own fixed texts only (one name per text).
 *
 * The name is derived from the text, so every store over the same connections, in any
 * copy of this module, agrees on it. Where named statements cannot work (a pooler in
 * transaction mode hands the next call another server connection, or the host ran
 * `DEALLOCATE ALL`), the server answers 26000 or 42P05: that statement and every later
 * one through this function, and through every other sharing `state` (the database's
 * {@link NamedStatements}), go unnamed, through `unnamed` when the call gives one (the
 * same rows another way), else as the text itself. Each call is one statement on its
 * own (not in a transaction), so a refused name has changed nothing and the call is
 * simply sent again.
 */
export function pgPrepared(
  connection: PgConnectionLike,
  state: NamedStatements = { usable: true },
): (text: string, values: readonly unknown[], name?: string, unnamed?: () => Promise<Row[]>) => Promise<Row[]> {
  const named = connection as unknown as NamedQuery
  const plain = async (text: string, values: readonly unknown[]): Promise<Row[]> => (await connection.query(text, [...values])).rows as Row[]
  return async function prepared(text, values, name = nameOf(text), unnamed = () => plain(text, values)) {
    if (!state.usable) return unnamed()
    try {
      return (await named.query({ name, text, values: [...values] })).rows as Row[]
    } catch (error) {
      if (!statementLost(error)) throw error
      state.usable = false
      return unnamed()
    }
  }
}

/**
 * Runs `fn` in a transaction on one `pg` connection (with ROLLBACK on failure, as
 * {@link inTransaction}), its `tx.prepared` sending the store's fixed texts as named
 * prepared statements while `state.usable`, unnamed after (the audit append of every
 * write: planned once per connection instead of on every call).
 *
 * A named statement refused inside the transaction (26000 or 42P05, as
 * {@link pgPrepared} says: a pooler in transaction mode gave this transaction a server
 * connection that does not have the statement, or has it already) aborts the
 * transaction, so it cannot simply be sent again unnamed: the transaction is rolled
 * back (it changed nothing), named statements are given up for the database
 * (`state.usable = false`) and `fn` runs once more, in a new transaction on the same
 * connection, unnamed. Only such a refusal runs it again: any other error fails the
 * call. A refusal that `fn` caught still runs it again, since the transaction it
 * continued was aborted (its COMMIT rolled back).
 */
export async function pgPreparedTransaction<T>(
  connection: PgConnectionLike,
  state: NamedStatements,
  fn: (tx: Queryable) => Promise<T>,
): Promise<{ value: T } | { error: unknown; broken: boolean }> {
  const plain = pgQueryable(connection)
  const named = connection as unknown as NamedQuery
  /** Whether the server refused a named statement of this transaction. */
  const refusal = { seen: false }
  const tx: Queryable = {
    query: plain.query,
    async prepared(text, values) {
      if (!state.usable) return plain.query(text, values)
      try {
        return (await named.query({ name: nameOf(text), text, values: [...values] })).rows as Row[]
      } catch (error) {
        if (statementLost(error)) refusal.seen = true
        throw error
      }
    },
  }
  const outcome = await inTransaction(tx, fn)
  if (!refusal.seen || ('broken' in outcome && outcome.broken)) return outcome
  state.usable = false
  // tx.prepared now sends its statements unnamed.
  return inTransaction(tx, fn)
}

/**
 * The verification lookup on a `pg` Pool or Client as a named prepared statement,
 * given up as {@link pgPrepared} gives one up (the database's one {@link NamedStatements}
 * flag, `state`; its own fallbacks below).
 *
 * Sent as an unnamed statement, the lookup is parsed and planned by the server on
 * every call, and that planning costs several times its execution (measured with
 * `bench/cold-path.ts`: the miss path ran at 0.1–0.2 of a bare prepared indexed read
 * through the same pool). Named, `pg` parses it once per connection and every
 * later lookup only binds and executes it, in the same one round trip.
 *
 * The one row comes back as one JSON text column (`row_to_json`, as on PGlite), so
 * `pg` decodes one field instead of eighteen: about a quarter less client CPU per
 * lookup. Its keys and values are those of the plain query's row (bigint columns as
 * numbers instead of strings: the store's row readers take both). Its name is that of
 * the plain query's text.
 *
 * Where named statements cannot work (a transaction pooler), every lookup goes
 * through `call`, the schema's lookup function (schema version 10), unnamed. PL/pgSQL
 * keeps the plans of the function's queries per server session, so the server only
 * parses and plans the call itself, and the function's query is three index probes
 * run one after the other. Measured side by side with
 * `npm run bench -- --only=cold-path --pgbouncer` (PgBouncer 1.18 in transaction mode,
 * three runs on a loaded 2-core machine; docs/benchmarks.md): through PgBouncer the
 * function's call ran at 0.92–1.13 of a bare one-column read, the lookup statement
 * unnamed at 0.19–0.30; the server spent 59–64 µs per call of the function with 16 in
 * flight, 57–62 µs per bare read and 487–523 µs per lookup statement unnamed. Where
 * named statements work, a lookup alone stays the named statement: on a direct connection, in the
 * same runs, the function called named ran at 0.98–1.17 of its calls/s (the server
 * spending 54–56 µs on it against 58–65 µs, 16 in flight), as fast but not clearly
 * faster, and the named statement needs no fallback for a schema without the function.
 *
 * Under load, concurrent lookups share statements when the caller gives `callMany`,
 * the same function over an array of keys (see {@link SharedCalls}), on both paths:
 * one at a time each lookup is still its own statement (the named lookup statement
 * where named statements work, the function's call where they do not); beyond
 * {@link SHARED_CALL_AFTER} in flight, the lookups waiting go as one statement of
 * `callMany`, named where named statements work (pgPrepared-style, the same
 * `state`). On a direct server with 16 misses in flight this took `authenticate()`
 * from 0.45–0.47 to 0.81–0.93 of a bare one-column read through the same pool
 * (0.19 statements per miss; this process's and the server's CPU per miss about
 * halved, to a bare read's), measured side by side with
 * `npm run bench -- --only=cold-path`, three runs each (docs/benchmarks.md); one at
 * a time nothing changed. The shared named statement has the fallbacks of a lone
 * one: refused (26000, 42P05), named statements are given up and each of its lookups
 * is answered unnamed, as below; the function missing or forbidden (42883, 42501),
 * each of its lookups goes as the named lookup statement alone, and lookups do not
 * share again until the function is tried again, {@link FUNCTION_RETRY_MS} later. Any
 * other error reaches each of its lookups as its own copy.
 *
 * Where named statements do not work, a schema without the function (not migrated
 * yet), or a role that may not run it (42883, 42501), gets the lookup statement
 * unnamed, as before, and the function is tried again {@link FUNCTION_RETRY_MS}
 * later: a fleet keeps working while its database is migrated.
 *
 * Several keys (one value's hashes under each pepper, SPEC §5.34; `text` then takes
 * them as `$1::text[]`) are always one statement, one snapshot: alone, `callMany` over
 * them (named where named statements work); shared, `callMany` over them and the other
 * waiting lookups' keys, never split across two statements; where the function cannot
 * be used, `text` itself (named, else unnamed; planned on every call, since its row count
 * depends on the array: a fallback). A re-hash by another instance that moves the row
 * from one of the keys to another is seen before or after, never between.
 *
 * @example
 * const lookup = pgPreparedLookup(connection)
 * const rows = await lookup(sql.findCredentialByHash, hash, sql.callFindCredentialByHash, sql.callFindCredentialsByHashes)
 */
export function pgPreparedLookup(
  connection: PgConnectionLike,
  state: NamedStatements = { usable: true },
): (text: string, key: LookupKey, call?: string, callMany?: string) => Promise<Row[]> {
  const named = connection as unknown as NamedQuery
  const wrapped = new Map<string, Wrapped>()
  /** When each function call found unusable may be tried again (epoch ms). */
  const unusableUntil = new Map<string, number>()
  /** The sharing of each function call that has a form for many keys, unnamed (a pooler) and named. */
  const batchers = new Map<string, SharedCalls>()
  const namedBatchers = new Map<string, SharedCalls>()
  /** The wrapped statement unnamed. */
  const plain: Instead = async (statement, key) => parsed((await connection.query(statement.text, [key])).rows)
  const functionUnusable = (call: string): boolean => unusableUntil.size > 0 && Date.now() < (unusableUntil.get(call) ?? 0)
  const foundUnusable = (call: string): void => void unusableUntil.set(call, Date.now() + FUNCTION_RETRY_MS)
  const foundUsable = (call: string): void => {
    if (unusableUntil.size > 0) unusableUntil.delete(call)
  }
  /** The function's one row, `{ json }` with the row as JSON or NULL; several keys, without the function's array form, the statement itself. */
  const viaFunction = async (statement: Wrapped, key: LookupKey, call: string): Promise<Row[]> => {
    if (typeof key !== 'string' || functionUnusable(call)) return plain(statement, key)
    let rows: readonly unknown[]
    try {
      rows = (await connection.query(call, [key])).rows
    } catch (error) {
      if (!FUNCTION_UNUSABLE.has(sqlState(error))) throw error
      foundUnusable(call)
      return plain(statement, key)
    }
    foundUsable(call)
    return parsed(rows)
  }
  /** The function path, sharing a statement with concurrent lookups when `callMany` is given. */
  const viaFunctions = (statement: Wrapped, key: LookupKey, call: string, callMany: string | undefined): Promise<Row[]> => {
    if (callMany === undefined) return viaFunction(statement, key, call)
    let batcher = batchers.get(call)
    if (batcher === undefined) {
      batcher = new SharedCalls({
        elsewhere: () => (functionUnusable(call) ? plain : undefined),
        one: async (_, key) => {
          const rows = (await connection.query(call, [key])).rows
          foundUsable(call)
          return rows
        },
        many: async (keys) => {
          const rows = (await connection.query(callMany, [keys])).rows
          foundUsable(call)
          return rows
        },
        failed: (error) => {
          if (!FUNCTION_UNUSABLE.has(sqlState(error))) return undefined
          foundUnusable(call)
          return plain
        },
      })
      batchers.set(call, batcher)
    }
    return batcher.lookup(statement, key)
  }
  /** Where a lookup goes once named statements are given up. */
  const unnamed = (statement: Wrapped, key: LookupKey, call: string | undefined, callMany: string | undefined): Promise<Row[]> =>
    call === undefined ? plain(statement, key) : viaFunctions(statement, key, call, callMany)

  /** The named statement, until the server says named statements cannot work here; then the fallback above. */
  const namedLookup = async (statement: Wrapped, key: LookupKey, call: string | undefined, callMany: string | undefined): Promise<Row[]> => {
    try {
      return parsed((await named.query({ name: statement.name, text: statement.text, values: [key] })).rows)
    } catch (error) {
      if (!statementLost(error)) throw error
      state.usable = false
    }
    return unnamed(statement, key, call, callMany)
  }
  /**
   * The named path sharing statements with concurrent lookups: alone, the named lookup
   * statement (one key) or the function's array form named (several); shared, the
   * function's array form named.
   */
  const namedShared = (statement: Wrapped, key: LookupKey, call: string, callMany: string): Promise<Row[]> => {
    let batcher = namedBatchers.get(call)
    if (batcher === undefined) {
      const manyName = nameOf(callMany)
      /** Each lookup unnamed (named statements given up), or as its named statement alone (the function unusable). */
      const viaUnnamed: Instead = (own, key) => unnamed(own, key, call, callMany)
      const alone: Instead = (own, key) => namedLookup(own, key, call, callMany)
      batcher = new SharedCalls({
        elsewhere: () => (!state.usable ? viaUnnamed : functionUnusable(call) ? alone : undefined),
        one: async (own, key) => (await named.query({ name: own.name, text: own.text, values: [key] })).rows,
        many: async (keys) => {
          const rows = (await named.query({ name: manyName, text: callMany, values: [keys] })).rows
          foundUsable(call)
          return rows
        },
        failed: (error, many) => {
          if (statementLost(error)) {
            state.usable = false
            return viaUnnamed
          }
          // The lookup statement alone does not use the function: its 42501 is its own.
          if (!many || !FUNCTION_UNUSABLE.has(sqlState(error))) return undefined
          foundUnusable(call)
          return alone
        },
      })
      namedBatchers.set(call, batcher)
    }
    return batcher.lookup(statement, key)
  }

  // Not an async function: once named statements are given up (every lookup through a
  // transaction pooler), the fallback's own promise is handed back, without another
  // promise around it (a cache miss there runs this on every call).
  return function lookup(text, key, call, callMany) {
    let statement = wrapped.get(text)
    if (statement === undefined) {
      statement = { name: nameOf(text), text: `SELECT row_to_json(r)::text AS json FROM (${text}) AS r` }
      wrapped.set(text, statement)
    }
    if (!state.usable) return unnamed(statement, key, call, callMany)
    if (call === undefined || callMany === undefined) return namedLookup(statement, key, call, callMany)
    return namedShared(statement, key, call, callMany)
  }
}
