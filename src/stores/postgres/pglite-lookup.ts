import type { LookupKey, PGliteLike, Row } from './database-interface'
import { FUNCTION_RETRY_MS } from './pg-prepared-lookup'

/**
 * The parts of PGlite's public API the fast lookup uses: `execProtocolStream` (PGlite
 * 0.4 and later), `runExclusive` (0.2.14) and `isInTransaction` (0.2.10). All three are
 * documented; `runExclusive` exists for exactly this use, "working with the
 * execProtocol methods".
 */
interface PGliteProtocol {
  execProtocolStream(message: Uint8Array, options: { syncToFs: boolean }): Promise<readonly { name?: string; fields?: readonly (string | null)[] }[]>
  runExclusive<T>(fn: () => Promise<T>): Promise<T>
  isInTransaction(): boolean
}

const TEXT_OID = 25

let statements = 0

/**
 * The verification lookup on PGlite, over PGlite's public protocol API. PGlite's
 * `query` parses and plans the statement anew on every call and makes six protocol
 * round trips into the WebAssembly module (parse, describe, bind, describe, execute,
 * sync), then decodes every column: for this lookup (three index probes and a join)
 * that is about 13× the CPU per call. A statement `PREPARE`d once and run with
 * `exec('EXECUTE …')` keeps its plan but still costs about 1.8× (measured side by side
 * with `npx tsx bench/pglite-lookup.ts`; figures in docs/architecture.md). Here the
 * statement is parsed once per instance as a named prepared statement, so PostgreSQL
 * keeps its plan, and each lookup is one message (Bind, Execute, Sync) through
 * `execProtocolStream`, whose one row comes back as one JSON text column
 * (`row_to_json`), decoded by `JSON.parse` into the same keys and values as `query`
 * gives (bigint columns as numbers, as PGlite gives them).
 *
 * The message runs inside `runExclusive`, which holds PGlite's query lock: never
 * beside another statement. That lock is free between the statements of a
 * transaction, so the lookup first asks `isInTransaction()`, and when a transaction is
 * open it leaves the lock and runs `query`, which waits for the transaction to end:
 * a lookup never joins a transaction and never sees uncommitted rows. PGlite's own
 * parser still reads the answer, so notifications reach `listen` callbacks and errors
 * throw. Whatever goes wrong with the prepared statement (dropped by `DEALLOCATE ALL`
 * or `DISCARD ALL`, a table changed under it), that lookup falls back to `query`,
 * which gives the same rows or the real error, and the next lookup prepares again.
 *
 * Only public, documented methods are called, so no PGlite version is pinned: any
 * instance that has all three takes this path, any other takes `query`. (Earlier, this
 * file took PGlite's private `_runExclusiveTransaction` and `_runExclusiveQuery` locks;
 * the public lock plus `isInTransaction()` measured the same CPU per lookup.) The
 * frontend messages are written here rather than with a library: five small messages
 * of protocol 3.0, unchanged since PostgreSQL 7.4, and the per-lookup one is a
 * template with the key copied in place, which a general serializer would rebuild on
 * every call.
 *
 * Several keys (one value's hashes under each pepper, SPEC §5.34) go the same way, as
 * one statement, one snapshot: `callMany`, the schema function's array form (version
 * 10), prepared the same way, or `text` (which takes them as `$1::text[]`) on a schema
 * without the function (tried again {@link FUNCTION_RETRY_MS} later), the keys sent as
 * the text of an array literal (`{k1,k2}`; hex keys need no quoting), which PostgreSQL
 * casts. The function's form because its plan stays prepared: `text` over `unnest` of a
 * parameter is planned again on every call (measured with `bench/cold-path.ts`: about
 * four times the CPU of one key's lookup, against about the same for the function's form).
 *
 * @returns `undefined` when the instance lacks one of these methods (an older PGlite,
 *   `PGliteWorker`, a wrapper): then the store uses `query`
 */
