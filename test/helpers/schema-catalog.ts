import type { Queryable } from '../../src/stores/postgres/database-interface'

/**
 * What one schema holds, read from PostgreSQL's catalog, for the expand-only check of
 * migrations (SPEC §5.54, docs/upgrading.md): every table, view and sequence, column
 * (its type, NOT NULL and default), index, constraint, function and type, each under
 * the name a {@link ContractStep} lists it by.
 */
export interface SchemaCatalog {
  /** `table <t>`, `sequence <s>`: the relations (tables, views, materialized views, sequences). */
  readonly relations: ReadonlyMap<string, string>
  /** `column <t>.<c>` → its column facts. */
  readonly columns: ReadonlyMap<string, ColumnFacts>
  /** `index <i>` → its definition (`pg_get_indexdef`), with whether it is unique and the columns it covers. */
  readonly indexes: ReadonlyMap<
    string,
    { readonly definition: string; readonly unique: boolean; readonly table: string; readonly columns: readonly string[] }
  >
  /** `constraint <t>.<c>` → its definition (`pg_get_constraintdef`) and the columns it covers. */
  readonly constraints: ReadonlyMap<string, { readonly definition: string; readonly table: string; readonly columns: readonly string[] }>
  /** `function <f>(<identity arguments>)` → its result type. */
  readonly functions: ReadonlyMap<string, string>
  /** `type <t>` → `enum`, `domain <base> <constraints>`, `composite`, `range`. */
  readonly types: ReadonlyMap<string, { readonly kind: string; readonly labels: readonly string[] }>
}

interface ColumnFacts {
  readonly type: string
  readonly notNull: boolean
  readonly default: string | null
}

const rows = async <T>(database: Queryable, text: string, schema: string): Promise<T[]> => (await database.query(text, [schema])) as T[]

