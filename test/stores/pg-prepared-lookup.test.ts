import { afterEach, describe, expect, it, vi } from 'vitest'
import { STATEMENT_DEADLINE_MS, type PgConnectionLike, type PgPoolClientLike, type PgPoolLike } from '../../src/stores/postgres/database-interface'
import { pgPoolDatabase } from '../../src/stores/postgres/pg-pool-database'
import { FUNCTION_RETRY_MS, pgPreparedLookup } from '../../src/stores/postgres/pg-prepared-lookup'
import { SHARED_CALL_AFTER, SHARED_CALL_MAX } from '../../src/stores/postgres/shared-calls'

/**
 * Which way `pgPreparedLookup` sends the lookup, on a connection that answers as a
 * transaction pooler does (named statements lost) and whose schema's function is
 * missing or may not be run. The real server's side of the same paths:
 * test/stores/pgbouncer.test.ts.
 */
const TEXT = 'SELECT * FROM s.account_passcodes p WHERE p.hash = $1::text'
const CALL = 'SELECT s.find_credential_by_hash($1::text) AS json'
const MANY = 'SELECT t.n, s.find_credential_by_hash(t.k) AS json FROM unnest($1::text[]) WITH ORDINALITY AS t(k, n)'
/** The lookup of several keys (one value under each pepper) as one statement: a row per key that matched, `n` its position. */
const TEXT_OF_KEYS =
  'SELECT t.n, m.* FROM unnest($1::text[]) WITH ORDINALITY AS t(k, n) CROSS JOIN LATERAL (SELECT * FROM s.account_passcodes p WHERE p.hash = t.k) AS m'
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

/**
 * Fills the statements in flight with lone lookups, has three more wait and share the
 * next statement, and fails that shared statement with a driver error (`shared` checks
 * what it was first): each of the three gets its own copy, of the same class and code.
 */
