import pg from 'pg'
import { createPasscodeAuth, type PasscodeAuth, type PasscodeAuthOptions } from '../../src/index'
import type { Invalidation } from '../../src/ports/passcode-store'
import { postgresStore, type PostgresStore, type PostgresStoreOptions } from '../../src/stores/postgres/index'
import { TEST_KEY } from '../helpers/service'

/** Same on every instance, as a deployment requires; obviously not a real pepper. */
export const TEST_PEPPER = 'fault-tests-pepper-not-a-secret'

/** One host process's worth of passcode-auth: its own pg Pool, store and service. */
export interface PgInstance {
  readonly pool: pg.Pool
  readonly store: PostgresStore
  readonly auth: PasscodeAuth
  /** Every invalidation the store delivered to this instance, in order. */
  readonly invalidations: Invalidation[]
  close(): Promise<void>
}

/**
 * Opens an instance over `schema` (already migrated) the way a host does: a Pool
 * with an 'error' handler (idle connections that drop must not crash the process)
 * and a store that listens for the other instances' invalidations.
 */
export function pgInstance(
  connectionString: string,
  schema: string,
  options: Partial<PasscodeAuthOptions> & {
    readonly applicationName?: string
    /** More `pg.Pool` settings (docs/operations.md recommends some); `connectionTimeoutMillis` is 2 000 unless given. */
    readonly pool?: pg.PoolConfig
    /** More `postgresStore` options (`listenConnectionString`, `proofIntervalMs`). */
    readonly storeOptions?: Omit<PostgresStoreOptions, 'schema'>
  } = {},
): PgInstance {
  const { applicationName, pool: poolOptions, storeOptions, ...authOptions } = options
  // A connect timeout as docs/operations.md gives one: postgresStore refuses a pool without.
  const pool = new pg.Pool({
    connectionString,
    max: 8,
    connectionTimeoutMillis: 2_000,
    ...(applicationName !== undefined && { application_name: applicationName }),
    ...poolOptions,
  })
  pool.on('error', () => {})
  const store = postgresStore(pool, { ...storeOptions, schema })
  const invalidations: Invalidation[] = []
  store.subscribe((invalidation) => invalidations.push(invalidation))
  const auth = createPasscodeAuth({
    partners: ['acme'],
    pepper: TEST_PEPPER,
    encryptionKeys: [{ id: 'k1', key: TEST_KEY }],
    ...authOptions,
    store,
  })
  let closed: Promise<void> | undefined
  return {
    pool,
    store,
    auth,
    invalidations,
    close() {
      closed ??= (async () => {
        await auth.close()
        await store.close()
        await pool.end().catch(() => undefined)
      })()
      return closed
    },
  }
}

/** Resolves after `ms`. */
export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))
