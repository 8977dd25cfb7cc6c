import { InvalidOptionsError } from '../../core/errors'
import { ownOptions, printableName } from '../../core/own-data'

/**
 * Options of `postgresStore`, `migrate` and `postgresPartners`. Give every one of
 * them the same `schema`.
 *
 * @example
 * ```ts
 * const options = { schema: 'auth' }
 * await migrate(pool, options)
 * const store = postgresStore(pool, { ...options, channel: 'auth_changes' })
 * ```
 */
export interface PostgresStoreOptions {
  /**
   * The PostgreSQL schema that holds the tables; created by {@link migrate}.
   * Lower-case letters, digits and `_`, starting with a letter or `_`, at most 48 characters.
   * @default 'passcode_auth'
   */
  readonly schema?: string
  /**
   * The `LISTEN/NOTIFY` channel that carries cache invalidations between instances.
   * Same character rules as `schema`, at most 63 characters.
   * @default `${schema}_invalidations`
   */
  readonly channel?: string
  /**
   * Whether the store listens for invalidations published by other instances (on a
   * connection of its own for a `pg` Pool). With `false`, subscribers only hear
   * about this instance's own writes: for a single instance, or where `LISTEN`
   * cannot work (a pooler in transaction mode).
   * @default true
   */
  readonly listen?: boolean
  /**
   * A connection string for the listening connection only: a direct (session) connection
   * to PostgreSQL, when the pool goes through a pooler in transaction mode (PgBouncer,
   * Supabase's transaction pooler, Neon's pooled host…) where `LISTEN` cannot deliver
   * (SPEC §5.33; docs/operations.md). Every other statement still goes through the pool.
   * For a `pg` Pool or Client; the rest of the pool's options (user, password, TLS) apply
   * to it too unless the string sets them. `undefined` (an unset environment variable,
   * under `exactOptionalPropertyTypes`) is the same as leaving it out.
   * @default the pool's own connection settings
   */
  readonly listenConnectionString?: string | undefined
  /**
   * How often, in milliseconds, the store proves that its `LISTEN` still delivers
   * (SPEC §5.32): it sends itself a notification through the pool and expects it back on
   * the listening connection within half this interval. Without that proof its
   * subscribers are told `{ type: 'unproven' }` and trust no cache until it comes back
   * (`{ type: 'proven' }`, after two proofs in a row). 100 to 60 000; with the default,
   * a credential deleted on another instance is refused within 10 s even through a
   * silent network cut. The first store, partner registry or limiter store that listens
   * on a pool and channel sets it for all of them.
   * @default 5000
   */
  readonly proofIntervalMs?: number
}

/** Options after validation and defaults. */
export interface ResolvedPostgresOptions {
  readonly schema: string
  readonly channel: string
  readonly listen: boolean
  readonly listenConnectionString: string | undefined
  /** `undefined`: {@link DEFAULT_PROOF_INTERVAL_MS}. */
  readonly proofIntervalMs: number | undefined
}

/** The default of {@link PostgresStoreOptions.proofIntervalMs}. */
export const DEFAULT_PROOF_INTERVAL_MS = 5_000

/** The default schema name. */
export const DEFAULT_SCHEMA = 'passcode_auth'

// Identifiers are interpolated into SQL (schema and channel names cannot be bound
// parameters), so only a conservative, unquoted-safe shape is accepted.
const IDENTIFIER = /^[a-z_][a-z0-9_]*$/

function identifier(option: string, value: unknown, maxLength: number): string {
  if (typeof value !== 'string' || !IDENTIFIER.test(value) || value.length > maxLength) {
    throw new InvalidOptionsError(option, `must be 1 to ${maxLength} characters of lower-case letters, digits and "_", starting with a letter or "_"`)
  }
  return value
}

const OPTION_NAMES = ['schema', 'channel', 'listen', 'listenConnectionString', 'proofIntervalMs']

/** Validates the options of the PostgreSQL adapter; throws `InvalidOptionsError` naming the bad one. */
export function resolvePostgresOptions(options: unknown): ResolvedPostgresOptions {
  if (options === undefined) options = {}
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new InvalidOptionsError('options', 'must be an object')
  }
  // Own properties only: a polluted Object.prototype names no schema (core/own-data.ts).
  const given = ownOptions(options as Record<string, unknown>)
  const unknown = Object.keys(given).filter((key) => !OPTION_NAMES.includes(key))
  if (unknown.length > 0) {
    throw new InvalidOptionsError('options', `unknown option ${unknown.map((key) => `\`${printableName(key)}\``).join(', ')}`)
  }
  const schema = given.schema === undefined ? DEFAULT_SCHEMA : identifier('schema', given.schema, 48)
  const channel = given.channel === undefined ? `${schema}_invalidations` : identifier('channel', given.channel, 63)
  if (given.listen !== undefined && typeof given.listen !== 'boolean') {
    throw new InvalidOptionsError('listen', 'must be a boolean')
  }
  const { listenConnectionString, proofIntervalMs } = given
  if (listenConnectionString !== undefined && (typeof listenConnectionString !== 'string' || listenConnectionString.trim() === '')) {
    throw new InvalidOptionsError('listenConnectionString', 'must be a non-empty connection string')
  }
  if (
    proofIntervalMs !== undefined &&
    (typeof proofIntervalMs !== 'number' || !Number.isInteger(proofIntervalMs) || proofIntervalMs < 100 || proofIntervalMs > 60_000)
  ) {
    throw new InvalidOptionsError('proofIntervalMs', 'must be a whole number of milliseconds from 100 to 60000')
  }
  return {
    schema,
    channel,
    listen: given.listen ?? true,
    listenConnectionString,
    proofIntervalMs,
  }
}
