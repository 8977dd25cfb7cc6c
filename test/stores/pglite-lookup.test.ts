import type { PGlite } from '@electric-sql/pglite'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { createPasscodeHasher } from '../../src/core/hashing'
import { migrate, postgresStore } from '../../src/stores/postgres/index'
import { preparedLookup } from '../../src/stores/postgres/pglite-lookup'
import { statements } from '../../src/stores/postgres/statements'
import { freshPglite } from '../helpers/pglite'
import { audited } from '../conformance/store/fixtures'

// The prepared, JSON-row verification lookup must answer exactly as the plain query.
let db: PGlite
const schema = 'lookup_test'
const sql = statements(schema).findCredentialByHash.text
const hash = createPasscodeHasher()

beforeAll(async () => {
  db = await freshPglite()
  await migrate(db, { schema })
  const store = postgresStore(db, { schema, listen: false })
  const now = Date.UTC(2026, 0, 1)
  await store.createAccountPasscode(
    {
      id: 'pc_1',
      accountId: 'acc_1',
      name: 'Ünïcode "name" \\ with\ttab',
      nameKey: 'ünïcode "name" \\ with\ttab',
      hash: hash('psc_value-one'),
      hint: 'psc_…-one',
      expiry: 'forever',
      createdAt: now,
      updatedAt: now,
      expiresAt: null,
    } as never,
    100,
    audited('acc_1', 'passcode.created'),
  )
  await store.grantUserPasscode(
    {
      accountId: 'acc_1',
      userId: 'u_1',
      hash: hash('psc_value-two'),
      ciphertext: 'jwe-text',
      hint: 'psc_…-two',
      validity: { type: 'finite', days: 30 },
      grantedAt: now,
      expiresAt: now + 30 * 86_400_000,
      revokedAt: null,
      lastUsedAt: null,
      lastUsedPartner: null,
    },
    now,
    audited('acc_1', 'user_passcode.granted'),
  )
})

afterAll(async () => {
  await db?.close()
})

