import { InvalidInputError } from '../../core/errors'
import { isPartnerNameLookable, MAX_PARTNER_NAME_LENGTH } from '../../core/rules'
import type { PartnerRegistry } from '../../ports/partner-registry'
import { toDatabase } from './database'
import type { PostgresDatabase } from './database-interface'
import { namedStatement, sqlType, type Placeholders } from './named-statement'
import { resolvePostgresOptions, type PostgresStoreOptions } from './options'
import { PARTNERS_CHANGED, whitelistCache } from './whitelist-cache'

/**
 * The operator's partner whitelist kept in the database, as {@link postgresPartners} returns it.
 *
 * @example
 * ```ts
 * const partners: PostgresPartners = postgresPartners(pool)
 * await partners.add('Acme') // stored as 'acme'
 * await partners.list() // ['acme']
 * // on shutdown, before ending the pool:
 * await partners.close()
 * ```
 */
export interface PostgresPartners extends PartnerRegistry {
  /** Whitelists a partner; `false` when it already was. */
  add(name: string): Promise<boolean>
  /** Removes a partner; `false` when it was not whitelisted. */
  remove(name: string): Promise<boolean>
  /** Every whitelisted name (normalised), sorted. */
  list(): Promise<string[]>
  /**
   * Whether a partner is whitelisted: from this instance's copy of the list once it
   * is loaded (synchronously then), else after reading the database.
   */
  isWhitelisted(normalizedName: string): boolean | Promise<boolean>
  /** Stops listening for other instances' changes. The pool, client or PGlite instance stays open: it is the host's. */
  close(): Promise<void>
}

/** Trims and lower-cases a partner name (SPEC §5.3); rejects blank, over-long or control-laden ones (§5.22). */
function normalize(name: unknown): string {
  if (typeof name !== 'string') throw new InvalidInputError('partner', 'must be a string')
  const normalized = name.trim().toLowerCase()
  if (normalized.length === 0 || !isPartnerNameLookable(normalized)) {
    throw new InvalidInputError('partner', `must be 1 to ${MAX_PARTNER_NAME_LENGTH} characters without control characters`)
  }
  return normalized
}

const NAME_INPUT = { name: sqlType.text }
const CHANGE_INPUTS = { ...NAME_INPUT, channel: sqlType.text, payload: sqlType.text }

/**
 * The partners' statements for one schema. A change and its NOTIFY are one statement:
 * PostgreSQL delivers the NOTIFY on commit, and only when a row changed.
 */
export function partnerStatements(schema: string) {
  const announced = (change: ($: Placeholders<typeof CHANGE_INPUTS>) => string) =>
    namedStatement(CHANGE_INPUTS, ($) => `WITH changed AS (${change($)}) SELECT pg_notify(${$.channel}, ${$.payload}) FROM changed`)
  return {
    list: namedStatement({}, () => `SELECT name FROM ${schema}.partners ORDER BY name COLLATE "C"`),
    has: namedStatement(NAME_INPUT, ($) => `SELECT 1 FROM ${schema}.partners WHERE name = ${$.name}`),
    add: announced(
      ($) => `INSERT INTO ${schema}.partners (name, added_at)
         VALUES (${$.name}, (extract(epoch FROM clock_timestamp()) * 1000)::bigint)
         ON CONFLICT (name) DO NOTHING RETURNING name`,
    ),
    remove: announced(($) => `DELETE FROM ${schema}.partners WHERE name = ${$.name} RETURNING name`),
  }
}

/**
 * A {@link PartnerRegistry} stored in the `partners` table of the schema, so that
 * every instance sees the same whitelist and an operator edits it without a
 * restart. Names are stored trimmed and lower-cased. Run {@link migrate} first.
 *
 * Each instance keeps the whole list in memory, so `GET /v1/connect` reads no
 * database for the partner: `add` and `remove` publish a change with `NOTIFY` on the
 * store's channel in their own statement, and every instance listening there drops
 * its copy at once and reads the list again on its next lookup. The `LISTEN` starts
 * with the first lookup and is shared with a `postgresStore` on the same `db` and
 * channel (one listening connection per pool). With `listen: false`, or while the
 * `LISTEN` is not active, each lookup reads the database. Stop it with
 * {@link PostgresPartners.close} before ending a `pg` pool.
 *
 * @param db - a `pg` Pool or Client, or a PGlite instance
 * @param options - `schema` (@default 'passcode_auth'), `channel`, `listen`, `listenConnectionString` and `proofIntervalMs`, as for `postgresStore`
 * @throws ConfigurationError for a `pg` Pool without `connectionTimeoutMillis`, as `postgresStore`
 * @example
 * ```ts
 * import { createPasscodeAuth } from 'passcode-auth'
 * import { postgresPartners, postgresStore } from 'passcode-auth/postgres'
 *
 * const partners = postgresPartners(pool)
 * await partners.add('Acme')
 * const auth = createPasscodeAuth({ store: postgresStore(pool), partners })
 * ```
 */
export function postgresPartners(db: PostgresDatabase, options?: PostgresStoreOptions): PostgresPartners {
  const { schema, channel, listen, listenConnectionString, proofIntervalMs } = resolvePostgresOptions(options)
  const database = toDatabase(db)
  const sql = partnerStatements(schema)
  const list = async (): Promise<string[]> => {
    const rows = await database.query(sql.list.text)
    return rows.map((row) => String(row.name))
  }
  const cache = whitelistCache({
    database,
    channel,
    listen,
    listenOptions: { connectionString: listenConnectionString, proofIntervalMs },
    loadAll: list,
    async loadOne(normalizedName) {
      const rows = await database.query(sql.has.text, sql.has.values({ name: normalizedName }))
      return rows.length > 0
    },
  })
  const change = async (statement: typeof sql.add, name: string): Promise<boolean> => {
    const rows = await database.query(statement.text, statement.values({ name, channel, payload: PARTNERS_CHANGED }))
    if (rows.length > 0) cache.drop()
    return rows.length > 0
  }
  return {
    async add(name) {
      return change(sql.add, normalize(name))
    },
    async remove(name) {
      return change(sql.remove, normalize(name))
    },
    list,
    isWhitelisted: cache.has,
    close: cache.close,
  }
}