/** Reads `schema`'s catalog. */
export async function readSchemaCatalog(database: Queryable, schema: string): Promise<SchemaCatalog> {
  const relations = await rows<{ name: string; kind: string }>(
    database,
    `SELECT c.relname AS name, c.relkind::text AS kind FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname = $1 AND c.relkind IN ('r', 'p', 'v', 'm', 'S', 'f')`,
    schema,
  )
  const columns = await rows<{ tbl: string; name: string; type: string; not_null: boolean; def: string | null }>(
    database,
    `SELECT c.relname AS tbl, a.attname AS name, format_type(a.atttypid, a.atttypmod) AS type, a.attnotnull AS not_null,
            pg_get_expr(d.adbin, d.adrelid) AS def
     FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
     LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
     WHERE n.nspname = $1 AND c.relkind IN ('r', 'p', 'v', 'm', 'f') AND a.attnum > 0 AND NOT a.attisdropped`,
    schema,
  )
  const indexes = await rows<{ name: string; tbl: string; definition: string; is_unique: boolean; cols: string[] | null }>(
    database,
    `SELECT ic.relname AS name, tc.relname AS tbl, pg_get_indexdef(i.indexrelid) AS definition, i.indisunique AS is_unique,
            (SELECT array_agg(a.attname::text ORDER BY a.attname) FROM pg_attribute a
             WHERE a.attrelid = i.indrelid AND a.attnum = ANY (i.indkey::int2[])) AS cols
     FROM pg_index i JOIN pg_class ic ON ic.oid = i.indexrelid JOIN pg_class tc ON tc.oid = i.indrelid
     JOIN pg_namespace n ON n.oid = ic.relnamespace WHERE n.nspname = $1`,
    schema,
  )
  // NOT NULL is read from the column (PostgreSQL 18 also lists it as a constraint).
  const constraints = await rows<{ tbl: string; name: string; definition: string; cols: string[] | null }>(
    database,
    `SELECT c.relname AS tbl, k.conname AS name, pg_get_constraintdef(k.oid) AS definition,
            (SELECT array_agg(a.attname::text ORDER BY a.attname) FROM pg_attribute a
             WHERE a.attrelid = k.conrelid AND a.attnum = ANY (k.conkey)) AS cols
     FROM pg_constraint k JOIN pg_class c ON c.oid = k.conrelid JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname = $1 AND k.contype <> 'n'`,
    schema,
  )
  const functions = await rows<{ name: string; args: string; result: string }>(
    database,
    `SELECT p.proname AS name, pg_get_function_identity_arguments(p.oid) AS args, coalesce(pg_get_function_result(p.oid), '') AS result
     FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = $1`,
    schema,
  )
  // A table's own row type is the table's; only the types made on their own count.
  const types = await rows<{ name: string; kind: string; labels: string[] | null }>(
    database,
    `SELECT t.typname AS name,
            CASE t.typtype WHEN 'e' THEN 'enum' WHEN 'r' THEN 'range' WHEN 'c' THEN 'composite'
              ELSE 'domain ' || format_type(t.typbasetype, t.typtypmod) || ' ' || t.typnotnull::text || ' ' ||
                coalesce((SELECT string_agg(pg_get_constraintdef(k.oid), ' AND ' ORDER BY k.conname) FROM pg_constraint k WHERE k.contypid = t.oid), '')
            END AS kind,
            (SELECT array_agg(e.enumlabel::text ORDER BY e.enumsortorder) FROM pg_enum e WHERE e.enumtypid = t.oid) AS labels
     FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace
     WHERE n.nspname = $1 AND t.typtype IN ('e', 'd', 'c', 'r') AND t.typelem = 0
       AND (t.typrelid = 0 OR (SELECT c.relkind FROM pg_class c WHERE c.oid = t.typrelid) = 'c')`,
    schema,
  )
  return {
    relations: new Map(relations.map((r) => [`${r.kind === 'S' ? 'sequence' : 'table'} ${r.name}`, r.kind])),
    columns: new Map(columns.map((c) => [`column ${c.tbl}.${c.name}`, { type: c.type, notNull: c.not_null, default: c.def }])),
    indexes: new Map(
      indexes.map((i) => [
        `index ${i.name}`,
        { definition: i.definition.replaceAll(`${schema}.`, ''), unique: i.is_unique, table: i.tbl, columns: i.cols ?? [] },
      ]),
    ),
    constraints: new Map(
      constraints.map((k) => [
        `constraint ${k.tbl}.${k.name}`,
        { definition: k.definition.replaceAll(`${schema}.`, ''), table: k.tbl, columns: k.cols ?? [] },
      ]),
    ),
    functions: new Map(functions.map((f) => [`function ${f.name}(${f.args})`, f.result.replaceAll(`${schema}.`, '')])),
    types: new Map(types.map((t) => [`type ${t.name}`, { kind: t.kind.replaceAll(`${schema}.`, ''), labels: t.labels ?? [] }])),
  }
}

/** Column types that may replace another without narrowing it: each one reads every value of the ones before it. */
const WIDER_INTEGERS = ['smallint', 'integer', 'bigint', 'numeric']

/** Whether `to` holds every value of `from` as the same text (a type change an older version still reads and writes). */
function widens(from: string, to: string): boolean {
  if (from === to) return true
  const integer = (type: string) => WIDER_INTEGERS.indexOf(type)
  if (integer(from) !== -1 && integer(to) > integer(from)) return true
  const varchar = (type: string) => /^character varying(?:\((\d+)\))?$/.exec(type)
  const fromLength = varchar(from)
  if (fromLength !== null) {
    if (to === 'text') return true
    const toLength = varchar(to)
    if (toLength !== null) return toLength[1] === undefined || (fromLength[1] !== undefined && Number(toLength[1]) >= Number(fromLength[1]))
  }
  const array = (type: string) => (type.endsWith('[]') ? type.slice(0, -2) : undefined)
  const fromElement = array(from)
  const toElement = array(to)
  return fromElement !== undefined && toElement !== undefined && widens(fromElement, toElement)
}

