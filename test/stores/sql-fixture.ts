import { randomUUID } from 'node:crypto'
import type pg from 'pg'
import type { AccountPasscodeRecord, UserPasscodeRecord } from '../../src/core/passcode-records'
import { generatePasscode } from '../../src/core/passcode-format'
import type { PasscodeStore } from '../../src/ports/passcode-store'
import { createPasscodeAuth, type PasscodeAuth } from '../../src/service/create-passcode-auth'
import { toDatabase } from '../../src/stores/postgres/database'
import type { PostgresDatabase } from '../../src/stores/postgres/database-interface'
import { migrate } from '../../src/stores/postgres/migrate'
import type { PostgresStoreOptions } from '../../src/stores/postgres/options'
import { postgresStore, type PostgresStore } from '../../src/stores/postgres/postgres-store'
import { accountPasscodeInput, userPasscodeInput } from '../../src/stores/postgres/rows'
import { statements } from '../../src/stores/postgres/statements'
import type { StoreFixture } from '../conformance/store'

/** A schema name no other test (or concurrent test run on a shared DATABASE_URL) uses. */
export const uniqueSchema = (): string => `pa_test_${randomUUID().replaceAll('-', '').slice(0, 16)}`

const ACCOUNT_COLUMNS = 'id, account_id, name, name_key, hash, hint, expiry_days, created_at, updated_at, expires_at'
const USER_COLUMNS = 'account_id, user_id, hash, ciphertext, hint, validity_type, validity_days, granted_at, expires_at, revoked_at'
// The store's inputs of those columns, in the same order.
const ACCOUNT_INPUTS = ['id', 'accountId', 'name', 'nameKey', 'hash', 'hint', 'expiryDays', 'createdAt', 'updatedAt', 'expiresAt'] as const
const USER_INPUTS = [
  'accountId',
  'userId',
  'hash',
  'ciphertext',
  'hint',
  'validityType',
  'validityDays',
  'grantedAt',
  'expiresAt',
  'revokedAt',
] as const
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
  await bulkInsert(
    db,
    `${schema}.account_passcodes`,
    ACCOUNT_COLUMNS,
    TYPES,
    accounts.map((record) => {
      const input = accountPasscodeInput(record)
      return ACCOUNT_INPUTS.map((name) => input[name])
    }),
  )
  await bulkInsert(
    db,
    `${schema}.user_passcodes`,
    USER_COLUMNS,
    USER_TYPES,
    users.map((record) => {
      const input = userPasscodeInput(record)
      return USER_INPUTS.map((name) => input[name])
    }),
  )
}

/** The plan of the store's own verification statement for `hash`, or for several (one value under each pepper). */
export async function explainLookup(db: PostgresDatabase, schema: string, hash: string | readonly string[]): Promise<string> {
  const sql = statements(schema)
  const rows = await toDatabase(db).query(`EXPLAIN ${typeof hash === 'string' ? sql.findCredentialByHash.text : sql.findCredentialsByHashes.text}`, [
    hash,
  ])
  return rows.map((row) => String(row['QUERY PLAN'])).join('\n')
}

/** How a SQL fixture gets connections: the main one, and one per peer (a new pool, or the same PGlite). */
export interface SqlConnections {
  readonly main: PostgresDatabase
  /** A separate connection (pool) to the same database, and how to close it. */
  another(): Promise<{ db: PostgresDatabase; close(): Promise<void> }>
}

/**
 * Emptied schemas kept for the next fixture of a suite. Migrating a schema and dropping it
 * again cost more than most cases do (about 50 ms of CPU on PGlite, and DDL work on the
 * server): a suite's fixtures hand their schema on instead. A schema is handed on only
 * after its fixture closed every store it opened and emptied every table but the
 * migrations record, so the next case starts as on a freshly migrated schema:
 * same tables, no rows. Writes a case leaves running after its close would address rows
 * by their own random IDs, which the next case never has. Cases within a file run one
 * after another, so one schema is never used by two cases at once.
 */
export interface SchemaPool {
  readonly free: string[]
  /** Drops the schemas kept (call it in `afterAll`: a `DATABASE_URL` database outlives the run). */
  drop(db: PostgresDatabase): Promise<void>
}

/** A pool for one suite: `openSqlFixture(connections, pool)` reuses its schemas. */
export function schemaPool(): SchemaPool {
  const free: string[] = []
  return {
    free,
    async drop(db) {
      for (const schema of free.splice(0)) await toDatabase(db).query(`DROP SCHEMA ${schema} CASCADE`)
    },
  }
}

