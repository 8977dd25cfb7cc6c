import type { PGliteLike, Row } from './database'

// Only hex keys are written into the EXECUTE: they cannot end a string literal.
const HEX_KEY = /^[0-9a-f]{1,128}$/

let statements = 0

/**
 * The verification lookup on PGlite, several times faster than `query`: PGlite's
 * `query` plans the statement anew and takes six protocol round trips into the
 * WebAssembly module each time, and decoding a row costs per column. Here the
 * statement is prepared once per PGlite instance (`PREPARE`), so PostgreSQL keeps
 * its plan; each lookup is one simple-protocol `EXECUTE` whose one argument, a hex
 * hash, is written as a literal; and the row comes back as one JSON text column
 * (`row_to_json`), decoded by `JSON.parse` into the same keys and values (bigint
 * columns as numbers, as PGlite gives them). Whatever goes wrong with the prepared
 * statement (dropped by `DISCARD ALL`, a table changed under it), that lookup falls
 * back to `query`, which gives the same rows or the real error, and the next lookup
 * prepares again.
 *
 * @returns `undefined` when the instance has no `exec`
 */
export function preparedLookup(db: PGliteLike): ((text: string, key: string) => Promise<Row[]>) | undefined {
  const exec = db.exec
  if (typeof exec !== 'function') return undefined
  const prepared = new Map<string, Promise<string>>()
  const plain = async (text: string, key: string) => (await db.query<Row>(text, [key])).rows

  const prepare = async (text: string): Promise<string> => {
    const name = `passcode_auth_lookup_${++statements}`
    await exec.call(db, `PREPARE ${name}(text) AS SELECT row_to_json(r)::text AS json FROM (${text}) AS r`)
    return name
  }

  return async function lookup(text, key) {
    if (!HEX_KEY.test(key)) return plain(text, key)
    let statement = prepared.get(text)
    if (statement === undefined) {
      statement = prepare(text)
      prepared.set(text, statement)
    }
    let name: string
    try {
      name = await statement
    } catch {
      prepared.delete(text)
      return plain(text, key)
    }
    try {
      const results = await exec.call(db, `EXECUTE ${name}('${key}')`)
      return (results[0]?.rows ?? []).map((row) => JSON.parse(String(row.json)) as Row)
    } catch {
      if (prepared.get(text) === statement) prepared.delete(text)
      exec.call(db, `DEALLOCATE ${name}`).catch(() => undefined)
      return plain(text, key)
    }
  }
}
