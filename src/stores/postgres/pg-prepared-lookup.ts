import { sha256 } from '@noble/hashes/sha2.js'
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js'
import type { PgConnectionLike, PgResultLike, Row } from './database-interface'

/** `pg`'s query config: a named statement is parsed once per connection, then only bound and run. */
interface NamedQuery {
  query(config: { name: string; text: string; values: unknown[] }): Promise<PgResultLike>
}

/** SQLSTATEs of a named statement the server does not have, or already has under that name. */
const STATEMENT_LOST = new Set(['26000', '42P05'])

const nameOf = (text: string): string => `passcode_auth_${bytesToHex(sha256(utf8ToBytes(text))).slice(0, 32)}`

/**
 * Runs statements as named prepared statements on a `pg` Pool or Client: `pg` parses
 * each once per connection, and every later call only binds and executes it, in the
 * same one round trip. For the store's own fixed texts only (one name per text).
 *
 * The name is derived from the text, so every store over the same connections, in any
 * copy of this module, agrees on it. Where named statements cannot work (a pooler in
 * transaction mode hands the next call another server connection, or the host ran
 * `DEALLOCATE ALL`), the server answers 26000 or 42P05: that statement and every later
 * one through this function go unnamed. Each call is one statement on its own (not in
 * a transaction), so a refused name has changed nothing and the call is simply sent again.
 */
export function pgPrepared(connection: PgConnectionLike): (text: string, values: readonly unknown[], name?: string) => Promise<Row[]> {
  const named = connection as unknown as NamedQuery
  let usable = true
  const plain = async (text: string, values: readonly unknown[]): Promise<Row[]> => (await connection.query(text, [...values])).rows as Row[]
  return async function prepared(text, values, name = nameOf(text)) {
    if (!usable) return plain(text, values)
    try {
      return (await named.query({ name, text, values: [...values] })).rows as Row[]
    } catch (error) {
      if (!STATEMENT_LOST.has(String((error as { code?: unknown } | null)?.code))) throw error
      usable = false
      return plain(text, values)
    }
  }
}

/**
 * The verification lookup on a `pg` Pool or Client as a named prepared statement
 * ({@link pgPrepared}).
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
 */
export function pgPreparedLookup(connection: PgConnectionLike): (text: string, key: string) => Promise<Row[]> {
  const prepared = pgPrepared(connection)
  const wrapped = new Map<string, { readonly name: string; readonly text: string }>()

  return async function lookup(text, key) {
    let statement = wrapped.get(text)
    if (statement === undefined) {
      statement = { name: nameOf(text), text: `SELECT row_to_json(r)::text AS json FROM (${text}) AS r` }
      wrapped.set(text, statement)
    }
    const rows = await prepared(statement.text, [key], statement.name)
    // Unnamed (the fallback), the wrapped text answers the same one JSON column.
    return rows.map((row) => JSON.parse(String((row as { json: unknown }).json)) as Row)
  }
}