export function preparedLookup(db: PGliteLike): ((text: string, key: LookupKey, call?: string, callMany?: string) => Promise<Row[]>) | undefined {
  const protocol = db as Partial<PGliteProtocol>
  if (
    typeof protocol.execProtocolStream !== 'function' ||
    typeof protocol.runExclusive !== 'function' ||
    typeof protocol.isInTransaction !== 'function'
  ) {
    return undefined
  }
  const pglite = protocol as PGliteProtocol
  /** Sends `message` under the query lock; `undefined`, sending nothing, while a transaction is open. */
  const run = (message: Uint8Array) =>
    pglite.runExclusive(async () => (!pglite.isInTransaction() ? pglite.execProtocolStream(message, { syncToFs: false }) : undefined))
  const plain = async (text: string, key: LookupKey) => (await db.query<Row>(text, [key])).rows
  const prepared = new Map<string, Promise<BindTemplate>>()
  /** When the function's array form, found missing (a schema before version 10), may be prepared again (epoch ms). */
  let functionRetryAt = 0

  const prepare = async (text: string): Promise<BindTemplate> => {
    const name = `passcode_auth_lookup_${++statements}`
    const answer = await run(concat([parseMessage(name, text), SYNC]))
    if (answer === undefined) throw new Error('a transaction is open: prepare on a later lookup')
    return new BindTemplate(name)
  }

  /**
   * The messages of `text` (the statement as sent, `sent`), prepared once and run with
   * `parameter`; `NOT_PREPARED` or `FAILED` when it could not be prepared or run (the next
   * call prepares it again), `undefined` while a transaction is open.
   */
  const execute = async (text: string, sent: string, parameter: string): Promise<Messages | undefined | typeof NOT_PREPARED | typeof FAILED> => {
    let statement = prepared.get(text)
    if (statement === undefined) {
      statement = prepare(sent)
      prepared.set(text, statement)
    }
    let template: BindTemplate
    try {
      template = await statement
    } catch {
      if (prepared.get(text) === statement) prepared.delete(text)
      return NOT_PREPARED
    }
    try {
      return await run(template.message(parameter))
    } catch {
      if (prepared.get(text) === statement) prepared.delete(text)
      run(concat([closeStatementMessage(template.name), SYNC])).catch(() => undefined)
      return FAILED
    }
  }

  return async function lookup(text, key, _call, callMany) {
    const parameter = typeof key === 'string' ? (isHexKey(key) ? key : undefined) : arrayLiteral(key)
    if (parameter === undefined) return plain(text, key)
    // Several keys: the function's array form, whose plan stays prepared (the statement
    // of keys over `unnest` of a parameter is planned again on every call: its row count
    // is known only once the array is, so PostgreSQL keeps choosing a custom plan).
    if (typeof key !== 'string' && callMany !== undefined && Date.now() >= functionRetryAt) {
      const messages = await execute(callMany, callMany, parameter)
      if (messages === undefined) return plain(text, key)
      if (messages !== NOT_PREPARED && messages !== FAILED) return rowsOfKeys(messages)
      if (messages === NOT_PREPARED) functionRetryAt = Date.now() + FUNCTION_RETRY_MS
    }
    const messages = await execute(text, `SELECT row_to_json(r)::text AS json FROM (${text}) AS r`, parameter)
    // Not prepared or failed: `query` gives the same rows or the real error; a transaction is open: `query` waits for it to end.
    if (messages === undefined || messages === NOT_PREPARED || messages === FAILED) return plain(text, key)
    const rows: Row[] = []
    for (const message of messages) {
      if (message.name === 'dataRow') rows.push(JSON.parse(String(message.fields?.[0])) as Row)
    }
    return rows
  }
}

/** What `execProtocolStream` answers. */
type Messages = Awaited<ReturnType<PGliteProtocol['execProtocolStream']>>
const NOT_PREPARED = Symbol('not prepared')
const FAILED = Symbol('failed')

