import { createPasscodeAuth, type AuditKey, type EncryptionKey, type Mailer, type PasscodeAuth } from '../index'
import {
  migrate,
  postgresPartners,
  postgresRateLimitStore,
  postgresStore,
  type MigrationReport,
  type PostgresPartners,
  type PostgresDatabase,
} from '../stores/postgres/index'
import { repeatedPepper, type RateLimitConfig, type StorageConfig } from './config'
import { dataFolderPaths, NEW_DATABASE_SETTINGS, prepareDataFolder } from './data-folder'
import { CliError } from './exit-codes'
import { restrictTree } from './folder-permissions'
import type { Output } from './output'
import { embeddedSecrets } from './secrets'
import { hasRepeatedPepper } from './setting-rules'

/** The opened store and the service over it, for one command or one `serve`. */
export interface Runtime {
  readonly auth: PasscodeAuth
  /** The operator's partner whitelist, kept in the database. */
  readonly partners: PostgresPartners
  readonly storage: 'embedded' | 'postgres'
  /** For the operator: the data folder, or "PostgreSQL (DATABASE_URL)"; never a password. */
  readonly location: string
  /** Whether an embedded data folder had no database before this run. */
  readonly fresh: boolean
  /** Whether user passcodes can be encrypted: PASSCODE_AUTH_ENCRYPTION_KEYS or the data folder's `secrets.json` holds a key. */
  readonly hasEncryptionKeys: boolean
  /** The PostgreSQL schema of the tables (`passcode_auth` in a data folder). */
  readonly schema: string
  /**
   * Runs one statement on the store's database, for the reference server's own table
   * (`dashboard_logins`); the library's tables are the library's.
   */
  query(text: string, values?: unknown[]): Promise<readonly Record<string, unknown>[]>
  /** Applies pending migrations (idempotent). */
  migrate(): Promise<MigrationReport>
  /** Throws when the database does not answer. */
  ping(this: void): Promise<void>
  close(): Promise<void>
}

/** What to open the store for. */
export interface RuntimeOptions {
  readonly migrate: boolean
  /**
   * The brute-force limiter (`serve`): in this process's memory on a data folder, shared
   * by every instance through the database with DATABASE_URL. @default false
   */
  readonly rateLimit?: RateLimitConfig
  /** Whether the store listens for other instances' invalidations (`serve` only). */
  readonly listen: boolean
  readonly mailer?: Mailer
  readonly recipients?: readonly string[]
  readonly output: Output
}

interface Opened {
  readonly db: PostgresDatabase
  /** The PostgreSQL schema of the tables; the embedded folder uses the default one. */
  readonly schema?: string
  readonly pepper: string
  readonly encryptionKeys: readonly EncryptionKey[] | undefined
  /** The keys of the audit chain (SPEC §5.44); none: plain hashes. */
  readonly auditKeys: readonly AuditKey[] | undefined
  readonly location: string
  readonly fresh: boolean
  ping(this: void): Promise<void>
  end(): Promise<void>
}

async function openEmbedded(config: Extract<StorageConfig, { kind: 'embedded' }>, output: Output): Promise<Opened> {
  const { fresh } = prepareDataFolder(config.dataDir)
  const secrets = embeddedSecrets(config.dataDir, fresh, config)
  for (const warning of secrets.warnings) output.notice(`warning: ${warning}`)
  if (secrets.generated.length > 0) {
    const names = secrets.generated.map((name) => `${name === 'pepper' ? 'a' : 'an'} ${name}`)
    const list = names.length === 1 ? names[0]! : `${names.slice(0, -1).join(', ')} and ${names.at(-1)!}`
    output.notice(
      `Generated ${list} into ${dataFolderPaths(config.dataDir).secrets} (mode 0600, values not shown). ` +
        'Keep that file with the data folder, or set PASSCODE_AUTH_PEPPER, PASSCODE_AUTH_ENCRYPTION_KEYS and PASSCODE_AUTH_AUDIT_KEYS instead.',
    )
  }
  // checkRequirements has loaded it already, before the folder was touched.
  const { PGlite } = await import('@electric-sql/pglite')
  let db: InstanceType<typeof PGlite>
  try {
    db = await PGlite.create(dataFolderPaths(config.dataDir).database, { initDbStartParams: [...NEW_DATABASE_SETTINGS] })
  } catch (error) {
    throw new CliError('ERR_DATABASE', `Cannot open the database in ${config.dataDir}: ${(error as Error).message}`, { cause: error })
  }
  // PGlite writes the files of a new database (and a few at each start) with mode 0666.
  restrictTree(dataFolderPaths(config.dataDir).database)
  return {
    db,
    pepper: secrets.pepper,
    encryptionKeys: secrets.encryptionKeys,
    auditKeys: secrets.auditKeys,
    location: config.dataDir,
    fresh,
    ping: async () => {
      await db.query('SELECT 1')
    },
    end: () => db.close(),
  }
}

