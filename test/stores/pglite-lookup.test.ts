import { PGlite } from '@electric-sql/pglite'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createPasscodeHasher } from '../../src/index'
import { migrate, postgresStore } from '../../src/stores/postgres/index'
import { preparedLookup } from '../../src/stores/postgres/pglite-lookup'
import { statements } from '../../src/stores/postgres/statements'

// The prepared, JSON-row verification lookup must answer exactly as the plain query.
let db: PGlite
const schema = 'lookup_test'
const sql = statements(schema).findCredentialByHash
const hash = createPasscodeHasher()

beforeAll(async () => {
  db = new PGlite()
  await migrate(db, { schema })
  const store = postgresStore(db, { schema, listen: false })
  const now = Date.UTC(2026, 0, 1)
  await store.createAccountPasscode({
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
  } as never, 100)
  await store.grantUserPasscode({
    accountId: 'acc_1',
    userId: 'u_1',
    hash: hash('psc_value-two'),
    ciphertext: 'jwe-text',
    hint: 'psc_…-two',
    validity: { type: 'finite', days: 30 },
    grantedAt: now,
    expiresAt: now + 30 * 86_400_000,
    revokedAt: null,
  }, now)
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
    expect(await lookup(sql, key)).toHaveLength(1) // falls back to the plain query
    expect(await lookup(sql, key)).toHaveLength(1) // prepared again
    expect(await lookup(sql, "x' OR '1'='1")).toEqual([])
  })

  it('is used by postgresStore: a lookup finds the credential', async () => {
    const store = postgresStore(db, { schema, listen: false })
    const match = await store.findCredentialByHash(hash('psc_value-one'))
    expect(match).toMatchObject({ kind: 'account', record: { id: 'pc_1', expiry: 'forever', expiresAt: null }, acceptedPasscodes: 'account' })
  })
})