describe('preparedLookup (PGlite)', () => {
  it('gives the same rows as the plain query, for account and user passcodes and for no match', async () => {
    const lookup = preparedLookup(db)!
    for (const key of [hash('psc_value-one'), hash('psc_value-two'), hash('psc_unknown')]) {
      const plain = (await db.query<Record<string, unknown>>(sql, [key])).rows
      const prepared = await lookup(sql, key)
      expect(prepared).toHaveLength(plain.length)
      // Same keys; values equal once numbers are compared as numbers (PGlite gives int8 as numbers too).
      expect(prepared.map((row) => Object.keys(row).sort())).toEqual(plain.map((row) => Object.keys(row).sort()))
      expect(prepared).toEqual(plain)
    }
  })

  it('still answers after the prepared statement is dropped, and for keys that are not hex', async () => {
    const lookup = preparedLookup(db)!
    const key = hash('psc_value-one')
    expect(await lookup(sql, key)).toHaveLength(1)
    await db.exec('DEALLOCATE ALL')
    const query = vi.spyOn(db, 'query')
    try {
      expect(await lookup(sql, key)).toHaveLength(1) // falls back to the plain query
      expect(query).toHaveBeenCalledTimes(1)
      query.mockClear()
      expect(await lookup(sql, key)).toHaveLength(1) // prepared again
      expect(query).not.toHaveBeenCalled()
    } finally {
      query.mockRestore()
    }
    expect(await lookup(sql, "x' OR '1'='1")).toEqual([])
  })

  it('answers over the protocol path: no query() once prepared', async () => {
    const lookup = preparedLookup(db)!
    await lookup(sql, hash('psc_value-one')) // prepares
    const query = vi.spyOn(db, 'query')
    try {
      for (const key of [hash('psc_value-one'), hash('psc_value-two'), hash('psc_unknown')]) await lookup(sql, key)
      expect(query).not.toHaveBeenCalled()
    } finally {
      query.mockRestore()
    }
  })

  it("looks several keys up as one statement over the protocol path, through the function's array form: each key's row with its position, as the statement of keys gives them", async () => {
    const {
      findCredentialsByHashes: { text: many },
      callFindCredentialsByHashes: { text: callMany },
    } = statements(schema)
    const lookup = preparedLookup(db)!
    const keys = [hash('psc_unknown'), hash('psc_value-two'), hash('psc_value-one')]
    const plain = (await db.query<Record<string, unknown>>(many, [keys])).rows
    expect(plain.map((row) => [Number(row.n), row.hash])).toEqual([
      [2, keys[1]],
      [3, keys[2]],
    ])
    const expected = plain.map((row) => ({ ...row, n: Number(row.n) }))
    const inOrder = (rows: readonly Record<string, unknown>[]) => [...rows].sort((a, b) => Number(a.n) - Number(b.n))
    await lookup(many, keys, undefined, callMany) // prepares
    const query = vi.spyOn(db, 'query')
    const stream = vi.spyOn(db, 'execProtocolStream')
    try {
      const prepared = await lookup(many, keys, undefined, callMany)
      expect(query).not.toHaveBeenCalled()
      expect(stream).toHaveBeenCalledTimes(1)
      expect(inOrder(prepared)).toEqual(expected)
      // Each key answers what the one-key lookup answers for it.
      for (const { n, ...row } of prepared) expect(await lookup(sql, keys[Number(n) - 1]!)).toEqual([row])
      // Without the function's form (a caller that has none): the statement of keys, prepared too.
      expect(inOrder(await lookup(many, keys))).toEqual(expected)
      // A key that is not hex sends the keys through the plain query, which gives the same rows.
      query.mockClear()
      expect(await lookup(many, [...keys, "x' OR '1'='1"], undefined, callMany)).toHaveLength(2)
      expect(query).toHaveBeenCalledTimes(1)
    } finally {
      query.mockRestore()
      stream.mockRestore()
    }
  })

  it("on a schema without the function's array form, answers several keys through the statement of keys, and does not prepare the function again at once", async () => {
    const {
      findCredentialsByHashes: { text: many },
      callFindCredentialsByHashes: { text: callMany },
    } = statements(schema)
    const missing = callMany.replace('find_credential_by_hash', 'no_such_function')
    const lookup = preparedLookup(db)!
    const keys = [hash('psc_value-one'), hash('psc_unknown')]
    const expected = [{ n: 1, ...(await lookup(sql, keys[0]!))[0] }]
    expect(await lookup(many, keys, undefined, missing)).toEqual(expected)
    const query = vi.spyOn(db, 'query')
    const stream = vi.spyOn(db, 'execProtocolStream')
    try {
      expect(await lookup(many, keys, undefined, missing)).toEqual(expected)
      // Only the statement of keys, prepared: the missing function is not parsed again.
      expect(stream).toHaveBeenCalledTimes(1)
      expect(query).not.toHaveBeenCalled()
    } finally {
      query.mockRestore()
      stream.mockRestore()
    }
  })

  it('never runs inside a transaction in progress: it waits, and sees only what was committed', async () => {
    const lookup = preparedLookup(db)!
    const key = hash('psc_in-transaction')
    let release!: () => void
    const gate = new Promise<void>((resolve) => (release = resolve))
    let inserted!: () => void
    const insertedRow = new Promise<void>((resolve) => (inserted = resolve))
    const transaction = db
      .transaction(async (tx) => {
        await tx.query(
          `INSERT INTO ${schema}.account_passcodes (id, account_id, name, name_key, hash, hint, expiry_days, created_at, updated_at, expires_at)
           VALUES ('pc_tx', 'acc_1', 'tx', 'tx', $1, 'psc_…-tx', NULL, 0, 0, NULL)`,
          [key],
        )
        inserted()
        await gate
        throw new Error('roll back')
      })
      .catch(() => 'rolled back')
    await insertedRow
    const query = vi.spyOn(db, 'query')
    try {
      let settled = false
      const during = lookup(sql, key).then((rows) => ((settled = true), rows))
      await new Promise((resolve) => setTimeout(resolve, 50))
      expect(settled).toBe(false)
      release()
      expect(await transaction).toBe('rolled back')
      expect(await during).toEqual([])
      // It saw the open transaction and left it to query(), which waits for the transaction lock.
      expect(query).toHaveBeenCalledWith(sql, [key])
    } finally {
      query.mockRestore()
    }
  })

  it('inside a transaction the host opened with BEGIN, answers as query does', async () => {
    const lookup = preparedLookup(db)!
    const key = hash('psc_raw-begin')
    await lookup(sql, hash('psc_value-one')) // prepared
    await db.exec('BEGIN')
    try {
      await db.query(
        `INSERT INTO ${schema}.account_passcodes (id, account_id, name, name_key, hash, hint, expiry_days, created_at, updated_at, expires_at)
         VALUES ('pc_raw', 'acc_1', 'raw', 'raw', $1, 'psc_…-raw', NULL, 0, 0, NULL)`,
        [key],
      )
      const plain = (await db.query<Record<string, unknown>>(sql, [key])).rows
      expect(plain).toHaveLength(1)
      const query = vi.spyOn(db, 'query')
      try {
        expect(await lookup(sql, key)).toEqual(plain)
        expect(query).toHaveBeenCalledTimes(1)
      } finally {
        query.mockRestore()
      }
    } finally {
      await db.exec('ROLLBACK')
    }
    expect(await lookup(sql, key)).toEqual([])
  })

  it('takes query() on an instance without the public protocol API (an older PGlite, PGliteWorker, a wrapper)', async () => {
    const methods = ['execProtocolStream', 'runExclusive', 'isInTransaction'] as const
    const wrapper = (without?: (typeof methods)[number]) => {
      const instance: Record<string, unknown> = {
        query: db.query.bind(db),
        transaction: db.transaction.bind(db),
        listen: db.listen.bind(db),
      }
      for (const method of methods) if (method !== without) instance[method] = db[method].bind(db)
      return instance as unknown as PGlite
    }
    expect(preparedLookup(wrapper())).toBeTypeOf('function')
    for (const method of methods) expect(preparedLookup(wrapper(method)), method).toBeUndefined()

    const older = wrapper('runExclusive')
    const query = vi.spyOn(older, 'query')
    const store = postgresStore(older, { schema, listen: false })
    const match = await store.findCredentialByHash(hash('psc_value-one'))
    expect(match).toMatchObject({ kind: 'account', record: { id: 'pc_1' } })
    expect(query).toHaveBeenCalledWith(sql, [hash('psc_value-one')])
  })

  it('keeps notifications flowing to listen() callbacks around lookups', async () => {
    const lookup = preparedLookup(db)!
    const payloads: string[] = []
    const unlisten = await db.listen('lookup_test_channel', (payload) => payloads.push(payload))
    try {
      for (let i = 0; i < 3; i++) {
        await db.exec(`NOTIFY lookup_test_channel, 'n${i}'`)
        expect(await lookup(sql, hash('psc_value-one'))).toHaveLength(1)
      }
      await new Promise((resolve) => setTimeout(resolve, 10))
      expect(payloads).toEqual(['n0', 'n1', 'n2'])
    } finally {
      await unlisten()
    }
  })

  it('follows a table changed under the prepared statement (PostgreSQL plans again; one text column keeps its type)', async () => {
    const lookup = preparedLookup(db)!
    const key = hash('psc_value-one')
    const before = await lookup(sql, key)
    await db.exec(`ALTER TABLE ${schema}.account_passcodes ALTER COLUMN hint TYPE varchar(200)`)
    try {
      const query = vi.spyOn(db, 'query')
      try {
        expect(await lookup(sql, key)).toEqual(before)
        expect(query).not.toHaveBeenCalled()
      } finally {
        query.mockRestore()
      }
    } finally {
      await db.exec(`ALTER TABLE ${schema}.account_passcodes ALTER COLUMN hint TYPE text`)
    }
  })

  it('rejects with the database error when the lookup itself cannot run', async () => {
    const lookup = preparedLookup(db)!
    await expect(lookup(`SELECT * FROM ${schema}.no_such_table WHERE hash = $1::text`, hash('psc_value-one'))).rejects.toThrow(/no_such_table/)
  })

  it('is used by postgresStore: a lookup finds the credential', async () => {
    const store = postgresStore(db, { schema, listen: false })
    const match = await store.findCredentialByHash(hash('psc_value-one'))
    expect(match).toMatchObject({ kind: 'account', record: { id: 'pc_1', expiry: 'forever', expiresAt: null }, acceptedPasscodes: 'account' })
  })
})
