import { EventEmitter } from 'node:events'
import pg from 'pg'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { ConfigurationError } from '../../src/index'
import { toDatabase } from '../../src/stores/postgres/database'
import { STATEMENT_DEADLINE_MS, type PgPoolClientLike, type PgPoolLike, type Queryable } from '../../src/stores/postgres/database-interface'
import { postgresPartners, postgresRateLimitStore, postgresStore } from '../../src/stores/postgres/index'
import { pgPoolDatabase, RECOMMENDED_CONNECTION_TIMEOUT_MS } from '../../src/stores/postgres/pg-pool-database'

/**
 * Which borrowed connections go back to the pool and which are destroyed. A statement
 * that fails with a server error on a healthy session (a constraint, a syntax error)
 * leaves the connection fine; one whose error ends the session (a FATAL from
 * `pg_terminate_backend` or a server shutdown, a connection exception) must never be
 * handed out again, even when the socket's close has not been seen yet: the next
 * request would get a dead connection and answer 503.
 */
function fakePool(failWith: unknown) {
  const releases: (boolean | Error | undefined)[] = []
  const client: PgPoolClientLike = {
    query: () => Promise.reject(failWith),
    release: (destroy) => void releases.push(destroy),
    on: () => undefined,
    removeListener: () => undefined,
  }
  const pool: PgPoolLike = {
    query: () => Promise.reject(new Error('not used')),
    connect: () => Promise.resolve(client),
    totalCount: 1,
  }
  return { database: pgPoolDatabase(pool), releases, pool }
}

const serverError = (code: string, severity: string) => Object.assign(new Error(`${severity} ${code}`), { code, severity })

describe('pg pool connections after a failed statement', () => {
  it.each([
    ['terminated by an administrator (57P01, FATAL)', serverError('57P01', 'FATAL')],
    ['the server shutting down (57P02, FATAL)', serverError('57P02', 'FATAL')],
    ['a connection exception (08006)', serverError('08006', 'ERROR')],
    ['any FATAL error', serverError('28000', 'FATAL')],
    ['no SQLSTATE at all (the socket ended)', new Error('Connection terminated unexpectedly')],
  ])('destroys the connection when the session ended: %s', async (_, error) => {
    const { database, releases } = fakePool(error)
    await expect(database.query('SELECT 1')).rejects.toBe(error)
    expect(releases).toEqual([true])
  })

  it.each([
    ['a unique violation (23505)', serverError('23505', 'ERROR')],
    ['a syntax error (42601)', serverError('42601', 'ERROR')],
    ['a statement timeout (57014)', serverError('57014', 'ERROR')],
  ])('gives the connection back when the session is fine: %s', async (_, error) => {
    const { database, releases } = fakePool(error)
    await expect(database.query('SELECT 1')).rejects.toBe(error)
    expect(releases).toEqual([undefined])
  })
})

describe('a new pg pool connection', () => {
  it('survives a FATAL read with its ReadyForQuery, before the caller got it (pg_ctl restart as it connected)', async () => {
    // pg-pool emits 'connect', takes its own error listener off and resolves the
    // caller's promise; the FATAL in the same socket read is emitted before that
    // promise's callbacks run. Unheard, it was an uncaught exception: the host crashed.
    const fatal = serverError('57P01', 'FATAL')
    const releases: (boolean | Error | undefined)[] = []
    const client = Object.assign(new EventEmitter(), {
      query: () => Promise.reject(new Error('Connection terminated unexpectedly')),
      release: (destroy?: boolean | Error) => void releases.push(destroy),
    })
    const events = new EventEmitter()
    const pool: PgPoolLike = {
      query: () => Promise.reject(new Error('not used')),
      connect() {
        events.emit('connect', client)
        queueMicrotask(() => client.emit('error', fatal))
        return Promise.resolve(client)
      },
      totalCount: 1,
      on: (event, listener) => events.on(event, listener),
    }
    const database = pgPoolDatabase(pool)
    await expect(database.query('SELECT 1')).rejects.toThrow('Connection terminated unexpectedly')
    expect(releases).toEqual([true])
  })
})

