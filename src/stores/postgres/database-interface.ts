/**
 * What every part of the PostgreSQL adapter shares, below the three drivers: the one
 * {@link Database} interface the SQL store speaks, the driver shapes it accepts
 * (`pg` Pool and Client, PGlite) and the helpers the drivers have in common. Imports
 * nothing of the adapter: the drivers import it, and `database.ts` dispatches to them.
 */

/** A result row as the drivers return it. */
export type Row = Record<string, unknown>

/**
 * The key of a verification lookup (see {@link Database.lookup}): one hash, or one
 * value's hashes under several peppers, looked up together in one statement.
 */
export type LookupKey = string | readonly string[]

/** Runs one statement (one round trip) and returns its rows. */
export interface Queryable {
  query(this: void, text: string, params?: readonly unknown[]): Promise<Row[]>
  /**
   * Runs one of the store's own statements (a fixed text; its values are parameters)
   * the fastest way this database can: on `pg`, a named prepared statement, parsed
   * once per connection (`pgPrepared`; in a transaction, on the transaction's
   * connection). The same rows as `query`. Absent: use `query`.
   */
  prepared?(this: void, text: string, params: readonly unknown[]): Promise<Row[]>
}

/**
 * The one interface the SQL store speaks, over `pg` and PGlite alike: single
 * statements, transactions (rolled back when `fn` throws or the connection drops)
 * and a channel listener.
 */
export interface Database extends Queryable {
  /**
   * Runs `fn` in a transaction. On a `pg` Pool the whole transaction has a deadline
   * ({@link STATEMENT_DEADLINE_MS}) unless `unbounded` (migrations): past it, its
   * connection is destroyed rather than handed back.
   *
   * On `pg`, `tx.prepared` sends a named prepared statement on the transaction's
   * connection. Where the server refuses one (26000 or 42P05: a pooler in transaction
   * mode), the refusal has aborted the transaction: it is rolled back, named statements
   * are given up for this database (as `prepared` and `lookup` give them up), and `fn`
   * runs once more in a new transaction, unnamed. So `fn` must have no effect outside
   * its transaction (act on its result after the call instead): it may run twice.
   */
  transaction<T>(fn: (tx: Queryable) => Promise<T>, options?: { readonly unbounded?: boolean }): Promise<T>
  /**
   * Runs one statement with no deadline: the online steps of a migration (batches and
   * `CREATE INDEX CONCURRENTLY` on tables that may be large), which cannot run in a
   * transaction. Absent where statements have no deadline: use `query`.
   */
  queryUnbounded?(this: void, text: string, params?: readonly unknown[]): Promise<Row[]>
  /**
   * Runs one statement of an operator's on-demand job that reads a whole table (the
   * pepper report) with {@link OPERATOR_READ_DEADLINE_MS}, not the requests'
   * {@link STATEMENT_DEADLINE_MS}: past it, as past the other, its connection is
   * destroyed and the call fails. Absent where statements have no deadline: use `query`.
   */
  queryOperatorRead?(this: void, text: string, params?: readonly unknown[]): Promise<Row[]>
  /**
   * Runs a read-only statement whose one parameter is `key`, hex text, the fastest
   * way this database can (the verification lookup); the same rows as `query`.
   * `call`, when given, is the same lookup through a function of the schema (one
   * text column `json`: the row as JSON, or NULL for none), for a database that
   * cannot keep a named statement; absent from a schema not migrated yet.
   * `callMany`, when given with `call`, is the same function for an array of keys
   * (`$1::text[]`; one row per key: `n`, its 1-based position, and `json`), which
   * concurrent lookups may share. Absent: use `query`.
   *
   * `key` may also be several keys (one value's hashes under each pepper): then `text`
   * takes them as one `$1::text[]` and answers a row per key that matched, `n` (its
   * 1-based position) first, and the keys are looked up in one statement, one snapshot,
   * whichever way it is sent (`text`, or `callMany` over these keys alone or among
   * other lookups'): never split across statements.
   */
  lookup?(text: string, key: LookupKey, call?: string, callMany?: string): Promise<Row[]>
  /**
   * Starts listening on `channel`; `onPayload` receives each notification's payload.
   * `onGap` is called each time listening resumes after a time without it (the
   * connection dropped or could not be made), during which payloads were lost.
   */
  listen(channel: string, onPayload: (payload: string) => void, onGap?: () => void, options?: ListenOptions): Subscription
  /**
   * `true` when notifications never leave this process (PGlite): they cannot be lost on
   * the way, so the store proves nothing (SPEC §5.32).
   */
  readonly local?: boolean
}

/** How a `pg` database opens its listening connection. */
export interface ListenOptions {
  /** A direct connection for `LISTEN` only (`listenConnectionString`). */
  readonly connectionString?: string | undefined
}

/**
 * How long a statement (or a transaction) on a `pg` Pool may take before its connection
 * is destroyed and the call fails: a connection that stopped answering (a silent
 * network cut) is never handed out again, so the pool serves again soon after the
 * network heals (issue 32, item 8).
 */
export const STATEMENT_DEADLINE_MS = 5_000