async function emptySchema(db: PostgresDatabase, schema: string): Promise<void> {
  const database = toDatabase(db)
  const tables = await database.query(`SELECT tablename FROM pg_tables WHERE schemaname = $1 AND tablename <> 'schema_migrations'`, [schema])
  // DELETE, not TRUNCATE: on tables this small it is cheaper (TRUNCATE makes new files for
  // every table and index). Any order: the one reference cascades.
  for (const row of tables) await database.query(`DELETE FROM ${schema}.${String(row.tablename)}`)
}

/**
 * A migrated, empty schema of its own, a store over it, peers on their own connections,
 * and cleanup. Without `pool` the schema is new and dropped at close; with it, it may be
 * one an earlier case of the suite emptied (see {@link SchemaPool}).
 */
export async function openSqlFixture(
  connections: SqlConnections,
  pool?: SchemaPool,
  storeOptions: PostgresStoreOptions = {},
): Promise<StoreFixture & { schema: string; store: PostgresStore }> {
  const reused = pool?.free.pop()
  const schema = reused ?? uniqueSchema()
  if (reused === undefined) await migrate(connections.main, { schema })
  const store = postgresStore(connections.main, { ...storeOptions, schema })
  const opened: { store: PostgresStore; close(): Promise<void> }[] = []
  return {
    schema,
    store,
    async peer() {
      const connection = await connections.another()
      const peer = postgresStore(connection.db, { ...storeOptions, schema })
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
      if (pool === undefined) {
        await toDatabase(connections.main).query(`DROP SCHEMA ${schema} CASCADE`)
        return
      }
      await emptySchema(connections.main, schema)
      pool.free.push(schema)
    },
  }
}

/**
 * The credentials of the shared-miss cases: 24 valid ones (one passcode in each of
 * `acc_shared_0` to `_23`) and 3 refused ones for `acc_1` (an unknown value, a deleted
 * passcode's, and a valid value of another account).
 */
export async function sharedMissCredentials(
  auth: PasscodeAuth,
): Promise<{ valid: { accountId: string; passcode: string }[]; refused: { accountId: string; passcode: string }[] }> {
  const admin = { userId: 'u_admin', role: 'admin' } as const
  const valid = await Promise.all(
    Array.from({ length: 24 }, async (_, i) => {
      const { value } = await auth.passcodes.create(admin, `acc_shared_${i}`, { name: 'Shared', expiry: 30 })
      return { accountId: `acc_shared_${i}`, passcode: value }
    }),
  )
  const deleted = await auth.passcodes.create(admin, 'acc_1', { name: 'Deleted', expiry: 30 })
  await auth.passcodes.delete(admin, 'acc_1', deleted.passcode.id)
  const refused = [
    { accountId: 'acc_1', passcode: generatePasscode() },
    { accountId: 'acc_1', passcode: deleted.value },
    { accountId: 'acc_1', passcode: valid[0]!.passcode },
  ]
  return { valid, refused }
}

/**
 * A service one step into a pepper change (`{ current: old, next: [fresh] }`, so nothing
 * is re-hashed) over `store`, and 24 valid credentials for it, half keyed by each pepper
 * (as written by instances on either step), plus 2 unknown values: every verification
 * looks two hashes up.
 */
export async function twoPepperMisses(store: PasscodeStore): Promise<{
  behind: PasscodeAuth
  valid: { accountId: string; passcode: string }[]
  unknown: { accountId: string; passcode: string }[]
  close(): Promise<void>
}> {
  const admin = { userId: 'u_admin', role: 'admin' } as const
  const [old, fresh] = [randomUUID(), randomUUID()]
  const behind = createPasscodeAuth({ store, cache: false, pepper: { current: old, next: [fresh] } })
  const ahead = createPasscodeAuth({ store, cache: false, pepper: fresh })
  const valid = await Promise.all(
    Array.from({ length: 24 }, async (_, i) => {
      const { value } = await (i % 2 === 0 ? behind : ahead).passcodes.create(admin, `acc_two_${i}`, { name: 'Two peppers', expiry: 30 })
      return { accountId: `acc_two_${i}`, passcode: value }
    }),
  )
  const unknown = [0, 1].map(() => ({ accountId: 'acc_two_0', passcode: generatePasscode() }))
  return {
    behind,
    valid,
    unknown,
    close: async () => {
      await Promise.all([behind.close(), ahead.close()])
    },
  }
}

/**
 * Records the text of every statement the pool's connections send from now on
 * (`named: ` before a named statement's text), for the cases that count statements.
 */
export function recordStatements(pool: pg.Pool): string[] {
  const texts: string[] = []
  pool.on('connect', (client) => {
    const query = client.query.bind(client) as (...args: unknown[]) => unknown
    ;(client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
      const [first] = args
      texts.push(typeof first === 'string' ? first : `named: ${String((first as { text?: unknown }).text)}`)
      return query(...args)
    }
  })
  return texts
}
