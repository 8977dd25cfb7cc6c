import { unrefTimer } from '../../core/time'
import {
  inTransaction,
  pgQueryable,
  STATEMENT_DEADLINE_MS,
  subscriptionOf,
  type Database,
  type PgConnectionLike,
  type PgPoolClientLike,
  type PgPoolLike,
  type PgResultLike,
} from './database-interface'
import { pgChannelListener, type ListenConnection } from './pg-listener'
import { pgPrepared, pgPreparedLookup } from './pg-prepared-lookup'

interface PoolInternals {
  /** pg-pool keeps the Client class and its options: a listener connects the same way. */
  readonly Client?: new (options: unknown) => ListenConnection
  readonly options?: Record<string, unknown>
}

/** How long the listening connection may take to connect when the pool sets no `connectionTimeoutMillis`. */
const LISTEN_CONNECT_TIMEOUT_MS = 5_000

/** Thrown when a statement on a `pg` Pool passed {@link STATEMENT_DEADLINE_MS}; its connection was destroyed. */
export class StatementDeadlineError extends Error {
  constructor() {
    super(`The database did not answer within ${STATEMENT_DEADLINE_MS} ms; the connection was destroyed`)
    this.name = 'StatementDeadlineError'
  }
}

/**
 * Whether a failed statement left its connection unusable: an error with no SQLSTATE
 * (the socket ended or failed), a FATAL or PANIC (the server ends the session after
 * it: `pg_terminate_backend`, a shutdown), a connection exception (class 08) or an
 * operator intervention that ends sessions (57P01–57P05). The server's error arrives
 * before the socket's close, so waiting for the client's own 'error' or 'end' would
 * hand a dead connection to the next statement. Any other server error (a constraint,
 * a statement timeout) leaves the session fine.
 */
export function endsSession(error: unknown): boolean {
  return typeof (error as { code?: unknown } | null)?.code !== 'string' || serverEndedSession(error)
}

/** A server error after which the server ends the session (see {@link endsSession}). */
function serverEndedSession(error: unknown): boolean {
  const { code, severity } = (error ?? {}) as { code?: unknown; severity?: unknown }
  if (typeof code !== 'string') return false
  return severity === 'FATAL' || severity === 'PANIC' || code.startsWith('08') || /^57P0[1-5]$/.test(code)
}

/**
 * Borrows a connection, runs `work` on it and hands it back, unless `work` has not
 * settled within `deadlineMs` (or the connection failed): then the connection is
 * destroyed, never handed out again (a connection cut without a FIN or RST would
 * otherwise hang every statement given to it), and the call fails. A checkout that
 * passes the deadline fails too; the connection, should it come later, goes back to
 * the pool.
 */
function onConnection<T>(
  pool: PgPoolLike,
  work: (client: PgPoolClientLike) => Promise<T>,
  deadlineMs: number | undefined,
  destroyAfter: (error: unknown) => boolean = endsSession,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let client: PgPoolClientLike | undefined
    let settled = false
    let dropped = false
    // pg-pool listens for errors of idle clients only: a connection that drops while on
    // loan would otherwise emit an unhandled 'error' and crash the host. Its statement fails instead.
    const onError = (): void => {
      dropped = true
    }
    const giveBack = (destroy: boolean): void => {
      client?.removeListener?.('error', onError)
      client?.release(destroy || dropped ? true : undefined)
    }
    const timer =
      deadlineMs === undefined
        ? undefined
        : setTimeout(() => {
            settled = true
            giveBack(true)
            reject(new StatementDeadlineError())
          }, deadlineMs)
    unrefTimer(timer)
    pool.connect().then(
      (connection) => {
        if (settled) return connection.release()
        client = connection
        connection.on?.('error', onError)
        work(connection).then(
          (value) => {
            if (settled) return
            settled = true
            clearTimeout(timer)
            giveBack(false)
            resolve(value)
          },
          (error: unknown) => {
            if (settled) return
            settled = true
            clearTimeout(timer)
            giveBack(destroyAfter(error))
            reject(error)
          },
        )
      },
      (error: unknown) => {
        if (settled) return
        settled = true
        clearTimeout(timer)
        reject(error)
      },
    )
  })
}

/**
 * A `pg` Pool: each statement borrows a connection for itself (the verification lookup
 * and an edit with its audit record as named prepared statements), a transaction borrows one for its statements, and
 * listening uses a dedicated connection outside the pool (opened like the pool's own,
 * or with `listenConnectionString`, with TCP keepalive, reconnected when it drops or
 * fails its proof). Every statement and every transaction but a migration's has
 * {@link STATEMENT_DEADLINE_MS}: past it, its connection is destroyed.
 */
export function pgPoolDatabase(pool: PgPoolLike): Database {
  const bounded: PgConnectionLike = {
    query: (text, values) => onConnection(pool, (client) => client.query(text, values), STATEMENT_DEADLINE_MS),
  }
  const queryable = pgQueryable(bounded)
  // Named statements are per connection: the config object is passed through as it is.
  const named: PgConnectionLike = {
    query: (config: unknown, values?: unknown[]) =>
      onConnection(
        pool,
        (client) => (client.query as (config: unknown, values?: unknown[]) => Promise<PgResultLike>)(config, values),
        STATEMENT_DEADLINE_MS,
      ),
  }
  const unbounded = pgQueryable({ query: (text, values) => onConnection(pool, (client) => client.query(text, values), undefined) })
  return {
    query: queryable.query,
    queryUnbounded: unbounded.query,

    lookup: pgPreparedLookup(named),
    prepared: pgPrepared(named),

    transaction(fn, options) {
      let broken = false
      return onConnection(
        pool,
        async (client) => {
          const outcome = await inTransaction(pgQueryable(client), fn)
          if ('value' in outcome) return outcome.value
          broken = outcome.broken
          throw outcome.error
        },
        options?.unbounded === true ? undefined : STATEMENT_DEADLINE_MS,
        // Rolled back: the connection is fine (the error may be the host's own, thrown
        // inside). A connection that failed, or whose session the server ended, is
        // destroyed, never handed out again.
        (error) => broken || serverEndedSession(error),
      )
    },

    listen(channel, onPayload, onGap, options) {
      const internals = pool as unknown as PoolInternals
      const Client = internals.Client
      if (typeof Client !== 'function') {
        return subscriptionOf(Promise.reject(new Error('This pool cannot open a listening connection; pass { listen: false }')))
      }
      const own = internals.options ?? {}
      const settings = {
        ...own,
        ...(options?.connectionString === undefined ? {} : { connectionString: options.connectionString }),
        // A cut the kernel can see ends the connection; the proof (SPEC §5.32) catches the rest.
        keepAlive: true,
        keepAliveInitialDelayMillis: typeof own.keepAliveInitialDelayMillis === 'number' ? own.keepAliveInitialDelayMillis : 10_000,
        connectionTimeoutMillis:
          typeof own.connectionTimeoutMillis === 'number' && own.connectionTimeoutMillis > 0
            ? own.connectionTimeoutMillis
            : LISTEN_CONNECT_TIMEOUT_MS,
      }
      return pgChannelListener(() => new Client(settings), channel, onPayload, onGap)
    },
  }
}
