import { execFile } from 'node:child_process'
import path from 'node:path'
import type { PGlite } from '@electric-sql/pglite'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createPasscodeAuth, type PasscodeAuth } from '../../src/index'
import { toDatabase } from '../../src/stores/postgres/database'
import type { PostgresDatabase } from '../../src/stores/postgres/database-interface'
import { migrate, postgresStore } from '../../src/stores/postgres/index'
import { bundleForNode } from '../helpers/node-bundle'
import { freshPglite } from '../helpers/pglite'
import { postgresAvailability, startTestPostgres, type TestPostgres } from '../helpers/postgres'
import { admin } from '../helpers/service'
import { uniqueSchema } from './sql-fixture'

const ACCOUNT = 'acc_tamper'

interface Opened {
  readonly db: PostgresDatabase
  readonly schema: string
  readonly auth: PasscodeAuth
  sql(text: string, params?: unknown[]): Promise<Record<string, unknown>[]>
}

/** Five records in ACCOUNT (creates and edits) and one in another account. */
async function fiveRecords(auth: PasscodeAuth): Promise<void> {
  const { passcode } = await auth.passcodes.create(admin, ACCOUNT, { name: 'One', expiry: 30 })
  await auth.passcodes.update(admin, ACCOUNT, passcode.id, { name: 'Two' })
  await auth.passcodes.rotate(admin, ACCOUNT, passcode.id, { overlapMinutes: 5 })
  await auth.accounts.setAcceptedPasscodes(admin, ACCOUNT, 'both')
  await auth.passcodes.delete(admin, ACCOUNT, passcode.id)
  await auth.passcodes.create(admin, 'acc_bystander', { name: 'Other', expiry: 30 })
}

