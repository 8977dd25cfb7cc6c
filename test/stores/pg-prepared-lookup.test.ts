import { afterEach, describe, expect, it, vi } from 'vitest'
import type { PgConnectionLike } from '../../src/stores/postgres/database-interface'
import { FUNCTION_RETRY_MS, pgPreparedLookup } from '../../src/stores/postgres/pg-prepared-lookup'

/**
 * Which way `pgPreparedLookup` sends the lookup, on a connection that answers as a
 * transaction pooler does (named statements lost) and whose schema's function is
 * missing or may not be run. The real server's side of the same paths:
 * test/stores/pgbouncer.test.ts.
 */
const TEXT = 'SELECT * FROM s.account_passcodes p WHERE p.hash = $1::text'
const CALL = 'SELECT s.find_credential_by_hash($1::text) AS json'
const ROW = { kind: 'account', id: 'p_1', expires_at: 1 }

const serverError = (code: string) => Object.assign(new Error(`server error ${code}`), { code })

/** A connection that loses named statements, answers `TEXT` with `ROW`, and `CALL` as `call` says. */
function fakeConnection(call: () => Promise<{ rows: unknown[] }>) {
  const sent: string[] = []
  const connection: PgConnectionLike = {
    query: (config: unknown) => {
      if (typeof config !== 'string') return (sent.push('named'), Promise.reject(serverError('26000')))
      sent.push(config === CALL ? 'call' : 'statement')
      // The statement unnamed is the lookup with its row as JSON, as the named one.
      return config === CALL ? call() : Promise.resolve({ rows: [{ json: JSON.stringify(ROW) }] })
    },
  }
  return { connection, sent }
}

describe('pgPreparedLookup where named statements are lost (a transaction pooler)', () => {
  afterEach(() => void vi.useRealTimers())

  it('calls the schema function from then on, and reads its JSON row (or none)', async () => {
    let answer: unknown = JSON.stringify(ROW)
    const { connection, sent } = fakeConnection(() => Promise.resolve({ rows: [{ json: answer }] }))
    const lookup = pgPreparedLookup(connection)
    expect(await lookup(TEXT, 'k1', CALL)).toEqual([ROW])
    expect(await lookup(TEXT, 'k2', CALL)).toEqual([ROW])
    answer = null
    expect(await lookup(TEXT, 'k3', CALL)).toEqual([])
    expect(sent).toEqual(['named', 'call', 'call', 'call'])
  })

  it.each([
    ['42883', 'missing (schema not migrated)'],
    ['42501', 'not to be run by this role'],
  ])('answers through the statement while the function is %s (%s), and tries it again after FUNCTION_RETRY_MS', async (code) => {
    let failing = true
    const { connection, sent } = fakeConnection(() =>
      failing ? Promise.reject(serverError(code)) : Promise.resolve({ rows: [{ json: JSON.stringify(ROW) }] }),
    )
    const lookup = pgPreparedLookup(connection)
    const start = Date.now()
    vi.useFakeTimers({ toFake: ['Date'], now: start })
    expect(await lookup(TEXT, 'k1', CALL)).toEqual([ROW])
    expect(await lookup(TEXT, 'k2', CALL)).toEqual([ROW])
    expect(sent).toEqual(['named', 'call', 'statement', 'statement'])

    failing = false
    vi.setSystemTime(start + FUNCTION_RETRY_MS - 1)
    await lookup(TEXT, 'k3', CALL)
    expect(sent.at(-1)).toBe('statement')
    vi.setSystemTime(start + FUNCTION_RETRY_MS)
    expect(await lookup(TEXT, 'k4', CALL)).toEqual([ROW])
    expect(await lookup(TEXT, 'k5', CALL)).toEqual([ROW])
    expect(sent.slice(-2)).toEqual(['call', 'call'])
  })

  it('rejects with any other error of the call (it is the lookup failing, not the function missing)', async () => {
    const { connection, sent } = fakeConnection(() => Promise.reject(serverError('57014')))
    const lookup = pgPreparedLookup(connection)
    await expect(lookup(TEXT, 'k1', CALL)).rejects.toMatchObject({ code: '57014' })
    expect(sent).toEqual(['named', 'call'])
  })

  it('without a call (a caller that has no function) sends the statement unnamed, as before', async () => {
    const { connection, sent } = fakeConnection(() => Promise.reject(new Error('not used')))
    const lookup = pgPreparedLookup(connection)
    expect(await lookup(TEXT, 'k1')).toEqual([ROW])
    expect(sent).toEqual(['named', 'statement'])
  })
})