/**
 * What going from `before` to `after` removes or narrows, each as a {@link ContractStep}
 * names it: everything an instance of the version before may still use and would find
 * gone or refusing what it writes. A rename is a removal (of the old name). What is
 * new is not reported, except a constraint or a unique index over columns that existed
 * before, or a NOT NULL column without a default on a table that existed before (they
 * may refuse what the version before writes).
 */
export function contractions(before: SchemaCatalog, after: SchemaCatalog): string[] {
  const found: string[] = []
  const removed = <T>(map: ReadonlyMap<string, T>, other: ReadonlyMap<string, T>) => {
    for (const key of map.keys()) if (!other.has(key)) found.push(key)
  }
  removed(before.relations, after.relations)
  removed(before.columns, after.columns)
  removed(before.indexes, after.indexes)
  removed(before.constraints, after.constraints)
  removed(before.functions, after.functions)
  removed(before.types, after.types)
  for (const [key, was] of before.columns) {
    const now = after.columns.get(key)
    if (now === undefined) continue
    const name = key.slice('column '.length)
    if (!widens(was.type, now.type)) found.push(`column type ${name}`)
    if (!was.notNull && now.notNull) found.push(`not null ${name}`)
    if (was.default !== null && now.default === null) found.push(`default ${name}`)
  }
  // A new NOT NULL column without a default on an existing table: the version before inserts rows without it.
  for (const [key, now] of after.columns) {
    const table = key.slice('column '.length).split('.')[0]!
    if (!before.columns.has(key) && before.relations.has(`table ${table}`) && now.notNull && now.default === null) {
      found.push(`not null ${key.slice('column '.length)}`)
    }
  }
  for (const [key, was] of before.indexes) {
    const now = after.indexes.get(key)
    if (now !== undefined && now.definition !== was.definition) found.push(`changed ${key}`)
  }
  for (const [key, was] of before.constraints) {
    const now = after.constraints.get(key)
    if (now !== undefined && now.definition !== was.definition && !widensValues(was.definition, now.definition)) found.push(`changed ${key}`)
  }
  for (const [key, was] of before.functions) {
    const now = after.functions.get(key)
    if (now !== undefined && now !== was) found.push(`function result ${key.slice('function '.length)}`)
  }
  for (const [key, was] of before.types) {
    const now = after.types.get(key)
    if (now === undefined) continue
    const name = key.slice('type '.length)
    for (const label of was.labels) if (!now.labels.includes(label)) found.push(`enum value ${name}.${label}`)
    if (was.kind.startsWith('domain') && now.kind !== was.kind) found.push(`domain ${name}`)
  }
  // New rules over what existed before: an older instance writes those columns without knowing them.
  const existed = (table: string, columns: readonly string[]) =>
    before.relations.has(`table ${table}`) && columns.some((column) => before.columns.has(`column ${table}.${column}`))
  for (const [key, now] of after.constraints) {
    if (!before.constraints.has(key) && existed(now.table, now.columns)) found.push(`new ${key}`)
  }
  for (const [key, now] of after.indexes) {
    if (!before.indexes.has(key) && now.unique && existed(now.table, now.columns)) found.push(`new unique ${key}`)
  }
  return found.sort()
}

/**
 * Whether a CHECK of the form `col = ANY (ARRAY[…])` only allows more values than before
 * (the same check with a longer list, now or later `NOT VALID`): every value written under
 * the old check still passes, so an instance of the version before keeps working.
 */
function widensValues(before: string, after: string): boolean {
  const list = /ARRAY\[(.*?)\]/
  const values = (definition: string) => new Set([...(list.exec(definition)?.[1] ?? '').matchAll(/'((?:[^']|'')*)'/g)].map((match) => match[1]))
  const shape = (definition: string) => definition.replace(/ NOT VALID$/, '').replace(list, 'ARRAY[]')
  if (!list.test(before) || shape(before) !== shape(after)) return false
  const now = values(after)
  return [...values(before)].every((value) => now.has(value))
}