describe('pg pool connections after a failed transaction', () => {
  function fakeTransactionPool(failWith: unknown) {
    const releases: (boolean | Error | undefined)[] = []
    const client: PgPoolClientLike = {
      query: (text) => (text === 'SELECT fail' ? Promise.reject(failWith) : Promise.resolve({ rows: [] })),
      release: (destroy) => void releases.push(destroy),
    }
    const pool: PgPoolLike = { query: () => Promise.reject(new Error('not used')), connect: () => Promise.resolve(client), totalCount: 1 }
    return { database: pgPoolDatabase(pool), releases }
  }

  it('gives the connection back after a rollback, even for an error the host threw inside', async () => {
    const thrown = new Error('refused by the service')
    const { database, releases } = fakeTransactionPool(undefined)
    await expect(
      database.transaction(async () => {
        throw thrown
      }),
    ).rejects.toBe(thrown)
    expect(releases).toEqual([undefined])
  })

  it('destroys the connection when a statement inside ended the session, though ROLLBACK seemed to pass', async () => {
    const fatal = serverError('57P01', 'FATAL')
    const { database, releases } = fakeTransactionPool(fatal)
    await expect(database.transaction((tx) => tx.query('SELECT fail'))).rejects.toBe(fatal)
    expect(releases).toEqual([true])
  })
})

/**
 * A named statement in a transaction (the audit append, `tx.prepared`): through a pooler
 * in transaction mode the server may refuse it (26000: this server connection does not
 * have it; 42P05: it has it already), which aborts the transaction. The transaction is
 * rolled back and run once more, unnamed, and named statements are given up for the
 * pool; any other error fails the call as it is, run once.
 */
describe('pg pool transactions whose named statement is refused', () => {
  function namedRefusingPool(refuseWith: unknown) {
    const sent: string[] = []
    const releases: (boolean | Error | undefined)[] = []
    const client: PgPoolClientLike = {
      query: (config: unknown) => {
        if (typeof config === 'string') {
          sent.push(config)
          return Promise.resolve({ rows: [{ sent: config }] })
        }
        sent.push(`named: ${(config as { text: string }).text}`)
        return Promise.reject(refuseWith)
      },
      release: (destroy) => void releases.push(destroy),
    }
    const pool: PgPoolLike = { query: () => Promise.reject(new Error('not used')), connect: () => Promise.resolve(client), totalCount: 1 }
    return { database: pgPoolDatabase(pool), sent, releases }
  }
  const write = (runs: { count: number }) => async (tx: Queryable) => {
    runs.count++
    await tx.query('UPDATE change')
    const [row] = await tx.prepared!('INSERT record', [1])
    return row
  }

  it.each([
    ['26000 (the server connection does not have it)', '26000'],
    ['42P05 (the server connection has it already)', '42P05'],
  ])('%s: rolled back, run once more unnamed, and named statements given up', async (_, code) => {
    const { database, sent, releases } = namedRefusingPool(serverError(code, 'ERROR'))
    const runs = { count: 0 }
    expect(await database.transaction(write(runs))).toEqual({ sent: 'INSERT record' })
    expect(runs.count).toBe(2)
    expect(sent).toEqual(['BEGIN', 'UPDATE change', 'named: INSERT record', 'ROLLBACK', 'BEGIN', 'UPDATE change', 'INSERT record', 'COMMIT'])
    expect(releases).toEqual([undefined])

    // Given up for the pool: the next transaction and a statement on its own go unnamed at once.
    sent.length = 0
    expect(await database.transaction(write(runs))).toEqual({ sent: 'INSERT record' })
    expect(await database.prepared!('SELECT alone', [])).toEqual([{ sent: 'SELECT alone' }])
    expect(runs.count).toBe(3)
    expect(sent).toEqual(['BEGIN', 'UPDATE change', 'INSERT record', 'COMMIT', 'SELECT alone'])
  })

  it.each([
    ['a unique violation (23505)', serverError('23505', 'ERROR')],
    ['a statement timeout (57014)', serverError('57014', 'ERROR')],
    ['an error without SQLSTATE', new Error('refused by the host')],
  ])('any other error of the named statement is not run again: %s', async (_, error) => {
    const { database, sent } = namedRefusingPool(error)
    const runs = { count: 0 }
    await expect(database.transaction(write(runs))).rejects.toBe(error)
    expect(runs.count).toBe(1)
    expect(sent).toEqual(['BEGIN', 'UPDATE change', 'named: INSERT record', 'ROLLBACK'])
  })

  it("a 26000 from a statement that is not named (the host's own) is not run again", async () => {
    const { database, sent } = namedRefusingPool(serverError('26000', 'ERROR'))
    const refused = serverError('26000', 'ERROR')
    let runs = 0
    await expect(
      database.transaction(async (tx) => {
        runs++
        await tx.query('UPDATE change')
        throw refused
      }),
    ).rejects.toBe(refused)
    expect(runs).toBe(1)
    expect(sent).toEqual(['BEGIN', 'UPDATE change', 'ROLLBACK'])
  })
})