/**
 * The deadline of a statement that reads a whole table for an operator's on-demand job
 * ({@link Database.queryOperatorRead}: the pepper report, `auth.pepperReport()`): such a
 * read takes about 5 s at 10 million passcodes on a loaded machine, past
 * {@link STATEMENT_DEADLINE_MS}, which is right for requests, not for it. Long enough
 * for tables far larger; still a bound, so that a silent network cut fails the
 * operator's command instead of hanging it for ever.
 */
export const OPERATOR_READ_DEADLINE_MS = 120_000

/** A running `LISTEN`. */
export interface Subscription {
  /** Settles once the `LISTEN` is active (or has failed for good). */
  readonly ready: Promise<void>
  /** Stops listening; never waits for a connection that is still being made. */
  stop(): Promise<void>
  /**
   * Replaces the listening connection (it failed to prove delivery, SPEC §5.32), when
   * this driver owns it; absent for a host's own `pg` Client.
   */
  renew?(): void
}

/** A {@link Subscription} over a `LISTEN` that resolves to its stop function. */
export function subscriptionOf(started: Promise<() => Promise<void>>): Subscription {
  started.catch(() => undefined)
  return {
    ready: started.then(() => undefined),
    async stop() {
      const stop = await started.catch(() => undefined)
      await stop?.()
    },
  }
}

/** What the adapter needs of a `pg` result. */
export interface PgResultLike {
  /** The rows the statement returned. */
  readonly rows: readonly unknown[]
}

/** What the adapter needs of a `pg` connection (a `Client`, or a `PoolClient` on loan). */
export interface PgConnectionLike {
  /** Runs one statement with `$1`… parameters. */
  query(text: string, values?: unknown[]): Promise<PgResultLike>
}

/** A `pg` `PoolClient`: a connection on loan from a pool. */
export interface PgPoolClientLike extends PgConnectionLike {
  /** Gives the connection back to the pool (or destroys it). */
  release(destroy?: boolean | Error): void
  /** Listens for the connection's errors while it is on loan. */
  on?(event: 'error', listener: (error: Error) => void): unknown
  /** Stops listening for them. */
  removeListener?(event: 'error', listener: (error: Error) => void): unknown
}

/** What the adapter needs of a `pg` `Pool`. */
export interface PgPoolLike extends PgConnectionLike {
  /** Borrows a connection (for a transaction or `LISTEN`). */
  connect(): Promise<PgPoolClientLike>
  /** How many connections the pool holds. */
  readonly totalCount: number
  /** pg-pool's 'connect': a new connection, before its first loan is handed out. */
  on?(event: 'connect', listener: (client: PgPoolClientLike) => void): unknown
}

/** What the adapter needs of a `pg` `Client` (one connection). */
export interface PgClientLike extends PgConnectionLike {
  /** Receives `NOTIFY` messages on the channels the client listens to. */
  on(event: 'notification', listener: (message: { channel: string; payload?: string | undefined }) => void): unknown
  /** Stops receiving them. */
  removeListener(event: 'notification', listener: (message: { channel: string; payload?: string | undefined }) => void): unknown
}

/** What the adapter needs of a PGlite instance (`@electric-sql/pglite`). */
export interface PGliteLike {
  /** Runs one statement with `$1`… parameters. */
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters -- PGlite's own signature: the caller names its rows' type
  query<T>(
    query: string,
    params?: unknown[],
  ): Promise<{
    /** The rows the statement returned. */
    rows: T[]
  }>
  /** Runs `callback` in a transaction, rolled back when it throws. */
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters -- as query above
  transaction<T>(callback: (tx: { query<R>(query: string, params?: unknown[]): Promise<{ rows: R[] }> }) => Promise<T>): Promise<T>
  /** Listens to a `NOTIFY` channel; resolves the function that stops listening. */
  listen(channel: string, callback: (payload: string) => void): Promise<() => Promise<void>>
}

/**
 * A `pg` `Pool`, a `pg` `Client` or a PGlite instance: what the PostgreSQL adapter
 * accepts as `db`. Described by shape, so the package needs neither driver's types.
 *
 * @example
 * ```ts
 * import pg from 'pg'
 *
 * const db: PostgresDatabase = new pg.Pool({ connectionString: process.env.DATABASE_URL, connectionTimeoutMillis: 2_000, keepAlive: true })
 * ```
 */
export type PostgresDatabase = PgPoolLike | PgClientLike | PGliteLike

/** Runs `fn` with ROLLBACK on failure; shared by the `pg` Pool and Client wrappers. */
export async function inTransaction<T>(
  connection: Queryable,
  fn: (tx: Queryable) => Promise<T>,
): Promise<{ value: T } | { error: unknown; broken: boolean }> {
  try {
    await connection.query('BEGIN')
    const value = await fn(connection)
    await connection.query('COMMIT')
    return { value }
  } catch (error) {
    try {
      await connection.query('ROLLBACK')
      return { error, broken: false }
    } catch {
      // The connection itself failed; the server rolls back on disconnect.
      return { error, broken: true }
    }
  }
}

/** Adapts a `pg` connection to {@link Queryable}. */
export function pgQueryable(connection: PgConnectionLike): Queryable {
  return {
    async query(text, params) {
      const result = await connection.query(text, params === undefined ? undefined : [...params])
      return result.rows as Row[]
    },
  }
}
