/**
 * Services with stored passcodes for the benchmarks, over the memory store, an
 * embedded PGlite or a PostgreSQL server. Passcodes are made through the public API
 * (`auth.passcodes.create`), so they are real values with real hashes at rest.
 */
import { PGlite } from '@electric-sql/pglite'
import pg from 'pg'
import { createPasscodeAuth, type CreatePasscodeInput, type PasscodeAuth, type PasscodeAuthOptions, type PasscodeStore } from '../src/index'
import { memoryStore } from '../src/memory'
import { migrate, postgresPartners, postgresStore } from '../src/stores/postgres/index'
import type { PartnerRegistry } from '../src/ports/partner-registry'

/** Who creates the benchmark's passcodes. */
export const ADMIN = { userId: 'u_bench_admin', role: 'admin' } as const
/** The partner whitelisted for `GET /v1/connect`. */
export const PARTNER = 'acme'
/** At most this many passcodes per account (SPEC §2). */
const PER_ACCOUNT = 100

/** Which store a benchmark service runs on. */
export type StoreKind = 'memory' | 'pglite' | 'postgres'

/** A service with `count` valid credentials. */
export interface BenchService {
  readonly auth: PasscodeAuth
  readonly store: PasscodeStore
  readonly credentials: readonly { readonly accountId: string; readonly passcode: string }[]
  close(): Promise<void>
}

/** Options of {@link createBenchService}. */
export interface BenchServiceOptions {
  readonly store: StoreKind
  /** The verification cache: `false` makes every call a miss. @default the service default */
  readonly cache?: PasscodeAuthOptions['cache']
  /** Last-use tracking: `false` turns it off. @default the service default (on) */
  readonly usage?: PasscodeAuthOptions['usage']
  /** How many passcodes to create. @default 1 */
  readonly count?: number
  /** PostgreSQL connection string (store `postgres`). */
  readonly connectionString?: string
  /** PostgreSQL schema (store `postgres`). @default 'bench_service' */
  readonly schema?: string
  /**
   * The whitelist: `static` is the list `[PARTNER]`; `store` is `postgresPartners`
   * over the same database (PGlite or PostgreSQL) with PARTNER added.
   * @default 'static'
   */
  readonly partners?: 'static' | 'store'
  /** The service's `telemetry` option. @default none */
  readonly telemetry?: PasscodeAuthOptions['telemetry']
  /** The service's `rateLimit` option. @default off */
  readonly rateLimit?: PasscodeAuthOptions['rateLimit']
  /** The service's `scopes` option (SPEC §5.48). @default none */
  readonly scopes?: PasscodeAuthOptions['scopes']
  /** What each passcode is restricted to (SPEC §5.48, §5.49). @default every scope, any address */
  readonly restrictions?: { readonly scopes?: readonly string[]; readonly allowedAddresses?: readonly string[] }
  /** Each passcode's rate limit and credits (SPEC §5.50). @default none */
  readonly limits?: Pick<CreatePasscodeInput, 'rateLimit' | 'credits'>
}

interface OpenedStore {
  readonly store: PasscodeStore
  readonly partners: PartnerRegistry | readonly string[]
  close(): Promise<void>
}

async function storePartners(db: Parameters<typeof postgresPartners>[0], options: BenchServiceOptions, schema?: string) {
  if (options.partners !== 'store') return { partners: [PARTNER], close: async () => {} }
  const partners = postgresPartners(db, schema === undefined ? {} : { schema })
  await partners.add(PARTNER)
  return { partners, close: () => partners.close() }
}

async function openStore(options: BenchServiceOptions): Promise<OpenedStore> {
  if (options.store === 'memory') return { store: memoryStore(), partners: [PARTNER], close: async () => {} }
  if (options.store === 'pglite') {
    const db = new PGlite()
    await migrate(db)
    const { partners, close } = await storePartners(db, options)
    return {
      store: postgresStore(db),
      partners,
      close: async () => {
        await close()
        await db.close()
      },
    }
  }
  if (options.connectionString === undefined) throw new Error('the postgres store needs a connection string')
  const schema = options.schema ?? 'bench_service'
  const pool = new pg.Pool({ connectionString: options.connectionString, max: 4, connectionTimeoutMillis: 10_000 })
  pool.on('error', () => {})
  await pool.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`)
  await migrate(pool, { schema })
  const registry = await storePartners(pool, options, schema)
  return {
    store: postgresStore(pool, { schema, listen: false }),
    partners: registry.partners,
    close: async () => {
      await registry.close()
      await pool.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch(() => {})
      await pool.end()
    },
  }
}

/**
 * Creates a service over the chosen store and `count` account passcodes spread over
 * accounts of 100 (the cap), each valid for a year.
 */
export async function createBenchService(options: BenchServiceOptions): Promise<BenchService> {
  const { store, partners, close } = await openStore(options)
  const auth = createPasscodeAuth({
    store,
    partners,
    ...(options.cache === undefined ? {} : { cache: options.cache }),
    ...(options.usage === undefined ? {} : { usage: options.usage }),
    ...(options.telemetry === undefined ? {} : { telemetry: options.telemetry }),
    ...(options.rateLimit === undefined ? {} : { rateLimit: options.rateLimit }),
    ...(options.scopes === undefined ? {} : { scopes: options.scopes }),
  })
  const credentials: { accountId: string; passcode: string }[] = []
  const count = options.count ?? 1
  for (let i = 0; i < count; i++) {
    const accountId = `acc_bench_${Math.floor(i / PER_ACCOUNT)}`
    const { value } = await auth.passcodes.create(ADMIN, accountId, { name: `Partner ${i}`, expiry: 365, ...options.restrictions, ...options.limits })
    credentials.push({ accountId, passcode: value })
  }
  return {
    auth,
    store,
    credentials,
    async close() {
      await auth.close()
      await close()
    },
  }
}