async function expectSharedFailureCopied(
  lookup: ReturnType<typeof pgPreparedLookup>,
  sent: readonly { answer(error?: Error): void }[],
  shared: (statement: (typeof sent)[number] & Record<string, unknown>) => void = () => {},
) {
  const flush = () => new Promise((resolve) => setImmediate(resolve))
  void Promise.allSettled(Array.from({ length: SHARED_CALL_AFTER }, (_, i) => lookup(TEXT, `alone${i}`, CALL, MANY)))
  const waiting = ['d', 'e', 'f'].map((key) =>
    lookup(TEXT, key, CALL, MANY).then(
      () => 'resolved',
      (error: unknown) => error,
    ),
  )
  await flush()
  sent[0]!.answer()
  await flush()
  shared(sent.at(-1)!)
  class DriverError extends Error {}
  sent.at(-1)!.answer(Object.assign(new DriverError('canceling statement due to statement timeout'), { code: '57014' }))
  const errors = await Promise.all(waiting)
  for (const error of errors) {
    expect(error).toBeInstanceOf(DriverError)
    expect(error).toMatchObject({ code: '57014', message: 'canceling statement due to statement timeout' })
  }
  expect(new Set(errors).size).toBe(3)
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

/**
 * Concurrent lookups through the function share a statement (`callMany`) once
 * `SHARED_CALL_AFTER` of them are in flight; alone, each is its own call as before.
 */
/** A row of each key's credential, as the fakes below answer it ('none' has none). */
const rowOf = (key: string) => ({ ...ROW, id: `p_${key}` })
/** The rows of {@link TEXT_OF_KEYS} wrapped as the lookup sends it: one JSON column, `n` in it. */
const keysStatementRows = (keys: readonly string[]) =>
  keys.flatMap((key, i) => (key === 'none' ? [] : [{ json: JSON.stringify({ n: i + 1, ...rowOf(key) }) }]))
/** What a lookup of several keys answers: the row of each key that has one, with its position. */
const rowsOfKeys = (keys: readonly string[]) => keys.flatMap((key, i) => (key === 'none' ? [] : [{ n: i + 1, ...rowOf(key) }]))

describe('pgPreparedLookup sharing the function call between concurrent lookups', () => {
  const missing = new Set(['none'])

  /** A connection that loses named statements; every call or shared call waits until `answer` settles it. */
  function heldConnection() {
    const sent: { text: string; values: unknown[]; answer: (error?: Error) => void }[] = []
    const jsonOf = (key: string) => (missing.has(key) ? null : JSON.stringify(rowOf(key)))
    const connection: PgConnectionLike = {
      query: (config: unknown, values?: readonly unknown[]) => {
        if (typeof config !== 'string') return Promise.reject(serverError('26000'))
        return new Promise((resolve, reject) => {
          const answer = (error?: Error) => {
            if (error !== undefined) reject(error)
            else if (config === CALL) resolve({ rows: [{ json: jsonOf(String(values![0])) }] })
            else if (config === MANY) {
              const keys = values![0] as string[]
              // Rows in any order, `n` as `pg` gives a bigint (text): matched by position, not order.
              resolve({ rows: keys.map((key, i) => ({ n: String(i + 1), json: jsonOf(key) })).reverse() })
            } else if (config.includes(TEXT_OF_KEYS)) resolve({ rows: keysStatementRows(values![0] as string[]) })
            else resolve({ rows: [{ json: JSON.stringify(ROW) }] })
          }
          const kind = config === CALL ? 'call' : config === MANY ? 'many' : config.includes(TEXT_OF_KEYS) ? 'keys statement' : 'statement'
          sent.push({ text: kind, values: [...(values ?? [])], answer })
        })
      },
    }
    return { connection, sent }
  }
  const flush = () => new Promise((resolve) => setImmediate(resolve))
  /** Gives named statements up (the first lookup), so that every later one takes the function path. */
  async function overPooler() {
    const held = heldConnection()
    const lookup = pgPreparedLookup(held.connection)
    const first = lookup(TEXT, 'a', CALL, MANY)
    await flush()
    held.sent[0]!.answer()
    expect(await first).toEqual([rowOf('a')])
    held.sent.length = 0
    return { ...held, lookup }
  }

  it('one at a time, sends each lookup as its own call, never the shared statement', async () => {
    const { lookup, sent } = await overPooler()
    for (const key of ['b', 'none', 'c']) {
      const result = lookup(TEXT, key, CALL, MANY)
      await flush()
      sent.at(-1)!.answer()
      expect(await result).toEqual(key === 'none' ? [] : [rowOf(key)])
    }
    expect(sent.map(({ text, values }) => [text, values])).toEqual([
      ['call', ['b']],
      ['call', ['none']],
      ['call', ['c']],
    ])
  })

  it(`with ${SHARED_CALL_AFTER} in flight, the next lookups wait and go as one statement, each getting its own row or none`, async () => {
    const { lookup, sent } = await overPooler()
    const alone = Array.from({ length: SHARED_CALL_AFTER }, (_, i) => lookup(TEXT, `alone${i}`, CALL, MANY))
    const keys = ['d', 'e', 'd', 'none', 'f']
    const shared = keys.map((key) => lookup(TEXT, key, CALL, MANY))
    await flush()
    expect(sent.map(({ text }) => text)).toEqual(Array.from({ length: SHARED_CALL_AFTER }, () => 'call'))
    sent[0]!.answer()
    await flush()
    expect(sent.map(({ text }) => text)).toEqual([...Array.from({ length: SHARED_CALL_AFTER }, () => 'call'), 'many'])
    expect(sent.at(-1)!.values).toEqual([keys])
    sent.at(-1)!.answer()
    const rows = await Promise.all(shared)
    expect(rows).toEqual(keys.map((key) => (key === 'none' ? [] : [rowOf(key)])))
    // Duplicates get a row each, not the same object.
    expect(rows[0]![0]).not.toBe(rows[2]![0])
    for (const { answer } of sent.slice(1, SHARED_CALL_AFTER)) answer()
    expect(await Promise.all(alone)).toEqual(Array.from({ length: SHARED_CALL_AFTER }, (_, i) => [rowOf(`alone${i}`)]))
    // Back to one at a time: a lone call again.
    const later = lookup(TEXT, 'g', CALL, MANY)
    await flush()
    expect(sent.at(-1)!.text).toBe('call')
    sent.at(-1)!.answer()
    expect(await later).toEqual([rowOf('g')])
  })

  it('sends a lone waiting lookup as its own call, not the array form', async () => {
    const { lookup, sent } = await overPooler()
    void Promise.allSettled(Array.from({ length: SHARED_CALL_AFTER }, (_, i) => lookup(TEXT, `alone${i}`, CALL, MANY)))
    const waiting = lookup(TEXT, 'd', CALL, MANY)
    await flush()
    sent[0]!.answer()
    await flush()
    expect(sent.map(({ text }) => text)).toEqual([...Array.from({ length: SHARED_CALL_AFTER }, () => 'call'), 'call'])
    expect(sent.at(-1)!.values).toEqual(['d'])
    sent.at(-1)!.answer()
    expect(await waiting).toEqual([rowOf('d')])
  })

  it(`shares at most ${SHARED_CALL_MAX} lookups per statement`, async () => {
    const { lookup, sent } = await overPooler()
    void Promise.allSettled(Array.from({ length: SHARED_CALL_AFTER }, (_, i) => lookup(TEXT, `alone${i}`, CALL, MANY)))
    const keys = Array.from({ length: SHARED_CALL_MAX + 6 }, (_, i) => `k${i}`)
    const shared = keys.map((key) => lookup(TEXT, key, CALL, MANY))
    await flush()
    sent[0]!.answer()
    await flush()
    sent[1]!.answer()
    await flush()
    const many = sent.filter(({ text }) => text === 'many')
    expect(many.map(({ values }) => (values[0] as string[]).length)).toEqual([SHARED_CALL_MAX, 6])
    for (const { answer } of many) answer()
    expect(await Promise.all(shared)).toEqual(keys.map((key) => [rowOf(key)]))
  })

  it("sends one value's keys (several peppers) as one statement: the array form alone, or the statement of keys while the function is missing", async () => {
    const { lookup, sent } = await overPooler()
    const keys = ['k1', 'none', 'k3']
    const alone = lookup(TEXT_OF_KEYS, keys, CALL, MANY)
    await flush()
    expect(sent.map(({ text, values }) => [text, values])).toEqual([['many', [keys]]])
    sent[0]!.answer()
    expect(await alone).toEqual(rowsOfKeys(keys))
    // Shared with waiting lookups, then the function found missing: the keys still go together.
    void Promise.allSettled(Array.from({ length: SHARED_CALL_AFTER }, (_, i) => lookup(TEXT, `alone${i}`, CALL, MANY)))
    const waiting = [lookup(TEXT, 'd', CALL, MANY), lookup(TEXT_OF_KEYS, keys, CALL, MANY)]
    await flush()
    sent[1]!.answer()
    await flush()
    expect(sent.at(-1)).toMatchObject({ text: 'many', values: [['d', ...keys]] })
    sent.at(-1)!.answer(serverError('42883'))
    await flush()
    expect(sent.slice(-2).map(({ text, values }) => [text, values])).toEqual([
      ['statement', ['d']],
      ['keys statement', [keys]],
    ])
    for (const { answer } of sent.slice(-2)) answer()
    expect(await Promise.all(waiting)).toEqual([[ROW], rowsOfKeys(keys)])
  })

  it('rejects every lookup of a failed shared statement, each with its own error of the same class and code', async () => {
    const { lookup, sent } = await overPooler()
    await expectSharedFailureCopied(lookup, sent)
  })

  it.each([
    ['42883', 'missing'],
    ['42501', 'forbidden'],
  ])('answers each lookup of a shared statement through the lookup statement when the function is %s (%s)', async (code) => {
    const { lookup, sent } = await overPooler()
    void Promise.allSettled(Array.from({ length: SHARED_CALL_AFTER }, (_, i) => lookup(TEXT, `alone${i}`, CALL, MANY)))
    const shared = ['d', 'e'].map((key) => lookup(TEXT, key, CALL, MANY))
    await flush()
    sent[0]!.answer()
    await flush()
    sent.at(-1)!.answer(serverError(code))
    await flush()
    expect(sent.slice(-2).map(({ text, values }) => [text, values])).toEqual([
      ['statement', ['d']],
      ['statement', ['e']],
    ])
    for (const { answer } of sent.slice(-2)) answer()
    expect(await Promise.all(shared)).toEqual([[ROW], [ROW]])
    // And the function is not tried again before FUNCTION_RETRY_MS.
    const next = lookup(TEXT, 'g', CALL, MANY)
    await flush()
    expect(sent.at(-1)!.text).toBe('statement')
    sent.at(-1)!.answer()
    expect(await next).toEqual([ROW])
  })
})

describe('a shared lookup statement on a pg Pool past the statement deadline', () => {
  afterEach(() => void vi.useRealTimers())

  // Through a pooler the server refuses named statements (26000), so the lookups go as the
  // function's calls, unnamed; on a direct connection the shared statement is named.
  it.each([
    { path: 'through a pooler: the function unnamed', named: false },
    { path: 'a direct connection: the shared statement named', named: true },
  ])('destroys the hung connection at its deadline and rejects every lookup in its shared statement ($path)', async ({ named }) => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance', 'Date'] })
    const releases: { text: string; destroy: boolean | Error | undefined }[] = []
    const pending: ((value: { rows: unknown[] }) => void)[] = []
    const pool: PgPoolLike = {
      query: () => Promise.reject(new Error('not used')),
      connect: () => {
        let text = ''
        const client: PgPoolClientLike = {
          query: (config: unknown) => {
            if (!named && typeof config !== 'string') return Promise.reject(serverError('26000'))
            text = typeof config === 'string' ? config : (config as { text: string }).text
            // The lone statements answer when told; the shared one hangs.
            return new Promise((resolve) => {
              if (text !== MANY) pending.push(resolve)
            })
          },
          release: (destroy) => void releases.push({ text, destroy }),
        }
        return Promise.resolve(client)
      },
      totalCount: 1,
    }
    const database = pgPoolDatabase(pool)
    const lookup = (key: string) => database.lookup!(TEXT, key, CALL, MANY)
    const alone = Array.from({ length: SHARED_CALL_AFTER }, (_, i) => lookup(`alone${i}`))
    const shared = ['d', 'e', 'f'].map((key) =>
      lookup(key).then(
        () => 'resolved',
        (error: unknown) => (error as Error).name,
      ),
    )
    await vi.advanceTimersByTimeAsync(0)
    for (const resolve of pending.splice(0)) resolve({ rows: [{ json: JSON.stringify(ROW) }] })
    expect(await Promise.all(alone)).toEqual(Array.from({ length: SHARED_CALL_AFTER }, () => [ROW]))
    await vi.advanceTimersByTimeAsync(STATEMENT_DEADLINE_MS - 1)
    expect(releases.filter(({ text }) => text === MANY)).toEqual([])
    await vi.advanceTimersByTimeAsync(1)
    expect(await Promise.all(shared)).toEqual(['StatementDeadlineError', 'StatementDeadlineError', 'StatementDeadlineError'])
    expect(releases.filter(({ text }) => text === MANY)).toEqual([{ text: MANY, destroy: true }])
  })
})