/**
 * The statement deadline (issue 32, item 8): a statement that never settles has its
 * connection destroyed at the deadline, each one at its own, however many are in flight
 * and whichever settled before; a connection that emits 'error' while on loan is destroyed
 * when its statement ends, and one that errs while idle in the pool does not mark a later loan.
 */
describe('pg pool connections past the statement deadline', () => {
  afterEach(() => {
    vi.useRealTimers()
  })

  function controlledPool() {
    const releases: { id: number; destroy: boolean | Error | undefined }[] = []
    const pending: { id: number; resolve: (value: { rows: [] }) => void }[] = []
    const clients: (PgPoolClientLike & EventEmitter)[] = []
    const pool: PgPoolLike = {
      query: () => Promise.reject(new Error('not used')),
      connect: () => {
        const id = clients.length
        const client = Object.assign(new EventEmitter(), {
          query: () => new Promise<{ rows: [] }>((resolve) => pending.push({ id, resolve })),
          release: (destroy?: boolean | Error) => void releases.push({ id, destroy }),
        })
        clients.push(client)
        return Promise.resolve(client)
      },
      totalCount: 1,
    }
    return { database: pgPoolDatabase(pool), releases, pending, clients }
  }

  it('destroys each hung connection at its own deadline, and gives back the ones that answered in time', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance', 'Date'] })
    const { database, releases, pending } = controlledPool()
    const outcomes: string[] = []
    const track = (id: number, promise: Promise<unknown>) =>
      promise.then(
        () => outcomes.push(`${id} ok`),
        (error: unknown) => outcomes.push(`${id} ${(error as Error).name}`),
      )
    const first = track(0, database.query('SELECT 0'))
    await vi.advanceTimersByTimeAsync(1_000)
    const second = track(1, database.query('SELECT 1'))
    await vi.advanceTimersByTimeAsync(1_000)
    const third = track(2, database.query('SELECT 2'))
    await vi.advanceTimersByTimeAsync(0)
    expect(pending.map(({ id }) => id)).toEqual([0, 1, 2])
    // The oldest answers in time: the timer armed for it must still end the others at their own deadlines.
    pending[0]!.resolve({ rows: [] })
    await first
    await vi.advanceTimersByTimeAsync(STATEMENT_DEADLINE_MS - 1_000 - 1)
    expect(outcomes).toEqual(['0 ok'])
    await vi.advanceTimersByTimeAsync(1)
    await second
    expect(outcomes).toEqual(['0 ok', '1 StatementDeadlineError'])
    await vi.advanceTimersByTimeAsync(1_000 - 1)
    expect(outcomes).toHaveLength(2)
    await vi.advanceTimersByTimeAsync(1)
    await third
    expect(outcomes).toEqual(['0 ok', '1 StatementDeadlineError', '2 StatementDeadlineError'])
    expect(releases).toEqual([
      { id: 0, destroy: undefined },
      { id: 1, destroy: true },
      { id: 2, destroy: true },
    ])
    // A late answer on a destroyed connection changes nothing.
    pending[1]!.resolve({ rows: [] })
    await vi.advanceTimersByTimeAsync(0)
    expect(releases).toHaveLength(3)
  })

  it("destroys a connection that emitted 'error' on loan, not one that erred while idle", async () => {
    const { database, releases, pending, clients } = controlledPool()
    const onLoan = database.query('SELECT 1')
    await vi.waitFor(() => expect(pending).toHaveLength(1))
    clients[0]!.emit('error', new Error('Connection terminated unexpectedly'))
    pending[0]!.resolve({ rows: [] })
    await onLoan
    expect(releases).toEqual([{ id: 0, destroy: true }])
    // The listener stays on the connection; while no loan holds it, an 'error' marks nothing.
    expect(clients[0]!.listenerCount('error')).toBe(1)
    clients[0]!.emit('error', new Error('idle'))
  })
})