/** The rows of the function's array form (`n`, `json`): each key's row that matched, with its position, as the statement of keys gives them. */
function rowsOfKeys(messages: Messages): Row[] {
  const rows: Row[] = []
  for (const message of messages) {
    const [n, json] = message.name === 'dataRow' ? (message.fields ?? []) : []
    if (typeof json === 'string') rows.push({ n: Number(n), ...(JSON.parse(json) as Row) })
  }
  return rows
}

// PostgreSQL frontend messages (protocol 3.0), written by hand: the lookup sends only
// ASCII (a statement name, SQL made by this package, a hex key or an array literal of them).

const SYNC = message(0x53, [])

function message(type: number, parts: readonly Uint8Array[]): Uint8Array {
  const body = concat(parts)
  const out = new Uint8Array(5 + body.length)
  out[0] = type
  new DataView(out.buffer).setInt32(1, body.length + 4)
  out.set(body, 5)
  return out
}

function cString(text: string): Uint8Array {
  const bytes = new TextEncoder().encode(text)
  const out = new Uint8Array(bytes.length + 1)
  out.set(bytes)
  return out
}

function int16(value: number): Uint8Array {
  const out = new Uint8Array(2)
  new DataView(out.buffer).setInt16(0, value)
  return out
}

function int32(value: number): Uint8Array {
  const out = new Uint8Array(4)
  new DataView(out.buffer).setInt32(0, value)
  return out
}

function concat(parts: readonly Uint8Array[]): Uint8Array {
  let length = 0
  for (const part of parts) length += part.length
  const out = new Uint8Array(length)
  let offset = 0
  for (const part of parts) {
    out.set(part, offset)
    offset += part.length
  }
  return out
}

/** Parse: a named statement with one parameter of type text. */
function parseMessage(name: string, sql: string): Uint8Array {
  return message(0x50, [cString(name), cString(sql), int16(1), int32(TEXT_OID)])
}

/** Close of a named statement. */
function closeStatementMessage(name: string): Uint8Array {
  return message(0x43, [new Uint8Array([0x53]), cString(name)])
}

const UNNAMED_PORTAL = cString('')
const TEXT_FORMATS = int16(0)
const EXECUTE_ALL = message(0x45, [UNNAMED_PORTAL, int32(0)])
/** The longest key the fast path sends: a SHA-512 in hex. Longer keys take `query`. */
const MAX_KEY_LENGTH = 128

/** Lowercase hex, as the store's hashes are: safe to write byte for byte. */
function isHexKey(key: string): boolean {
  if (key.length === 0 || key.length > MAX_KEY_LENGTH) return false
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i)
    if (!((c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x66))) return false
  }
  return true
}

/** Hex keys as the text of a PostgreSQL array literal, `{k1,k2}`; `undefined` when one is not a hex key. */
function arrayLiteral(keys: readonly string[]): string | undefined {
  for (const key of keys) if (!isHexKey(key)) return undefined
  return `{${keys.join(',')}}`
}

/**
 * Bind of the statement's one text parameter to the unnamed portal, then Execute and
 * Sync, as one message: built once per key length, then copied with the key written
 * in place, so a lookup allocates one buffer.
 */
class BindTemplate {
  readonly #byLength = new Map<number, { bytes: Uint8Array; offset: number }>()
  constructor(readonly name: string) {}

  message(key: string): Uint8Array {
    let template = this.#byLength.get(key.length)
    if (template === undefined) {
      const head = [UNNAMED_PORTAL, cString(this.name), TEXT_FORMATS, int16(1), int32(key.length)]
      const bind = message(0x42, [...head, new Uint8Array(key.length), TEXT_FORMATS])
      template = { bytes: concat([bind, EXECUTE_ALL, SYNC]), offset: 5 + concat(head).length }
      this.#byLength.set(key.length, template)
    }
    const out = template.bytes.slice()
    for (let i = 0; i < key.length; i++) out[template.offset + i] = key.charCodeAt(i)
    return out
  }
}
