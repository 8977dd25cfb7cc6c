import { describe, expect, it } from 'vitest'
import type { PgPoolClientLike, PgPoolLike } from '../../src/stores/postgres/database-interface'
import { pgPoolDatabase } from '../../src/stores/postgres/pg-pool-database'

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
  return { database: pgPoolDatabase(pool), releases }
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
