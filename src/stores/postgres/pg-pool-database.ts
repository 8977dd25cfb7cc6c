import { ConfigurationError } from '../../core/errors'
import { unrefTimer } from '../../core/time'
import {
  OPERATOR_READ_DEADLINE_MS,
  pgQueryable,
  STATEMENT_DEADLINE_MS,
  subscriptionOf,
  type Database,
  type PgConnectionLike,
  type PgPoolClientLike,
  type PgPoolLike,
  type PgResultLike,
} from './database-interface'
import { LISTEN_CONNECT_TIMEOUT_MS, pgChannelListener, type ListenConnection } from './pg-listener'
import { pgPrepared, pgPreparedLookup, pgPreparedTransaction, type NamedStatements } from './pg-prepared-lookup'

interface PoolInternals {
  /** pg-pool keeps the Client class and its options: a listener connects the same way. */
  readonly Client?: new (options: unknown) => ListenConnection
  readonly options?: Record<string, unknown>
}

/**
 * The `connectionTimeoutMillis` that docs/operations.md gives a host's pool and that
 * {@link requireConnectDeadline}'s refusal names: the service's default `timeoutMs`
 * (past it the request has answered 504 anyway).
 */
export const RECOMMENDED_CONNECTION_TIMEOUT_MS = 2_000

/**
 * Refuses a `pg` Pool whose new connections may wait for ever: `connectionTimeoutMillis`
 * unset or 0, pg's default. Through a route that accepts a connection and never answers
 * it (a hung load balancer or pooler, a blackholed route) such an attempt never ends, and
 * it holds a slot of the pool for good: pg-pool counts a connection from its start, gives
 * its caller no handle on it until it is made, and has no way to abandon it but its own
 * `connectionTimeoutMillis`. The store's deadline can fail the request, not free the
 * slot; once every slot is held the instance answers 504 for ever, network healed or not
 * (issue 48; docs/architecture.md, Decisions). A pool-like object without pg-pool's
 * `options` is not checked: its settings cannot be read.
 *
 * @throws ConfigurationError naming `connectionTimeoutMillis` and the value to set.
 */
export function requireConnectDeadline(pool: PgPoolLike): void {
  // Read as pg-pool keeps it, whatever the object: not every pool-like object has it.
  const options: unknown = (pool as unknown as PoolInternals).options
  if (typeof options !== 'object' || options === null) return
  const value = (options as Record<string, unknown>).connectionTimeoutMillis
  if (typeof value === 'number' && Number.isFinite(value) && value > 0) return
  const advice =
    `Create the pool with connectionTimeoutMillis: ${RECOMMENDED_CONNECTION_TIMEOUT_MS} (at most the service's timeoutMs) ` +
    'and keepAlive: true (docs/operations.md, "The pg Pool").'
  if (value === undefined || value === 0) {
    throw new ConfigurationError(
      "The pg Pool has no connectionTimeoutMillis (pg's default, 0, waits for ever for a new connection): a connection attempt that a hung load " +
        'balancer or a silent network never answers holds a slot of the pool for good, and once every slot is held the instance answers 504 ' +
        `even after the network heals. ${advice}`,
    )
  }
  const found = typeof value === 'number' ? String(value) : `a ${typeof value}`
  throw new ConfigurationError(`The pg Pool's connectionTimeoutMillis must be a positive number of milliseconds (it is ${found}). ${advice}`)
}

/**
 * Thrown when a statement on a `pg` Pool passed its deadline ({@link STATEMENT_DEADLINE_MS},
 * or {@link OPERATOR_READ_DEADLINE_MS} for an operator's whole-table read); its connection
 * was destroyed.
 */
