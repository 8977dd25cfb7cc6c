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
/** How long an instance holds an online migration without renewing it (it renews once a minute). */
const LEASE = '10 minutes'

/**
 * Creates or upgrades the passcode-auth tables. Idempotent, and safe when several
 * instances start at once: the versions run under a transaction-scoped advisory lock
 * for the schema, and each applied version is recorded in `schema_migrations` in
 * the same transaction as its statements. A version that works on populated tables
 * (filling a column, building an index) runs after the versions before it committed,
 * in short statements that never hold a lock on a table for long, and is recorded
 * when it finished, with the versions after it when there are any (in their
 * transaction: the others see it done once all are). One instance runs it under a
 * lease (renewed as it goes) while the others wait for it; a start interrupted during it is taken over once its lease lapses. When every version is recorded already (each
 * start after the first), it only reads `schema_migrations` and takes no lock.
 *
 * @param db - a `pg` Pool or Client, or a PGlite instance
 * @param options - `schema` (@default 'passcode_auth'); other store options are accepted and ignored
 * @example
 * ```ts
 * import pg from 'pg'
 * import { migrate, postgresStore } from 'passcode-auth/postgres'
 *
 * const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, connectionTimeoutMillis: 2_000, keepAlive: true })
 * await migrate(pool)
 * const store = postgresStore(pool)
 * ```
 */
export async function migrate(db: PostgresDatabase, options?: PostgresStoreOptions): Promise<MigrationReport> {
  const { schema } = resolvePostgresOptions(options)
  return applyMigrations(toDatabase(db, { serves: false }), schema, MIGRATIONS)
}

/**
 * What {@link migrate} runs, over a chosen list of migrations: tests use it to make a
 * database as an older release left it (`MIGRATIONS` up to some version).
 */
export async function applyMigrations(database: Database, schema: string, migrations: readonly Migration[]): Promise<MigrationReport> {
  const current = await currentVersion(database, schema, migrations)
  if (current !== undefined) return { applied: [], version: current }
  const applied: number[] = []
  let version = 0
  // An online migration this instance ran, recorded by the next step's transaction with
  // the versions after it: others see it done only once those are applied too.
  let ran: Migration | undefined
  for (;;) {
    // The versions up to the next online one, under the lock, in one transaction; the
    // online one is taken with a lease, so that one instance runs it and the others wait.
    const step = await database.transaction(
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
        if (ran !== undefined) {
          await tx.query(`INSERT INTO ${schema}.schema_migrations (version, name) VALUES ($1, $2) ON CONFLICT (version) DO NOTHING`, [
            ran.version,
            ran.name,
          ])
          await tx.query(`DELETE FROM ${schema}.schema_migration_leases WHERE version = $1`, [ran.version])
        }
        const rows = await tx.query(`SELECT version FROM ${schema}.schema_migrations`)
        const done = new Set(rows.map((row) => Number(row.version)))
        const appliedNow: number[] = []
        for (const migration of migrations) {
          if (done.has(migration.version)) continue
          if (migration.online !== undefined) {
            await tx.query(`CREATE TABLE IF NOT EXISTS ${schema}.schema_migration_leases (version integer PRIMARY KEY, until timestamptz NOT NULL)`)
            const taken = await tx.query(
              `INSERT INTO ${schema}.schema_migration_leases AS l (version, until) VALUES ($1, now() + $2::interval)
             ON CONFLICT (version) DO UPDATE SET until = excluded.until WHERE l.until < now()
             RETURNING version`,
              [migration.version, LEASE],
            )
            return { applied: appliedNow, done, online: migration, mine: taken.length > 0 }
          }
          for (const statement of migration.statements(schema)) await tx.query(statement)
          await tx.query(`INSERT INTO ${schema}.schema_migrations (version, name) VALUES ($1, $2)`, [migration.version, migration.name])
          appliedNow.push(migration.version)
        }
        return { applied: appliedNow, done, online: undefined, mine: false }
        // A migration may build an index on a large table: no statement deadline.
      },
      { unbounded: true },
    )
    ran = undefined
    applied.push(...step.applied)
    version = Math.max(version, ...step.done, ...step.applied)
    const { online } = step
    if (online === undefined) break
    if (!step.mine) {
      // Another instance runs it: wait until it is recorded, or its lease lapses (then take it over).
      await new Promise((resolve) => setTimeout(resolve, 200))
      continue
    }
    // Outside the transaction and the lock: short statements on tables that may be large.
    // The lease is renewed as they go, at most once a minute.
    const unbounded = database.queryUnbounded ?? database.query
    let renewedAt = Date.now()
    const leased: Database = {
      ...database,
      query: async (text, params) => {
        if (Date.now() - renewedAt > 60_000) {
          renewedAt = Date.now()
          await unbounded(`UPDATE ${schema}.schema_migration_leases SET until = now() + $2::interval WHERE version = $1`, [online.version, LEASE])
        }
        return unbounded(text, params)
      },
    }
    for (const statement of online.statements(schema)) await leased.query(statement)
    await online.online!(leased, schema)
    applied.push(online.version)
    version = Math.max(version, online.version)
    const left = migrations.some((migration) => migration.version > online.version && !step.done.has(migration.version))
    if (left) {
      // Still under its lease: the others keep waiting while this instance applies the rest.
      ran = online
      continue
    }
    await database.query(`INSERT INTO ${schema}.schema_migrations (version, name) VALUES ($1, $2) ON CONFLICT (version) DO NOTHING`, [
      online.version,
      online.name,
    ])
    await database.query(`DELETE FROM ${schema}.schema_migration_leases WHERE version = $1`, [online.version])
    break
  }
  return { applied, version }
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