/**
 * Issue 48: a `pg` Pool whose new connections may wait for ever (pg's default
 * `connectionTimeoutMillis`, 0) is refused by everything that serves requests, with the
 * setting to add; a migration takes it. `new pg.Pool` opens no connection until used.
 */
describe('a pg Pool without a connect timeout', () => {
  const poolWith = (settings: pg.PoolConfig) => new pg.Pool({ connectionString: 'postgres://user@127.0.0.1:1/none', max: 4, ...settings })
  const refusal = (pool: unknown): unknown => {
    try {
      postgresStore(pool as pg.Pool)
      return undefined
    } catch (error) {
      return error
    }
  }

  it.each([
    ["pg's default (unset)", {}],
    ['0', { connectionTimeoutMillis: 0 }],
  ])('is refused by postgresStore, postgresPartners and postgresRateLimitStore: %s', (_, settings) => {
    const pool = poolWith(settings)
    for (const make of [() => postgresStore(pool), () => postgresPartners(pool), () => postgresRateLimitStore(pool)]) {
      expect(make).toThrow(ConfigurationError)
    }
    const error = refusal(pool) as ConfigurationError
    expect(error.code).toBe('ERR_CONFIGURATION')
    expect(error.message).toContain("The pg Pool has no connectionTimeoutMillis (pg's default, 0, waits for ever for a new connection)")
    expect(error.message).toContain(`connectionTimeoutMillis: ${RECOMMENDED_CONNECTION_TIMEOUT_MS}`)
    // The connection string is the host's: it may carry a password.
    expect(error.message).not.toContain('127.0.0.1')
  })

  it.each([
    ['negative', -1, 'it is -1'],
    ['not a number', Number.NaN, 'it is NaN'],
    ['infinite', Number.POSITIVE_INFINITY, 'it is Infinity'],
    ['a string', '2000', 'it is a string'],
  ])('is refused when the value is not a positive number of milliseconds: %s', (_, value, said) => {
    const error = refusal(poolWith({ connectionTimeoutMillis: value as number })) as ConfigurationError
    expect(error).toBeInstanceOf(ConfigurationError)
    expect(error.message).toContain(`The pg Pool's connectionTimeoutMillis must be a positive number of milliseconds (${said})`)
    expect(error.message).toContain(`connectionTimeoutMillis: ${RECOMMENDED_CONNECTION_TIMEOUT_MS}`)
  })

  it('takes one with a connect timeout, a migration takes any, and a pool-like object whose settings cannot be read is not checked', () => {
    expect(refusal(poolWith({ connectionTimeoutMillis: 1 }))).toBeUndefined()
    expect(refusal(poolWith({ connectionTimeoutMillis: RECOMMENDED_CONNECTION_TIMEOUT_MS }))).toBeUndefined()
    // What migrate() wraps the pool with; a store made afterwards is still refused (the wrapper is shared).
    const readme = poolWith({})
    expect(toDatabase(readme, { serves: false })).toBeDefined()
    expect(refusal(readme)).toBeInstanceOf(ConfigurationError)
    expect(refusal(fakePool(undefined).pool)).toBeUndefined()
  })
})
