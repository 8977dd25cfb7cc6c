import { toDatabase } from './database'
import type { Database, PostgresDatabase } from './database-interface'
import { MIGRATIONS, type Migration } from './migrations'
import { resolvePostgresOptions, type PostgresStoreOptions } from './options'

/**
 * What {@link migrate} did.
 *
 * @example
 * ```ts
 * const { applied, version } = await migrate(pool)
 * console.log(applied.length === 0 ? `schema at version ${version}` : `applied ${applied.join(', ')}`)
 * ```
 */
export interface MigrationReport {
  /** Versions applied by this call, oldest first (empty when the schema was up to date). */
  readonly applied: readonly number[]
  /** The schema's version after the call. */
  readonly version: number
}

// First key of the two-key advisory lock: "passcode-auth" as a 32-bit number, so the
// lock does not collide with the host's own advisory locks on one-key numbers.
const LOCK_CLASS = 0x70617363

/**
 * Creates or upgrades the passcode-auth tables. Idempotent, and safe when several
 * instances start at once: the whole run holds a transaction-scoped advisory lock
 * for the schema, and each applied version is recorded in `schema_migrations` in
 * the same transaction as its statements. When every version is recorded already (each
 * start after the first), it only reads `schema_migrations` and takes no lock.
 *
 * @param db - a `pg` Pool or Client, or a PGlite instance
 * @param options - `schema` (@default 'passcode_auth'); other store options are accepted and ignored
 * @example
 * ```ts
 * import pg from 'pg'
 * import { migrate, postgresStore } from 'passcode-auth/postgres'
 *
 * const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL })
 * await migrate(pool)
 * const store = postgresStore(pool)
 * ```
 */
export async function migrate(db: PostgresDatabase, options?: PostgresStoreOptions): Promise<MigrationReport> {
  const { schema } = resolvePostgresOptions(options)
  return applyMigrations(toDatabase(db), schema, MIGRATIONS)
}

/**
 * What {@link migrate} runs, over a chosen list of migrations: tests use it to make a
 * database as an older release left it (`MIGRATIONS` up to some version).
 */
export async function applyMigrations(database: Database, schema: string, migrations: readonly Migration[]): Promise<MigrationReport> {
  const current = await currentVersion(database, schema, migrations)
  if (current !== undefined) return { applied: [], version: current }
  return database.transaction(
    async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [LOCK_CLASS, schema])
      // Checked first so that a schema made by a DBA needs no CREATE right on the database.
      const existing = await tx.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [schema])
      if (existing.length === 0) await tx.query(`CREATE SCHEMA ${schema}`)
      await tx.query(
        `CREATE TABLE IF NOT EXISTS ${schema}.schema_migrations (
        version integer PRIMARY KEY,
        name text NOT NULL,
        applied_at timestamptz NOT NULL DEFAULT now()
      )`,
      )
      const rows = await tx.query(`SELECT version FROM ${schema}.schema_migrations`)
      const done = new Set(rows.map((row) => Number(row.version)))
      const applied: number[] = []
      for (const migration of migrations) {
        if (done.has(migration.version)) continue
        for (const statement of migration.statements(schema)) await tx.query(statement)
        await tx.query(`INSERT INTO ${schema}.schema_migrations (version, name) VALUES ($1, $2)`, [migration.version, migration.name])
        applied.push(migration.version)
      }
      return { applied, version: Math.max(0, ...done, ...applied) }
      // A migration may build an index on a large table: no statement deadline.
    },
    { unbounded: true },
  )
}

/**
 * The schema's version when every one of `migrations` is recorded already, read without
 * a transaction or a lock (two read-only statements, no error logged when the table is
 * missing); `undefined` when something may be left to apply. A migration that another
 * instance is applying right now is not visible until it commits, so the caller then
 * takes the locked path and waits for it. This keeps the start of every process after
 * the first one cheap.
 */
async function currentVersion(database: Database, schema: string, migrations: readonly Migration[]): Promise<number | undefined> {
  const [table] = await database.query('SELECT to_regclass($1) IS NOT NULL AS present', [`${schema}.schema_migrations`])
  if (table?.present !== true) return undefined
  const rows = await database.query(`SELECT version FROM ${schema}.schema_migrations`)
  const done = new Set(rows.map((row) => Number(row.version)))
  return migrations.every((migration) => done.has(migration.version)) ? Math.max(0, ...done) : undefined
}