export class StatementDeadlineError extends Error {
  constructor(ms: number = STATEMENT_DEADLINE_MS) {
    super(`The database did not answer within ${ms} ms; the connection was destroyed`)
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

/** A loan in the queue of {@link StatementDeadlines}. */
interface Deadline {
  /** When it ends, `performance.now()` ms. */
  at: number
  previous: Deadline | undefined
  next: Deadline | undefined
  /** Called once, when it ends before being removed. */
  expire(): void
}

/**
 * The deadlines of one pool's statements in flight. They all have the same length, so
 * they end in the order they started: a list, oldest first, with one timer armed for
 * the oldest, serves them all (a `setTimeout` and `clearTimeout` per statement cost
 * more than the rest of the store's work on a cache miss). Adding and removing are
 * O(1); the timer is not cleared when the oldest settles: when it fires it ends what
 * is due and arms itself for the next, so a steady flow of statements costs one timer
 * per deadline length. The clock is monotonic: a wall clock set back cannot hold a
 * hung connection. The entry the timer was armed for ends when it fires, whatever the
 * clock says (fake timers in tests move timers, not always `performance`).
 */
class StatementDeadlines {
  #oldest: Deadline | undefined
  #newest: Deadline | undefined
  #timer: ReturnType<typeof setTimeout> | undefined
  #armedFor: Deadline | undefined

  constructor(readonly ms: number) {}

  add(deadline: Deadline): void {
    deadline.at = performance.now() + this.ms
    deadline.previous = this.#newest
    deadline.next = undefined
    if (this.#newest === undefined) this.#oldest = deadline
    else this.#newest.next = deadline
    this.#newest = deadline
    if (this.#timer === undefined) this.#arm()
  }

  remove(deadline: Deadline): void {
    const { previous, next } = deadline
    if (previous === undefined) {
      if (this.#oldest !== deadline) return
      this.#oldest = next
    } else previous.next = next
    if (next === undefined) this.#newest = previous
    else next.previous = previous
    deadline.previous = undefined
    deadline.next = undefined
    if (this.#armedFor === deadline) this.#armedFor = undefined
  }

  #arm(): void {
    const oldest = this.#oldest
    if (oldest === undefined) return
    this.#armedFor = oldest
    this.#timer = setTimeout(this.#fire, Math.max(0, oldest.at - performance.now()))
    unrefTimer(this.#timer)
  }

  readonly #fire = (): void => {
    this.#timer = undefined
    const now = performance.now()
    for (let oldest = this.#oldest; oldest !== undefined && (oldest === this.#armedFor || oldest.at <= now); oldest = this.#oldest) {
      this.remove(oldest)
      oldest.expire()
    }
    this.#arm()
  }
}

/**
 * Marks the loan of the connection that emitted 'error' as dropped. pg-pool listens for
 * errors of idle clients only: a connection that drops while on loan would otherwise
 * emit an unhandled 'error' and crash the host. One listener per connection, added at
 * its first loan and left on it (it does nothing while no loan holds the connection):
 * no listener added and removed per statement.
 */
function onLoanedError(this: PgPoolClientLike): void {
  const loan = loans.get(this)
  if (loan !== undefined) loan.dropped = true
}

/**
 * Puts {@link onLoanedError} on a connection once. pg-pool takes its own listener off a
 * new connection as it hands it out, and the caller gets it a microtask later: a FATAL
 * in the same socket read as the connection's ReadyForQuery (a server shut down just as
 * the connection was made, seen under `pg_ctl restart`) was emitted with no listener at
 * all and crashed the host. Put on at pg-pool's 'connect', before that, and at the
 * first loan of a pool that has no such event.
 */
function guardErrors(connection: PgPoolClientLike): void {
  if (listening.has(connection)) return
  listening.add(connection)
  connection.on?.('error', onLoanedError)
}

/** The loan holding each connection; connections that carry {@link onLoanedError}. */
const loans = new WeakMap<PgPoolClientLike, { dropped: boolean }>()
const listening = new WeakSet<PgPoolClientLike>()

/** One borrowing of a connection by {@link onConnection}: settles the caller's promise once. */
class Loan<T> implements Deadline {
  at = 0
  previous: Deadline | undefined = undefined
  next: Deadline | undefined = undefined
  client: PgPoolClientLike | undefined = undefined
  settled = false
  /** The connection emitted 'error' while on this loan. */
  dropped = false

  constructor(
    private readonly resolve: (value: T) => void,
    private readonly reject: (error: unknown) => void,
    private readonly deadlines: StatementDeadlines | undefined,
    private readonly destroyAfter: (error: unknown) => boolean,
  ) {}

  expire(): void {
    this.settled = true
    this.giveBack(true)
    this.reject(new StatementDeadlineError(this.deadlines?.ms))
  }

  start(connection: PgPoolClientLike, work: (client: PgPoolClientLike) => Promise<T>): void {
    if (this.settled) return connection.release()
    this.client = connection
    loans.set(connection, this)
    guardErrors(connection)
    work(connection).then(
      (value) => this.succeeded(value),
      (error: unknown) => this.failed(error, this.destroyAfter(error)),
    )
  }

  succeeded(value: T): void {
    if (this.settled) return
    this.settled = true
    this.deadlines?.remove(this)
    this.giveBack(false)
    this.resolve(value)
  }

  /** The statement failed (`destroy`: its connection is unusable), or the checkout did (no client). */
  failed(error: unknown, destroy: boolean): void {
    if (this.settled) return
    this.settled = true
    this.deadlines?.remove(this)
    this.giveBack(destroy)
    this.reject(error)
  }

  giveBack(destroy: boolean): void {
    const client = this.client
    if (client === undefined) return
    if (loans.get(client) === this) loans.delete(client)
    client.release(destroy || this.dropped ? true : undefined)
  }
}

/**
 * Borrows a connection, runs `work` on it and hands it back, unless `work` has not
 * settled within the deadline of `deadlines` (or the connection failed): then the
 * connection is destroyed, never handed out again (a connection cut without a FIN or
 * RST would otherwise hang every statement given to it), and the call fails. A checkout
 * that passes the deadline fails too; the connection, should it come later, goes back
 * to the pool. No deadline when `deadlines` is `undefined` (a migration).
 */
function onConnection<T>(
  pool: PgPoolLike,
  work: (client: PgPoolClientLike) => Promise<T>,
  deadlines: StatementDeadlines | undefined,
  destroyAfter: (error: unknown) => boolean = endsSession,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const loan = new Loan(resolve, reject, deadlines, destroyAfter)
    deadlines?.add(loan)
    pool.connect().then(
      (connection) => loan.start(connection, work),
      (error: unknown) => loan.failed(error, false),
    )
  })
}

/**
 * A `pg` Pool: each statement borrows a connection for itself (the verification lookup
 * and an edit with its audit record as named prepared statements), a transaction borrows
 * one for its statements (its `prepared` ones, the audit appends, named: see
 * {@link pgPreparedTransaction}), and
 * listening uses a dedicated connection outside the pool (opened like the pool's own,
 * or with `listenConnectionString`, with TCP keepalive, reconnected when it drops or
 * fails its proof). Every statement and every transaction but a migration's has
 * {@link STATEMENT_DEADLINE_MS}, an operator's whole-table read
 * {@link OPERATOR_READ_DEADLINE_MS} (`operatorReadMs`: shorter in tests only): past its
 * deadline, a statement's connection is destroyed.
 */
export function pgPoolDatabase(
  pool: PgPoolLike,
  { operatorReadMs = OPERATOR_READ_DEADLINE_MS }: { readonly operatorReadMs?: number } = {},
): Database {
  pool.on?.('connect', guardErrors)
  const deadlines = new StatementDeadlines(STATEMENT_DEADLINE_MS)
  // A second queue: a queue's deadlines must all have the same length (see StatementDeadlines).
  const operatorReadDeadlines = new StatementDeadlines(operatorReadMs)
  const bounded: PgConnectionLike = {
    query: (text, values) => onConnection(pool, (client) => client.query(text, values), deadlines),
  }
  const queryable = pgQueryable(bounded)
  // Named statements are per connection: the config object is passed through as it is.
  const named: PgConnectionLike = {
    query: (config: unknown, values?: unknown[]) =>
      onConnection(pool, (client) => (client.query as (config: unknown, values?: unknown[]) => Promise<PgResultLike>)(config, values), deadlines),
  }
  const unbounded = pgQueryable({ query: (text, values) => onConnection(pool, (client) => client.query(text, values), undefined) })
  const operatorRead = pgQueryable({ query: (text, values) => onConnection(pool, (client) => client.query(text, values), operatorReadDeadlines) })
  // Whether named statements work on this pool's connections (not through a transaction pooler).
  const namedStatements: NamedStatements = { usable: true }
  return {
    query: queryable.query,
    queryUnbounded: unbounded.query,
    queryOperatorRead: operatorRead.query,

    lookup: pgPreparedLookup(named, namedStatements),
    prepared: pgPrepared(named, namedStatements),

    transaction(fn, options) {
      let broken = false
      return onConnection(
        pool,
        async (client) => {
          // Run once more on the same connection, unnamed, if a named statement is refused (within the same deadline).
          const outcome = await pgPreparedTransaction(client, namedStatements, fn)
          if ('value' in outcome) return outcome.value
          broken = outcome.broken
          throw outcome.error
        },
        options?.unbounded === true ? undefined : deadlines,
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
        // The pool's own (postgresStore requires one), or the listener's where nothing checked it.
        connectionTimeoutMillis:
          typeof own.connectionTimeoutMillis === 'number' && own.connectionTimeoutMillis > 0
            ? own.connectionTimeoutMillis
            : LISTEN_CONNECT_TIMEOUT_MS,
      }
      return pgChannelListener(() => new Client(settings), channel, onPayload, onGap)
    },
  }
}