/** The cases that change the audit table with SQL behind the library's back. */
function tamperCases(open: () => Promise<Opened>): void {
  it('verifies an untouched chain and names the first record changed with SQL', async () => {
    const { auth, sql, schema } = await open()
    await fiveRecords(auth)
    const intact = await auth.audit.verify(ACCOUNT)
    expect(intact).toMatchObject({ ok: true, records: 5, head: { sequence: 5 } })

    await sql(`UPDATE ${schema}.audit_records SET changes = replace(changes, 'Two', 'Evil') WHERE account_id = $1 AND sequence = 2`, [ACCOUNT])
    await sql(`UPDATE ${schema}.audit_records SET actor = replace(actor, 'u_admin', 'u_other') WHERE account_id = $1 AND sequence = 4`, [ACCOUNT])
    expect(await auth.audit.verify(ACCOUNT)).toEqual({ ok: false, at: 2, reason: 'changed' })
    expect(await auth.audit.verify('acc_bystander')).toMatchObject({ ok: true, records: 1 })
  })

  it('sees a changed time and a record rewritten with a fresh hash of its own', async () => {
    const { auth, sql, schema } = await open()
    await fiveRecords(auth)
    await sql(`UPDATE ${schema}.audit_records SET at = at + 1 WHERE account_id = $1 AND sequence = 3`, [ACCOUNT])
    expect(await auth.audit.verify(ACCOUNT)).toEqual({ ok: false, at: 3, reason: 'changed' })
    await sql(`UPDATE ${schema}.audit_records SET at = at - 1 WHERE account_id = $1 AND sequence = 3`, [ACCOUNT])
    expect(await auth.audit.verify(ACCOUNT)).toMatchObject({ ok: true })
    // Someone who knows the encoding rewrites record 3 and its hash: record 4 no longer follows it.
    const [row] = await sql(`SELECT * FROM ${schema}.audit_records WHERE account_id = $1 AND sequence = 3`, [ACCOUNT])
    const { auditRecordHash } = await import('../../src/core/audit')
    const forged = {
      accountId: ACCOUNT,
      at: Number(row!.at),
      actor: { type: 'system' as const },
      action: 'passcode.rotated' as const,
      target: JSON.parse(String(row!.target)),
      changes: {},
      requestId: null,
      clientAddress: null,
      previousHash: String(row!.previous_hash),
    }
    await sql(`UPDATE ${schema}.audit_records SET actor = $2, changes = '{}', hash = $3 WHERE account_id = $1 AND sequence = 3`, [
      ACCOUNT,
      '{"type":"system"}',
      auditRecordHash(forged),
    ])
    expect(await auth.audit.verify(ACCOUNT)).toEqual({ ok: false, at: 3, reason: 'changed' })
  })

  it('names a record removed with SQL, and a reordering', async () => {
    const { auth, sql, schema } = await open()
    await fiveRecords(auth)
    const rows = await sql(`SELECT * FROM ${schema}.audit_records WHERE account_id = $1 ORDER BY sequence`, [ACCOUNT])
    await sql(`DELETE FROM ${schema}.audit_records WHERE account_id = $1 AND sequence = 3`, [ACCOUNT])
    expect(await auth.audit.verify(ACCOUNT)).toEqual({ ok: false, at: 3, reason: 'removed' })
    // Renumbered to hide the gap: record 4 now claims sequence 3.
    for (const sequence of [4, 5])
      await sql(`UPDATE ${schema}.audit_records SET sequence = $2 WHERE account_id = $1 AND sequence = $3`, [ACCOUNT, sequence - 1, sequence])
    await sql(`UPDATE ${schema}.audit_heads SET sequence = 4 WHERE account_id = $1`, [ACCOUNT])
    expect(await auth.audit.verify(ACCOUNT)).toEqual({ ok: false, at: 2, reason: 'changed' })

    // Put everything back, then swap records 2 and 3.
    await sql(`DELETE FROM ${schema}.audit_records WHERE account_id = $1`, [ACCOUNT])
    for (const row of rows) {
      const columns = Object.keys(row)
      await sql(
        `INSERT INTO ${schema}.audit_records (${columns.join(', ')}) VALUES (${columns.map((_, i) => `$${i + 1}`).join(', ')})`,
        columns.map((column) => row[column]),
      )
    }
    await sql(`UPDATE ${schema}.audit_heads SET sequence = 5 WHERE account_id = $1`, [ACCOUNT])
    expect(await auth.audit.verify(ACCOUNT)).toMatchObject({ ok: true })
    for (const [from, to] of [
      [2, -2],
      [3, 2],
      [-2, 3],
    ])
      await sql(`UPDATE ${schema}.audit_records SET sequence = $2 WHERE account_id = $1 AND sequence = $3`, [ACCOUNT, to, from])
    expect(await auth.audit.verify(ACCOUNT)).toEqual({ ok: false, at: 2, reason: 'reordered' })
  })

  it('sees a cut-off tail: against its own head, and against an anchor when the head was moved too', async () => {
    const { auth, sql, schema } = await open()
    await fiveRecords(auth)
    const anchor = await auth.audit.verify(ACCOUNT)
    if (!anchor.ok) throw new Error('the chain should verify')
    await sql(`DELETE FROM ${schema}.audit_records WHERE account_id = $1 AND sequence >= 4`, [ACCOUNT])
    expect(await auth.audit.verify(ACCOUNT)).toEqual({ ok: false, at: 4, reason: 'tail_removed' })
    const [third] = await sql(`SELECT hash FROM ${schema}.audit_records WHERE account_id = $1 AND sequence = 3`, [ACCOUNT])
    await sql(`UPDATE ${schema}.audit_heads SET sequence = 3, hash = $2 WHERE account_id = $1`, [ACCOUNT, third!.hash])
    expect(await auth.audit.verify(ACCOUNT)).toMatchObject({ ok: true, records: 3 })
    expect(await auth.audit.verify(ACCOUNT, { anchor: anchor.head.hash })).toEqual({ ok: false, at: 4, reason: 'tail_removed' })
    // An anchor still in the chain is fine, and so are records appended after it.
    expect(await auth.audit.verify(ACCOUNT, { anchor: String(third!.hash) })).toMatchObject({ ok: true })
    await auth.accounts.setAcceptedPasscodes(admin, ACCOUNT, 'user')
    expect(await auth.audit.verify(ACCOUNT, { anchor: String(third!.hash) })).toMatchObject({ ok: true, records: 4 })
  })

  it('a store failure in the middle of an action leaves neither the change nor the record', async () => {
    const { auth, sql, schema } = await open()
    const { passcode } = await auth.passcodes.create(admin, ACCOUNT, { name: 'Kept', expiry: 30 })
    // The record's insert fails: the change must roll back with it.
    await sql(`CREATE FUNCTION ${schema}.refuse() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'refused by test'; END $$`)
    await sql(`CREATE TRIGGER refuse BEFORE INSERT ON ${schema}.audit_records FOR EACH ROW EXECUTE FUNCTION ${schema}.refuse()`)
    await expect(auth.passcodes.create(admin, ACCOUNT, { name: 'Lost', expiry: 30 })).rejects.toMatchObject({ code: 'ERR_STORAGE_UNAVAILABLE' })
    await expect(auth.passcodes.update(admin, ACCOUNT, passcode.id, { name: 'Renamed' })).rejects.toThrow()
    await expect(auth.passcodes.rotate(admin, ACCOUNT, passcode.id, { overlapMinutes: 0 })).rejects.toThrow()
    await expect(auth.passcodes.delete(admin, ACCOUNT, passcode.id)).rejects.toThrow()
    await expect(auth.accounts.setAcceptedPasscodes(admin, ACCOUNT, 'user')).rejects.toThrow()
    const list = await auth.passcodes.list(admin, ACCOUNT)
    expect(list.map((view) => [view.name, view.hint])).toEqual([['Kept', passcode.hint]])
    expect(await auth.accounts.getAcceptedPasscodes(ACCOUNT)).toBe('account')
    await sql(`DROP TRIGGER refuse ON ${schema}.audit_records`)

    // The change fails after the record was placed: the record rolls back with it.
    await sql(`CREATE TRIGGER refuse BEFORE UPDATE ON ${schema}.account_passcodes FOR EACH ROW EXECUTE FUNCTION ${schema}.refuse()`)
    await expect(auth.passcodes.update(admin, ACCOUNT, passcode.id, { name: 'Renamed' })).rejects.toThrow()
    await sql(`DROP TRIGGER refuse ON ${schema}.account_passcodes`)
    const { records } = await auth.audit.list(admin, ACCOUNT)
    expect(records.map((record) => record.action)).toEqual(['passcode.created'])
    expect(await auth.audit.verify(ACCOUNT)).toMatchObject({ ok: true, records: 1 })
  })

  it('reads a page of 50 through the primary key (account, sequence), whatever the other accounts hold', async () => {
    const { sql, schema, auth } = await open()
    await sql(
      `INSERT INTO ${schema}.audit_records (account_id, sequence, at, actor, action, target, changes, previous_hash, hash)
       SELECT 'acc_' || (i % 500), i, i, '{}', 'passcode.created', '{}', '{}', '', '' FROM generate_series(1, 20000) AS i`,
    )
    await sql(`ANALYZE ${schema}.audit_records`)
    await fiveRecords(auth)
    const plan = await sql(
      `EXPLAIN SELECT * FROM ${schema}.audit_records WHERE account_id = $1 AND sequence < 9223372036854775807 ORDER BY sequence DESC LIMIT 51`,
      [ACCOUNT],
    )
    const text = plan.map((row) => String(row['QUERY PLAN'])).join('\n')
    expect(text).toMatch(/audit_records_pkey/)
    expect(text).toMatch(/Index Cond: \(\(account_id = /)
    expect(text).not.toMatch(/Seq Scan/)
  })
}

describe('SPEC 5.40 audit trail tampering, on PGlite', () => {
  // One PGlite for the cases (starting one costs about a CPU-second), each case in a new schema of its own.
  let db: PGlite
  beforeAll(async () => {
    db = await freshPglite()
  })
  afterAll(async () => {
    await db?.close()
  })

  tamperCases(async () => {
    const schema = uniqueSchema()
    await migrate(db, { schema })
    const store = postgresStore(db, { schema, listen: false })
    return {
      db,
      schema,
      auth: createPasscodeAuth({ store, partners: ['acme'] }),
      sql: (text, params) => toDatabase(db).query(text, params),
    }
  })
})

const availability = postgresAvailability()
const title = availability.available
  ? 'SPEC 5.40 audit trail on a PostgreSQL server'
  : `SPEC 5.40 audit trail on a PostgreSQL server (skipped: ${availability.reason})`

describe.skipIf(!availability.available)(title, () => {
  let server: TestPostgres
  let pool: pg.Pool
  beforeAll(async () => {
    server = await startTestPostgres()
    pool = new pg.Pool({ connectionString: server.connectionString, max: 4, connectionTimeoutMillis: 10_000 })
    pool.on('error', () => {})
  })
  afterAll(async () => {
    await pool?.end()
    await server?.stop()
  })

  tamperCases(async () => {
    const schema = uniqueSchema()
    await migrate(pool, { schema })
    const store = postgresStore(pool, { schema, listen: false })
    return {
      db: pool,
      schema,
      auth: createPasscodeAuth({ store, partners: ['acme'] }),
      sql: (text, params) => toDatabase(pool).query(text, params),
    }
  })

  /**
   * A fresh schema written by two instances, each on a pool of its own (`auth` on the
   * file's pool, `peer` on another), as two processes of a fleet write one database.
   */
  const withTwoPools = async (
    fn: (instances: { store: ReturnType<typeof postgresStore>; auth: PasscodeAuth; peer: PasscodeAuth }) => Promise<void>,
  ): Promise<void> => {
    const schema = uniqueSchema()
    await migrate(pool, { schema })
    const other = new pg.Pool({ connectionString: server.connectionString, max: 4, connectionTimeoutMillis: 10_000 })
    other.on('error', () => {})
    try {
      const store = postgresStore(pool, { schema, listen: false })
      const auth = createPasscodeAuth({ store, partners: ['acme'] })
      const peer = createPasscodeAuth({ store: postgresStore(other, { schema, listen: false }), partners: ['acme'] })
      await fn({ store, auth, peer })
    } finally {
      await other.end()
    }
  }

  it('records each of many concurrent edits of one passcode, from two pools, with the before the edit replaced', async () => {
    await withTwoPools(async ({ store, auth, peer }) => {
      const { passcode } = await auth.passcodes.create(admin, ACCOUNT, { name: 'Edit 0', expiry: 30 })
      await Promise.all(
        Array.from({ length: 24 }, (_, i) => (i % 2 === 0 ? auth : peer).passcodes.update(admin, ACCOUNT, passcode.id, { name: `Edit ${i + 1}` })),
      )
      const edits = (await auth.audit.list(admin, ACCOUNT, { limit: 50 })).records.reverse().slice(1)
      expect(edits).toHaveLength(24)
      // In the chain's order, each edit's before is the after of the one before it.
      edits.forEach((record, i) => {
        const name = record.changes.name
        expect(name?.before).toBe(i === 0 ? 'Edit 0' : edits[i - 1]!.changes.name?.after)
        expect(record.target).toMatchObject({ name: name?.after })
      })
      expect((await store.getAccountPasscode(ACCOUNT, passcode.id))?.name).toBe(edits.at(-1)!.changes.name?.after)
      expect(await auth.audit.verify(ACCOUNT)).toMatchObject({ ok: true, records: 25 })
    })
  })

  it('records each of many concurrent rotations and renames, from two pools, with the end and the name the row had', async () => {
    await withTwoPools(async ({ store, auth, peer }) => {
      const { passcode } = await auth.passcodes.create(admin, ACCOUNT, { name: 'Name 0', expiry: 30 })
      await Promise.all(
        Array.from({ length: 24 }, (_, i) => {
          const by = i % 4 < 2 ? auth : peer
          return i % 2 === 0
            ? by.passcodes.rotate(admin, ACCOUNT, passcode.id, { overlapMinutes: i + 1 })
            : by.passcodes.update(admin, ACCOUNT, passcode.id, { name: `Name ${i}` })
        }),
      )
      const records = (await auth.audit.list(admin, ACCOUNT, { limit: 50 })).records.reverse().slice(1)
      expect(records).toHaveLength(24)
      // In the chain's order, each rotation replaced the end the one before it left, and
      // names the passcode as the renames before it in the chain left it.
      let ends: unknown = null
      let name = 'Name 0'
      for (const record of records) {
        if (record.action === 'passcode.updated') {
          expect(record.changes.name?.before).toBe(name)
          name = String(record.changes.name?.after)
          continue
        }
        expect(record.changes.previousValueEndsAt?.before).toBe(ends)
        expect(record.target).toMatchObject({ name })
        ends = record.changes.previousValueEndsAt?.after
      }
      const stored = await store.getAccountPasscode(ACCOUNT, passcode.id)
      expect([stored?.name, stored?.previousHashEndsAt]).toEqual([name, ends])
      expect(await auth.audit.verify(ACCOUNT)).toMatchObject({ ok: true, records: 25 })
    })
  })

  it('records a delete concurrent with edits with the fields and name of the row it deleted', async () => {
    await withTwoPools(async ({ auth, peer }) => {
      const { passcode } = await auth.passcodes.create(admin, ACCOUNT, { name: 'Name 0', expiry: 30 })
      const settled = await Promise.allSettled([
        ...Array.from({ length: 8 }, (_, i) =>
          (i % 2 === 0 ? auth : peer).passcodes.update(admin, ACCOUNT, passcode.id, { name: `Name ${i + 1}`, description: `Edit ${i + 1}` }),
        ),
        peer.passcodes.delete(admin, ACCOUNT, passcode.id),
      ])
      expect(settled.at(-1)!.status).toBe('fulfilled')
      const records = (await auth.audit.list(admin, ACCOUNT, { limit: 50 })).records.reverse()
      const edits = records.filter((record) => record.action === 'passcode.updated')
      const [removal] = records.slice(-1)
      const last = edits.at(-1)
      const [name, description] = last === undefined ? ['Name 0', null] : [last.changes.name?.after, last.changes.description?.after]
      expect(removal).toMatchObject({ action: 'passcode.deleted', target: { name } })
      expect(removal!.changes.name).toEqual({ before: name, after: null })
      expect(removal!.changes.description).toEqual(description === null ? undefined : { before: description, after: null })
      expect(await auth.audit.verify(ACCOUNT)).toMatchObject({ ok: true, records: edits.length + 2 })
    })
  })

  it('keeps one chain per account with writers in three processes', async () => {
    const schema = uniqueSchema()
    await migrate(pool, { schema })
    const bundles = await bundleForNode({ writer: path.join(import.meta.dirname, 'audit-writer.ts') })
    const perProcess = 24
    try {
      await Promise.all(
        ['a', 'b', 'c'].map(
          (label) =>
            new Promise<void>((resolve, reject) => {
              execFile(
                process.execPath,
                [bundles.file('writer'), server.connectionString, schema, ACCOUNT, String(perProcess), label],
                { timeout: 120_000 },
                (error, _stdout, stderr) => (error ? reject(new Error(`writer ${label} failed: ${stderr}`)) : resolve()),
              )
            }),
        ),
      )
    } finally {
      bundles.remove()
    }
    const auth = createPasscodeAuth({ store: postgresStore(pool, { schema, listen: false }), partners: ['acme'] })
    const expected = 3 * perProcess * 3
    expect(await auth.audit.verify(ACCOUNT)).toMatchObject({ ok: true, records: expected, head: { sequence: expected } })
    const [counts] = await pool
      .query(`SELECT count(*)::int AS n, count(DISTINCT previous_hash)::int AS links FROM ${schema}.audit_records`)
      .then((result) => result.rows)
    expect(counts).toEqual({ n: expected, links: expected })
  }, 180_000)
})