/**
 * On a direct connection (named statements work), concurrent lookups share statements
 * the same way: alone, the named lookup statement as before; shared, the function's
 * array form as a named statement; with the fallbacks of each.
 */
describe('pgPreparedLookup sharing named statements between concurrent lookups (a direct connection)', () => {
  const jsonOf = (key: string) => (key === 'none' ? null : JSON.stringify(rowOf(key)))
  interface Sent {
    kind: string
    name?: string
    values: unknown[]
    answer: (error?: Error) => void
  }

  /**
   * A server whose named statements work until `server.refuseNamed` (as after
   * `DEALLOCATE ALL` or behind a pooler), and which answers each statement when told.
   */
  function heldServer() {
    const server = { refuseNamed: false }
    const sent: Sent[] = []
    const wrappedAnswer = (key: string) => ({ rows: key === 'none' ? [] : [{ json: jsonOf(key) }] })
    const connection: PgConnectionLike = {
      query: (config: unknown, values?: readonly unknown[]) => {
        const isNamed = typeof config !== 'string'
        const query = isNamed ? (config as { name: string; text: string; values: unknown[] }) : undefined
        const text = query?.text ?? (config as string)
        const args = query?.values ?? [...(values ?? [])]
        const kind = `${isNamed ? 'named ' : ''}${text === CALL ? 'call' : text === MANY ? 'many' : text.includes(TEXT_OF_KEYS) ? 'keys statement' : 'statement'}`
        return new Promise((resolve, reject) => {
          const answer = (error?: Error) => {
            const failure = error ?? (isNamed && server.refuseNamed ? serverError('26000') : undefined)
            if (failure !== undefined) reject(failure)
            else if (text === CALL) resolve({ rows: [{ json: jsonOf(String(args[0])) }] })
            // Rows in any order, `n` as text: matched by position.
            else if (text === MANY) resolve({ rows: (args[0] as string[]).map((key, i) => ({ n: String(i + 1), json: jsonOf(key) })).reverse() })
            else if (text.includes(TEXT_OF_KEYS)) resolve({ rows: keysStatementRows(args[0] as string[]) })
            else resolve(wrappedAnswer(String(args[0])))
          }
          sent.push({ kind, ...(query === undefined ? {} : { name: query.name }), values: args, answer })
        })
      },
    }
    return { server, sent, lookup: pgPreparedLookup(connection) }
  }
  const flush = () => new Promise((resolve) => setImmediate(resolve))
  /** Answers every statement sent and not yet answered, until none is left. */
  async function answerAll(sent: Sent[]) {
    // The array's iterator also reaches the statements sent meanwhile.
    for (const statement of sent) {
      statement.answer()
      await flush()
    }
  }
  const wanted = (keys: readonly string[]) => keys.map((key) => (key === 'none' ? [] : [rowOf(key)]))
  /** One more lookup, alone: sent as `kind`, and answered with its row. */
  async function aloneAs(held: ReturnType<typeof heldServer>, kind: string) {
    const later = held.lookup(TEXT, 'g', CALL, MANY)
    await flush()
    expect(held.sent.at(-1)!.kind).toBe(kind)
    held.sent.at(-1)!.answer()
    expect(await later).toEqual([rowOf('g')])
  }

  afterEach(() => void vi.useRealTimers())

  it('one at a time, sends each lookup as the named lookup statement, never the shared one', async () => {
    const { sent, lookup } = heldServer()
    for (const key of ['b', 'none', 'c']) {
      const result = lookup(TEXT, key, CALL, MANY)
      await flush()
      sent.at(-1)!.answer()
      expect(await result).toEqual(wanted([key])[0])
    }
    expect(sent.map(({ kind, values }) => [kind, values])).toEqual([
      ['named statement', ['b']],
      ['named statement', ['none']],
      ['named statement', ['c']],
    ])
    expect(new Set(sent.map(({ name }) => name)).size).toBe(1)
  })

  it(`with ${SHARED_CALL_AFTER} in flight, the next lookups go as one named statement of the array form, each getting its own row or none`, async () => {
    const held = heldServer()
    const { sent, lookup } = held
    const alone = Array.from({ length: SHARED_CALL_AFTER }, (_, i) => lookup(TEXT, `alone${i}`, CALL, MANY))
    const keys = ['d', 'e', 'd', 'none', 'f']
    const shared = keys.map((key) => lookup(TEXT, key, CALL, MANY))
    await flush()
    expect(sent.map(({ kind }) => kind)).toEqual(Array.from({ length: SHARED_CALL_AFTER }, () => 'named statement'))
    sent[0]!.answer()
    await flush()
    expect(sent.at(-1)).toMatchObject({ kind: 'named many', values: [keys] })
    expect(sent.at(-1)!.name).toMatch(/^passcode_auth_[0-9a-f]{32}$/)
    expect(sent.at(-1)!.name).not.toBe(sent[0]!.name)
    sent.at(-1)!.answer()
    const rows = await Promise.all(shared)
    expect(rows).toEqual(wanted(keys))
    expect(rows[0]![0]).not.toBe(rows[2]![0])
    await answerAll(sent)
    expect(await Promise.all(alone)).toEqual(Array.from({ length: SHARED_CALL_AFTER }, (_, i) => [rowOf(`alone${i}`)]))
    expect(sent.map(({ kind }) => kind)).toEqual([...Array.from({ length: SHARED_CALL_AFTER }, () => 'named statement'), 'named many'])
    // Back to one at a time: the named lookup statement again.
    await aloneAs(held, 'named statement')
  })

  it('when the shared named statement is refused (26000: DEALLOCATE ALL, a pooler), gives named statements up and answers every lookup of it unnamed', async () => {
    const held = heldServer()
    const { server, sent, lookup } = held
    const alone = Array.from({ length: SHARED_CALL_AFTER }, (_, i) => lookup(TEXT, `alone${i}`, CALL, MANY))
    const keys = ['d', 'none', 'e']
    const shared = keys.map((key) => lookup(TEXT, key, CALL, MANY))
    await flush()
    sent[0]!.answer()
    await flush()
    expect(sent.at(-1)!.kind).toBe('named many')
    server.refuseNamed = true
    await answerAll(sent)
    expect(await Promise.all(shared)).toEqual(wanted(keys))
    expect(await Promise.all(alone)).toEqual(Array.from({ length: SHARED_CALL_AFTER }, (_, i) => [rowOf(`alone${i}`)]))
    // After the refusal, nothing named: the function's call (shared or not) from then on.
    const refusal = sent.findIndex(({ kind }) => kind === 'named many')
    expect(sent.slice(refusal + 1).filter(({ kind }) => kind.startsWith('named'))).toEqual([])
    expect(sent.slice(refusal + 1).map(({ kind }) => kind)).toContain('call')
    await aloneAs(held, 'call')
  })

  it('sends the lookups still waiting unnamed when named statements were given up meanwhile', async () => {
    const { server, sent, lookup } = heldServer()
    const alone = Array.from({ length: SHARED_CALL_AFTER }, (_, i) => lookup(TEXT, `alone${i}`, CALL, MANY))
    const keys = ['d', 'e']
    const shared = keys.map((key) => lookup(TEXT, key, CALL, MANY))
    await flush()
    server.refuseNamed = true
    // Another lookup (without the array form) refused: named statements given up while `d` and `e` wait.
    const other = lookup(TEXT, 'x', CALL)
    await flush()
    sent.at(-1)!.answer()
    await flush()
    sent[0]!.answer()
    await flush()
    expect(sent.map(({ kind }) => kind)).not.toContain('named many')
    await answerAll(sent)
    expect(await Promise.all(shared)).toEqual(wanted(keys))
    expect(await other).toEqual([rowOf('x')])
    expect(await Promise.all(alone)).toEqual(Array.from({ length: SHARED_CALL_AFTER }, (_, i) => [rowOf(`alone${i}`)]))
  })

  it.each([
    ['42883', 'missing'],
    ['42501', 'forbidden'],
  ])(
    'when the function is %s (%s), sends each lookup of the shared statement as the named lookup statement, and shares again after FUNCTION_RETRY_MS',
    async (code) => {
      const { sent, lookup } = heldServer()
      const start = Date.now()
      vi.useFakeTimers({ toFake: ['Date'], now: start })
      const burst = async (keys: readonly string[], failShared?: string) => {
        sent.length = 0
        const alone = Array.from({ length: SHARED_CALL_AFTER }, (_, i) => lookup(TEXT, `alone${i}`, CALL, MANY))
        const shared = keys.map((key) => lookup(TEXT, key, CALL, MANY))
        await flush()
        sent[0]!.answer()
        await flush()
        if (failShared !== undefined && sent.at(-1)!.kind === 'named many') sent.at(-1)!.answer(serverError(failShared))
        await answerAll(sent)
        expect(await Promise.all(shared)).toEqual(wanted(keys))
        expect(await Promise.all(alone)).toEqual(Array.from({ length: SHARED_CALL_AFTER }, (_, i) => [rowOf(`alone${i}`)]))
        return sent.map(({ kind }) => kind)
      }
      const keys = ['d', 'none', 'e']
      const named = (n: number) => Array.from({ length: n }, () => 'named statement')
      expect(await burst(keys, code)).toEqual([...named(SHARED_CALL_AFTER), 'named many', ...named(keys.length)])
      // Not tried again before FUNCTION_RETRY_MS: each lookup alone, named.
      vi.setSystemTime(start + FUNCTION_RETRY_MS - 1)
      expect(await burst(keys)).toEqual(named(SHARED_CALL_AFTER + keys.length))
      vi.setSystemTime(start + FUNCTION_RETRY_MS)
      expect(await burst(keys)).toEqual([...named(SHARED_CALL_AFTER), 'named many'])
    },
  )

  it('rejects with the lone named statement’s own 42501 (the lookup statement does not use the function)', async () => {
    const { sent, lookup } = heldServer()
    const result = lookup(TEXT, 'b', CALL, MANY)
    await flush()
    sent[0]!.answer(serverError('42501'))
    await expect(result).rejects.toMatchObject({ code: '42501' })
    // The function is not marked unusable: concurrent lookups still share.
    const alone = Array.from({ length: SHARED_CALL_AFTER }, (_, i) => lookup(TEXT, `alone${i}`, CALL, MANY))
    const shared = ['d', 'e'].map((key) => lookup(TEXT, key, CALL, MANY))
    await flush()
    sent[1]!.answer()
    await flush()
    expect(sent.at(-1)!.kind).toBe('named many')
    await answerAll(sent)
    expect(await Promise.all([...alone, ...shared])).toEqual(wanted(['alone0', 'alone1', 'd', 'e']))
  })

  it("sends one value's keys (several peppers) as one named statement of the array form, alone or shared, never split across two", async () => {
    const held = heldServer()
    const { sent, lookup } = held
    const keys = ['k1', 'none', 'k3']
    const alone = lookup(TEXT_OF_KEYS, keys, CALL, MANY)
    await flush()
    expect(sent.map(({ kind, values }) => [kind, values])).toEqual([['named many', [keys]]])
    sent[0]!.answer()
    expect(await alone).toEqual(rowsOfKeys(keys))
    // Waiting behind SHARED_CALL_AFTER in flight: one short of a full statement, then the value's keys, then one more.
    sent.length = 0
    const inFlight = Array.from({ length: SHARED_CALL_AFTER }, (_, i) => lookup(TEXT, `alone${i}`, CALL, MANY))
    const singles = Array.from({ length: SHARED_CALL_MAX - 1 }, (_, i) => `s${i}`)
    const waiting = [...singles.map((key) => lookup(TEXT, key, CALL, MANY)), lookup(TEXT_OF_KEYS, keys, CALL, MANY), lookup(TEXT, 'z', CALL, MANY)]
    await flush()
    await answerAll(sent)
    const shared = sent.filter(({ kind }) => kind === 'named many').map(({ values }) => values[0])
    // The keys did not fit beside the 63: they went whole with the next statement.
    expect(shared).toEqual([singles, [...keys, 'z']])
    expect(await Promise.all(waiting)).toEqual([...wanted(singles), rowsOfKeys(keys), [rowOf('z')]])
    expect(await Promise.all(inFlight)).toEqual(wanted(['alone0', 'alone1']))
  })

  it("sends one value's keys as the named statement of keys while the function is missing: still one statement", async () => {
    const { sent, lookup } = heldServer()
    const keys = ['k1', 'none', 'k3']
    void Promise.allSettled(Array.from({ length: SHARED_CALL_AFTER }, (_, i) => lookup(TEXT, `alone${i}`, CALL, MANY)))
    const waiting = [lookup(TEXT_OF_KEYS, keys, CALL, MANY), lookup(TEXT, 'd', CALL, MANY)]
    await flush()
    sent[0]!.answer()
    await flush()
    expect(sent.at(-1)).toMatchObject({ kind: 'named many', values: [[...keys, 'd']] })
    sent.at(-1)!.answer(serverError('42883'))
    await flush()
    expect(sent.slice(-2).map(({ kind, values }) => [kind, values])).toEqual([
      ['named keys statement', [keys]],
      ['named statement', ['d']],
    ])
    await answerAll(sent)
    expect(await Promise.all(waiting)).toEqual([rowsOfKeys(keys), [rowOf('d')]])
    // Alone too, until the function is tried again.
    const later = lookup(TEXT_OF_KEYS, keys, CALL, MANY)
    await flush()
    expect(sent.at(-1)).toMatchObject({ kind: 'named keys statement', values: [keys] })
    sent.at(-1)!.answer()
    expect(await later).toEqual(rowsOfKeys(keys))
  })

  it('rejects every lookup of a failed shared named statement, each with its own error of the same class and code', async () => {
    const held = heldServer()
    await expectSharedFailureCopied(held.lookup, held.sent, (shared) => expect(shared.kind).toBe('named many'))
    // Named statements still in use.
    await aloneAs(held, 'named statement')
  })
})
