import { randomUUID } from 'node:crypto'
import type { AccountPasscodeRecord, UserPasscodeRecord } from '../../src/core/entities'
import { toDatabase } from '../../src/stores/postgres/database'
import type { PostgresDatabase } from '../../src/stores/postgres/database-interface'
import { migrate } from '../../src/stores/postgres/migrate'
import { postgresStore, type PostgresStore } from '../../src/stores/postgres/postgres-store'
import { accountPasscodeParams, userPasscodeParams } from '../../src/stores/postgres/rows'
import { statements } from '../../src/stores/postgres/statements'
import type { StoreFixture } from '../conformance/store'

/** A schema name no other test (or concurrent test run on a shared DATABASE_URL) uses. */
export const uniqueSchema = (): string => `pa_test_${randomUUID().replaceAll('-', '').slice(0, 16)}`

const ACCOUNT_COLUMNS = 'id, account_id, name, name_key, hash, hint, expiry_days, created_at, updated_at, expires_at'
const USER_COLUMNS = 'account_id, user_id, hash, ciphertext, hint, validity_type, validity_days, granted_at, expires_at, revoked_at'
const TYPES = ['text', 'text', 'text', 'text', 'text', 'text', 'integer', 'bigint', 'bigint', 'bigint']
const USER_TYPES = ['text', 'text', 'text', 'text', 'text', 'text', 'integer', 'bigint', 'bigint', 'bigint']

async function bulkInsert(db: PostgresDatabase, table: string, columns: string, types: string[], rows: unknown[][]): Promise<void> {
  const database = toDatabase(db)
  for (let start = 0; start < rows.length; start += 5_000) {
    const chunk = rows.slice(start, start + 5_000)
    const arrays = types.map((_, column) => chunk.map((row) => row[column]))
    const unnest = types.map((type, i) => `$${i + 1}::${type}[]`).join(', ')
    await database.query(`INSERT INTO ${table} (${columns}) SELECT * FROM unnest(${unnest})`, arrays)
  }
  await database.query(`ANALYZE ${table}`)
}

/** Inserts records in a few statements (one array per column), bypassing the cap. */
export async function seedPasscodes(
  db: PostgresDatabase,
  schema: string,
  accounts: readonly AccountPasscodeRecord[],
  users: readonly UserPasscodeRecord[],
): Promise<void> {
  await bulkInsert(db, `${schema}.account_passcodes`, ACCOUNT_COLUMNS, TYPES, accounts.map(accountPasscodeParams))
  await bulkInsert(db, `${schema}.user_passcodes`, USER_COLUMNS, USER_TYPES, users.map(userPasscodeParams))
}

/** The plan of the store's own verification statement for `hash`. */
export async function explainLookup(db: PostgresDatabase, schema: string, hash: string): Promise<string> {
  const rows = await toDatabase(db).query(`EXPLAIN ${statements(schema).findCredentialByHash}`, [hash])
  return rows.map((row) => String(row['QUERY PLAN'])).join('\n')
}

/** How a SQL fixture gets connections: the main one, and one per peer (a new pool, or the same PGlite). */
export interface SqlConnections {
  readonly main: PostgresDatabase
  /** A separate connection (pool) to the same database, and how to close it. */
  another(): Promise<{ db: PostgresDatabase; close(): Promise<void> }>
}

/** A migrated fresh schema, a store over it, peers on their own connections, and cleanup. */
export async function openSqlFixture(connections: SqlConnections): Promise<StoreFixture & { schema: string; store: PostgresStore }> {
  const schema = uniqueSchema()
  await migrate(connections.main, { schema })
  const store = postgresStore(connections.main, { schema })
  const opened: { store: PostgresStore; close(): Promise<void> }[] = []
  return {
    schema,
    store,
    async peer() {
      const connection = await connections.another()
      const peer = postgresStore(connection.db, { schema })
      opened.push({ store: peer, close: connection.close })
      return peer
    },
    seed: (accounts, users) => seedPasscodes(connections.main, schema, accounts, users),
    explainLookup: (hash) => explainLookup(connections.main, schema, hash),
    async close() {
      await store.close()
      for (const peer of opened) {
        await peer.store.close()
        await peer.close()
      }
      await toDatabase(connections.main).query(`DROP SCHEMA ${schema} CASCADE`)
    },
  }
}
