/**
 * PostgreSQL storage: `postgresStore(db)`, `postgresPartners(db)` and `migrate(db)`,
 * where `db` is a `pg` Pool or Client or a PGlite instance.
 *
 * @module passcode-auth/postgres
 */
export { postgresStore } from './postgres-store'
export type { PostgresStore } from './postgres-store'
export { migrate } from './migrate'
export type { MigrationReport } from './migrate'
export { postgresPartners } from './postgres-partners'
export { postgresRateLimitStore } from './postgres-rate-limit-store'
export type { PostgresRateLimitStore, PostgresRateLimitStoreOptions } from './postgres-rate-limit-store'
export type { PostgresPartners } from './postgres-partners'
export type { PostgresStoreOptions } from './options'
export type { PGliteLike, PgClientLike, PgConnectionLike, PgPoolClientLike, PgPoolLike, PgResultLike, PostgresDatabase } from './database-interface'
