import { InvalidInputError } from '../../core/errors'
import { isPartnerNameLookable, MAX_PARTNER_NAME_LENGTH } from '../../core/rules'
import type { PartnerRegistry } from '../../ports/partner-registry'
import { toDatabase, type PostgresDatabase } from './database'
import { resolvePostgresOptions, type PostgresStoreOptions } from './options'

/**
 * The operator's partner whitelist kept in the database, as {@link postgresPartners} returns it.
 *
 * @example
 * ```ts
 * const partners: PostgresPartners = postgresPartners(pool)
 * await partners.add('Acme') // stored as 'acme'
 * await partners.list() // ['acme']
 * ```
 */
export interface PostgresPartners extends PartnerRegistry {
  /** Whitelists a partner; `false` when it already was. */
  add(name: string): Promise<boolean>
  /** Removes a partner; `false` when it was not whitelisted. */
  remove(name: string): Promise<boolean>
  /** Every whitelisted name (normalised), sorted. */
  list(): Promise<string[]>
  isWhitelisted(normalizedName: string): Promise<boolean>
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

/**
 * A {@link PartnerRegistry} stored in the `partners` table of the schema, so that
 * every instance sees the same whitelist and an operator edits it without a
 * restart. Names are stored trimmed and lower-cased. Run {@link migrate} first.
 *
 * @param db - a `pg` Pool or Client, or a PGlite instance
 * @param options - `schema` (@default 'passcode_auth')
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
  const { schema } = resolvePostgresOptions(options)
  const database = toDatabase(db)
  return {
    async add(name) {
      const rows = await database.query(
        `INSERT INTO ${schema}.partners (name, added_at)
         VALUES ($1::text, (extract(epoch FROM clock_timestamp()) * 1000)::bigint)
         ON CONFLICT (name) DO NOTHING RETURNING name`,
        [normalize(name)],
      )
      return rows.length > 0
    },
    async remove(name) {
      const rows = await database.query(`DELETE FROM ${schema}.partners WHERE name = $1::text RETURNING name`, [normalize(name)])
      return rows.length > 0
    },
    async list() {
      const rows = await database.query(`SELECT name FROM ${schema}.partners ORDER BY name COLLATE "C"`)
      return rows.map((row) => String(row.name))
    },
    async isWhitelisted(normalizedName) {
      const rows = await database.query(`SELECT 1 FROM ${schema}.partners WHERE name = $1::text`, [normalizedName])
      return rows.length > 0
    },
  }
}