async function openPostgres(config: Extract<StorageConfig, { kind: 'postgres' }>): Promise<Opened> {
  const { default: pg } = await import('pg')
  // The settings of docs/operations.md: postgresStore refuses a pool without a connect timeout.
  const pool = new pg.Pool({
    connectionString: config.databaseUrl,
    connectionTimeoutMillis: 2_000,
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
  })
  // An idle connection that drops must not crash the process; the next query reconnects.
  pool.on('error', () => undefined)
  try {
    await pool.query('SELECT 1')
  } catch (error) {
    await pool.end().catch(() => undefined)
    const code = (error as { code?: unknown }).code
    // The driver's message may quote the user name; the code is enough to act on.
    throw new CliError('ERR_DATABASE', `Cannot connect to the PostgreSQL server of DATABASE_URL${typeof code === 'string' ? ` (${code})` : ''}`, {
      setting: 'DATABASE_URL',
      cause: error,
    })
  }
  return {
    db: pool,
    schema: config.schema,
    pepper: config.pepper,
    encryptionKeys: config.encryptionKeys,
    auditKeys: config.auditKeys,
    location: `PostgreSQL (DATABASE_URL, schema ${config.schema})`,
    fresh: false,
    ping: async () => {
      await pool.query('SELECT 1')
    },
    end: () => pool.end(),
  }
}

/** Opens the store the settings name, migrates it unless told not to, and builds the service. */
export async function openRuntime(config: StorageConfig, options: RuntimeOptions): Promise<Runtime> {
  const opened = config.kind === 'embedded' ? await openEmbedded(config, options.output) : await openPostgres(config)
  try {
    // The settings were checked against PASSCODE_AUTH_PEPPER; a data folder's own pepper is known only now.
    const pepper = { current: opened.pepper, previous: config.previousPeppers ?? [], next: config.nextPeppers ?? [] }
    if (hasRepeatedPepper([pepper.current, ...pepper.previous, ...pepper.next])) {
      const setting = hasRepeatedPepper([pepper.current, ...pepper.previous]) ? 'PASSCODE_AUTH_PREVIOUS_PEPPERS' : 'PASSCODE_AUTH_NEXT_PEPPERS'
      throw repeatedPepper(`the pepper of ${opened.location}`, setting)
    }
    const schema = opened.schema === undefined ? {} : { schema: opened.schema }
    if (options.migrate) {
      await migrate(opened.db, schema).catch((error: unknown) => {
        throw new CliError('ERR_DATABASE', `Applying the schema migrations failed: ${(error as Error).message}`, { cause: error })
      })
    }
    const store = postgresStore(opened.db, { ...schema, listen: options.listen })
    const partners = postgresPartners(opened.db, schema)
    const recipients = options.recipients
    const limit = options.rateLimit ?? false
    // One process owns a data folder: its memory is the whole count there.
    const limiterStore =
      limit !== false && config.kind === 'postgres'
        ? postgresRateLimitStore(opened.db, {
            ...schema,
            listen: options.listen,
            onError: (error) => options.output.notice(`rate limiter: sharing failed counts with other instances failed: ${(error as Error).message}`),
          })
        : undefined
    const auth = createPasscodeAuth({
      store,
      partners,
      rateLimit:
        limit === false
          ? false
          : {
              windowMs: limit.windowMs,
              maxFailuresPerAddress: limit.maxFailures,
              maxFailuresPerAccount: limit.maxFailures,
              ...(limiterStore && { store: limiterStore }),
            },
      pepper,
      // The reference server has a pepper always, and an audit key in a data folder; should that change, it says so.
      onEvent: (event) => {
        if (event.type === 'config.no_pepper' || event.type === 'config.no_audit_key') options.output.notice(`warning: ${event.message}`)
      },
      ...(opened.encryptionKeys !== undefined && { encryptionKeys: [...opened.encryptionKeys] }),
      ...(opened.auditKeys !== undefined && { auditKeys: [...opened.auditKeys] }),
      ...(options.mailer !== undefined && { mailer: options.mailer }),
      ...(recipients !== undefined && { recipients: () => recipients }),
    })
    let closed: Promise<void> | undefined
    return {
      auth,
      partners,
      storage: config.kind,
      location: opened.location,
      fresh: opened.fresh,
      hasEncryptionKeys: opened.encryptionKeys !== undefined && opened.encryptionKeys.length > 0,
      schema: opened.schema ?? 'passcode_auth',
      async query(text, values) {
        // A pg Pool and a PGlite instance both take one statement with $1… parameters.
        const db = opened.db as { query(text: string, values?: unknown[]): Promise<{ rows: readonly unknown[] }> }
        return (await db.query(text, values)).rows as readonly Record<string, unknown>[]
      },
      migrate: () => migrate(opened.db, schema),
      ping: opened.ping,
      close() {
        closed ??= (async () => {
          await auth.close()
          await limiterStore?.close()
          await partners.close()
          await store.close()
          await opened.end()
        })()
        return closed
      },
    }
  } catch (error) {
    await opened.end().catch(() => undefined)
    throw error
  }
}
