import { execFile } from 'node:child_process'
import path from 'node:path'
import type { PGlite } from '@electric-sql/pglite'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  AuditChainBrokenError,
  createPasscodeAuth,
  type AuditBreak,
  type AuditChainPoint,
  type AuditRecord,
  type PasscodeAuth,
} from '../../src/index'
import { auditRecordInput, canonicalJson, sha256Hex } from '../../src/core/audit'
import { auditKeyring } from '../../src/core/audit-keys'
import { toDatabase } from '../../src/stores/postgres/database'
import type { PostgresDatabase } from '../../src/stores/postgres/database-interface'
import { migrate, postgresStore, type PostgresStore } from '../../src/stores/postgres/index'
import { applyMigrations } from '../../src/stores/postgres/migrate'
import { MIGRATIONS } from '../../src/stores/postgres/migrations'
import { bundleForNode } from '../helpers/node-bundle'
import { freshPglite } from '../helpers/pglite'
import { postgresAvailability, type TestPostgres } from '../helpers/postgres'
import { sharedTestPostgres } from '../helpers/shared-postgres'
import { admin, manualClock } from '../helpers/service'
import { uniqueSchema } from './sql-fixture'

const ACCOUNT = 'acc_tamper'
const DAY = 86_400_000
const T0 = Date.UTC(2026, 0, 1)
// Test keys, obviously not real secrets: the service's, another under the same id, another id.
const KEY = { id: 'k1', key: new Uint8Array(32).fill(3) }
const SAME_ID_OTHER_KEY = { id: 'k1', key: new Uint8Array(32).fill(4) }
const OTHER_ID = { id: 'k9', key: new Uint8Array(32).fill(3) }

interface Opened {
  readonly db: PostgresDatabase
  readonly schema: string
  readonly store: PostgresStore
  sql(text: string, params?: unknown[]): Promise<Record<string, unknown>[]>
}

/** A service over `opened` with `keys` (the service's by default) and a clock the cases move. */
function service(opened: Opened, keys: readonly { id: string; key: Uint8Array }[] = [KEY]) {
  const clock = manualClock(T0)
  const auth = createPasscodeAuth({ store: opened.store, partners: ['acme'], clock, cache: false, ...(keys.length > 0 && { auditKeys: keys }) })
  return { auth, clock }
}

/**
 * Six records in ACCOUNT, a day apart (1 create, 2 rename, 3 rotate, 4 accepted
 * passcodes, 5 description, 6 delete) and one in another account; answers the passcode's id.
 */
async function sixRecords(auth: PasscodeAuth, clock: ReturnType<typeof manualClock>): Promise<string> {
  const { passcode } = await auth.passcodes.create(admin, ACCOUNT, { name: 'One', expiry: 30 })
  clock.advance(DAY)
  await auth.passcodes.update(admin, ACCOUNT, passcode.id, { name: 'Two' })
  clock.advance(DAY)
  await auth.passcodes.rotate(admin, ACCOUNT, passcode.id, { overlapMinutes: 5 })
  clock.advance(DAY)
  await auth.accounts.setAcceptedPasscodes(admin, ACCOUNT, 'both')
  clock.advance(DAY)
  await auth.passcodes.update(admin, ACCOUNT, passcode.id, { description: 'Nightly' })
  clock.advance(DAY)
  await auth.passcodes.delete(admin, ACCOUNT, passcode.id)
  await auth.passcodes.create(admin, 'acc_bystander', { name: 'Other', expiry: 30 })
  return passcode.id
}

/** What a case may use to tamper: the database, the rows as they were, and forging helpers. */
interface Tampering extends Opened {
  /** The account's rows before the tamper, by sequence. */
  readonly rows: ReadonlyMap<number, AuditRecord>
  /** The chain's head before the tamper (what an operator kept as an anchor). */
  readonly head: AuditChainPoint
  /** Sets columns of the row at `sequence`. */
  set(sequence: number, columns: Record<string, unknown>): Promise<void>
  /** Inserts a row: `record`'s columns, as the store writes them. */
  insert(record: AuditRecord): Promise<void>
  /** Sets columns of the account's head row. */
  setHead(columns: Record<string, unknown>): Promise<void>
  /**
   * Re-chains the rows from `from` on with plain SHA-256 hashes (of `version`, without a
   * key) or the HMAC of a key of the forger's own, and moves the head row to the last:
   * what someone who can write the table but has no key can compute.
   */
  rechain(from: number, options: { readonly version: 1 | 2; readonly forgerKey?: string; readonly edit?: Partial<AuditRecord> }): Promise<void>
}

function tampering(opened: Opened, rows: readonly AuditRecord[], head: AuditChainPoint): Tampering {
  const { sql, schema } = opened
  const assignments = (columns: Record<string, unknown>, from: number) =>
    Object.keys(columns)
      .map((column, i) => `${column} = $${i + from}`)
      .join(', ')
  const columnsOf = (record: AuditRecord): Record<string, unknown> => ({
    account_id: record.accountId,
    sequence: record.sequence,
    at: record.at,
    actor: canonicalJson(record.actor),
    action: record.action,
    target: canonicalJson(record.target),
    target_id: record.targetId,
    changes: canonicalJson(record.changes),
    request_id: record.requestId,
    client_address: record.clientAddress,
    previous_hash: record.previousHash,
    hash: record.hash,
    version: record.version,
    key_id: record.keyId,
  })
  const set = async (sequence: number, columns: Record<string, unknown>) => {
    await sql(`UPDATE ${schema}.audit_records SET ${assignments(columns, 3)} WHERE account_id = $1 AND sequence = $2`, [
      ACCOUNT,
      sequence,
      ...Object.values(columns),
    ])
  }
  const setHead = async (columns: Record<string, unknown>) => {
    await sql(`UPDATE ${schema}.audit_heads SET ${assignments(columns, 2)} WHERE account_id = $1`, [ACCOUNT, ...Object.values(columns)])
  }
  const insert = async (record: AuditRecord) => {
    const columns = columnsOf(record)
    const names = Object.keys(columns)
    await sql(
      `INSERT INTO ${schema}.audit_records (${names.join(', ')}) VALUES (${names.map((_, i) => `$${i + 1}`).join(', ')})`,
      Object.values(columns),
    )
  }
  return {
    ...opened,
    rows: new Map(rows.map((record) => [record.sequence, record])),
    head,
    set,
    setHead,
    insert,
    async rechain(from, { version, forgerKey, edit = {} }) {
      let previous = rows.find((record) => record.sequence === from - 1)?.hash ?? '0'.repeat(64)
      for (const record of rows.filter((row) => row.sequence >= from)) {
        const forged = { ...record, ...(record.sequence === from && edit), version, keyId: forgerKey ?? null, previousHash: previous }
        const hash = sha256Hex(`${forgerKey ?? ''}${auditRecordInput(forged)}`)
        await set(record.sequence, { previous_hash: previous, hash, version, key_id: forged.keyId, changes: canonicalJson(forged.changes) })
        previous = hash
      }
      await setHead({ hash: previous })
    },
  }
}

/** What verification must answer: `ok`, or the first break. */
type Expected = 'ok' | { readonly at: number; readonly reason: AuditBreak }

interface TamperCase {
  readonly name: string
  /** Prune first (the records of days 0 to 2 go, an `audit.pruned` record is appended) and take the rows and head after it. */
  readonly pruned?: boolean
  readonly tamper: (t: Tampering) => Promise<unknown>
  /** What `verify` must say without an anchor. */
  readonly verify: Expected
  /** What it must say with the head kept before the tamper; `verify`'s answer when left out. Never `ok`. */
  readonly anchored?: Expected
  /** The keys of the service that verifies (the wrong key cases). */
  readonly verifier?: readonly { id: string; key: Uint8Array }[]
  /** What an unfiltered `list` must do, when the case settles it (else: shows only vouched records, or refuses). */
  readonly listed?: 'refused'
}

const at = (sequence: number, reason: AuditBreak): Expected => ({ at: sequence, reason })
const FORGED_ACTOR = canonicalJson({ type: 'user', userId: 'u_forger', role: 'admin' })

/**
 * SPEC §5.44, issue 41: what someone who can write the database but holds no audit key
 * can do to an account's trail, and what verification says of each (with and without an
 * anchor kept before it). Every row of the account counts; a row outside the chain, a
 * record edited in any column, removed, re-chained or re-keyed, a moved start or a lost
 * head row is a break. Without an anchor, two cases cannot be seen (a cut tail with the
 * head row moved back, a chain re-written whole with plain hashes, which `unkeyed` then
 * counts): the anchor sees them.
 */
const TAMPER_CASES: readonly TamperCase[] = [
  // Rows outside the chain (issue 41, item 1).
  {
    name: 'a row forged below the start (sequence 0)',
    tamper: (t) => t.insert({ ...t.rows.get(1)!, sequence: 0 }).then(() => t.set(0, { actor: FORGED_ACTOR })),
    verify: at(0, 'outside'),
  },
  { name: 'a row forged below the start (sequence -1)', tamper: (t) => t.insert({ ...t.rows.get(1)!, sequence: -1 }), verify: at(-1, 'outside') },
  { name: 'a copy of the head above it', tamper: (t) => t.insert({ ...t.rows.get(6)!, sequence: 7 }), verify: at(7, 'outside') },
  {
    name: 'a record above the head that links to it, with a plain hash',
    tamper: async (t) => {
      const forged = { ...t.rows.get(6)!, sequence: 7, keyId: null, previousHash: t.head.hash, action: 'passcode.created' as const }
      await t.insert({ ...forged, hash: sha256Hex(auditRecordInput(forged)) })
    },
    verify: at(7, 'outside'),
  },
  {
    name: 'a record above the head with a plain hash, and the head row moved to it',
    tamper: async (t) => {
      const forged = { ...t.rows.get(6)!, sequence: 7, keyId: null, previousHash: t.head.hash }
      const hash = sha256Hex(auditRecordInput(forged))
      await t.insert({ ...forged, hash })
      await t.setHead({ sequence: 7, hash })
    },
    verify: at(7, 'unkeyed'),
  },
  {
    name: 'a sequence repeated (primary key dropped), same content',
    tamper: async (t) => {
      await t.sql(`ALTER TABLE ${t.schema}.audit_records DROP CONSTRAINT audit_records_pkey`)
      await t.insert(t.rows.get(3)!)
    },
    verify: at(3, 'outside'),
  },
  {
    name: 'a sequence repeated (primary key dropped), other actor',
    tamper: async (t) => {
      await t.sql(`ALTER TABLE ${t.schema}.audit_records DROP CONSTRAINT audit_records_pkey`)
      await t.insert({ ...t.rows.get(5)!, actor: { type: 'system' } })
    },
    verify: at(5, 'outside'),
  },
  // Every column of a record (issue 41, item 3: target_id).
  {
    name: 'account_id edited (the record moved to another account)',
    tamper: (t) => t.set(3, { account_id: 'acc_bystander2' }),
    verify: at(3, 'removed'),
  },
  { name: 'sequence edited (past the head)', tamper: (t) => t.set(3, { sequence: 30 }), verify: at(3, 'removed') },
  { name: 'at edited', tamper: (t) => t.set(3, { at: T0 }), verify: at(3, 'changed') },
  { name: 'actor edited', tamper: (t) => t.set(3, { actor: FORGED_ACTOR }), verify: at(3, 'changed') },
  { name: 'action edited', tamper: (t) => t.set(3, { action: 'passcode.updated' }), verify: at(3, 'changed') },
  { name: 'target edited', tamper: (t) => t.set(3, { target: canonicalJson({ type: 'account' }) }), verify: at(3, 'changed') },
  {
    name: 'target_id edited (hidden from the per-passcode filter)',
    tamper: (t) => t.set(3, { target_id: 'pc_elsewhere' }),
    verify: at(3, 'changed'),
  },
  {
    name: 'changes edited',
    tamper: (t) => t.set(2, { changes: canonicalJson({ name: { before: 'One', after: 'Evil' } }) }),
    verify: at(2, 'changed'),
  },
  { name: 'request_id edited', tamper: (t) => t.set(3, { request_id: 'req-forged' }), verify: at(3, 'changed') },
  { name: 'client_address edited', tamper: (t) => t.set(3, { client_address: '203.0.113.9' }), verify: at(3, 'changed') },
  { name: 'previous_hash edited', tamper: (t) => t.set(4, { previous_hash: 'f'.repeat(64) }), verify: at(4, 'changed') },
  { name: 'hash edited', tamper: (t) => t.set(4, { hash: 'f'.repeat(64) }), verify: at(4, 'changed') },
  { name: 'version edited to the encoding of before keys', tamper: (t) => t.set(4, { version: 1 }), verify: at(4, 'changed') },
  { name: 'key_id edited to none', tamper: (t) => t.set(4, { key_id: null }), verify: at(4, 'changed') },
  { name: 'key_id edited to a key not configured', tamper: (t) => t.set(4, { key_id: 'k9' }), verify: at(4, 'unknown_key') },
  {
    name: 'two records swapped',
    tamper: async (t) => {
      const [two, three] = [t.rows.get(2)!, t.rows.get(3)!]
      await t.sql(`DELETE FROM ${t.schema}.audit_records WHERE account_id = $1 AND sequence IN (2, 3)`, [ACCOUNT])
      await t.insert({ ...three, sequence: 2 })
      await t.insert({ ...two, sequence: 3 })
    },
    verify: at(2, 'changed'),
  },
  // Removals.
  { name: 'the first record deleted', tamper: (t) => t.set(1, { account_id: 'gone' }), verify: at(1, 'removed') },
  {
    name: 'a record in the middle deleted',
    tamper: (t) => t.sql(`DELETE FROM ${t.schema}.audit_records WHERE account_id = $1 AND sequence = 3`, [ACCOUNT]),
    verify: at(3, 'removed'),
    // The records after the gap are ones verification stops before: an unfiltered page refuses.
    listed: 'refused',
  },
  {
    name: 'the newest record deleted',
    tamper: (t) => t.sql(`DELETE FROM ${t.schema}.audit_records WHERE account_id = $1 AND sequence = 6`, [ACCOUNT]),
    verify: at(6, 'tail_removed'),
  },
  {
    name: 'the newest records deleted and the head row moved back to the last kept',
    tamper: async (t) => {
      await t.sql(`DELETE FROM ${t.schema}.audit_records WHERE account_id = $1 AND sequence >= 5`, [ACCOUNT])
      await t.setHead({ sequence: 4, hash: t.rows.get(4)!.hash })
    },
    // Nothing in the database tells: the anchor does.
    verify: 'ok',
    anchored: at(5, 'tail_removed'),
  },
  {
    name: 'every row and the head row deleted',
    tamper: async (t) => {
      await t.sql(`DELETE FROM ${t.schema}.audit_records WHERE account_id = $1`, [ACCOUNT])
      await t.sql(`DELETE FROM ${t.schema}.audit_heads WHERE account_id = $1`, [ACCOUNT])
    },
    // The account still has its passcode, which only an audited write makes: its chain was lost.
    verify: at(1, 'head_missing'),
    anchored: at(1, 'tail_removed'),
  },
  // The start (issue 41, item 2).
  {
    name: 'a record edited, then the start moved to the head (no row deleted)',
    tamper: async (t) => {
      await t.set(4, { actor: FORGED_ACTOR })
      await t.setHead({ start_sequence: t.head.sequence, start_hash: t.head.hash })
    },
    verify: at(1, 'outside'),
  },
  {
    name: 'records 1 to 3 deleted and the start moved to 3',
    tamper: async (t) => {
      await t.sql(`DELETE FROM ${t.schema}.audit_records WHERE account_id = $1 AND sequence <= 3`, [ACCOUNT])
      await t.setHead({ start_sequence: 3, start_hash: t.rows.get(3)!.hash })
    },
    verify: at(3, 'start_moved'),
  },
  {
    name: 'records 1 to 3 deleted, the start moved to 3 and a prune record forged with a plain hash',
    tamper: async (t) => {
      await t.sql(`DELETE FROM ${t.schema}.audit_records WHERE account_id = $1 AND sequence <= 3`, [ACCOUNT])
      await t.setHead({ start_sequence: 3, start_hash: t.rows.get(3)!.hash })
      const forged = {
        ...t.rows.get(6)!,
        sequence: 7,
        keyId: null,
        action: 'audit.pruned' as const,
        actor: { type: 'system' as const },
        target: { type: 'account' as const },
        targetId: null,
        changes: {
          removed: { before: null, after: 3 },
          through: { before: 0, after: 3 },
          lastHash: { before: '0'.repeat(64), after: t.rows.get(3)!.hash },
        },
        previousHash: t.head.hash,
      }
      const hash = sha256Hex(auditRecordInput(forged))
      await t.insert({ ...forged, hash })
      await t.setHead({ sequence: 7, hash })
    },
    verify: at(7, 'unkeyed'),
  },
  // The head row.
  {
    name: 'the head row deleted',
    tamper: (t) => t.sql(`DELETE FROM ${t.schema}.audit_heads WHERE account_id = $1`, [ACCOUNT]),
    verify: at(1, 'head_missing'),
  },
  { name: "the head row's hash edited", tamper: (t) => t.setHead({ hash: 'e'.repeat(64) }), verify: at(6, 'changed') },
  {
    name: 'the head row moved back (the newest records left past it)',
    tamper: (t) => t.setHead({ sequence: 4, hash: t.rows.get(4)!.hash }),
    verify: at(5, 'outside'),
  },
  { name: 'the head row moved forward', tamper: (t) => t.setHead({ sequence: 9 }), verify: at(7, 'tail_removed') },
  // After a prune (records 1 to 3 gone, #7 the prune record).
  { name: 'after a prune: a kept record edited', pruned: true, tamper: (t) => t.set(5, { actor: FORGED_ACTOR }), verify: at(5, 'changed') },
  {
    name: 'after a prune: its record deleted',
    pruned: true,
    tamper: async (t) => {
      await t.sql(`DELETE FROM ${t.schema}.audit_records WHERE account_id = $1 AND sequence = 7`, [ACCOUNT])
      await t.setHead({ sequence: 6, hash: t.rows.get(6)!.hash })
    },
    verify: at(3, 'start_moved'),
  },
  {
    name: 'after a prune: its record edited to say more went',
    pruned: true,
    tamper: (t) => t.set(7, { changes: canonicalJson({ ...t.rows.get(7)!.changes, through: { before: 0, after: 4 } }) }),
    verify: at(7, 'changed'),
  },
  {
    name: 'after a prune: the start moved further with more records deleted',
    pruned: true,
    tamper: async (t) => {
      await t.sql(`DELETE FROM ${t.schema}.audit_records WHERE account_id = $1 AND sequence = 4`, [ACCOUNT])
      await t.setHead({ start_sequence: 4, start_hash: t.rows.get(4)!.hash })
    },
    verify: at(4, 'start_moved'),
  },
  {
    name: 'after a prune: the start moved back to the genesis',
    pruned: true,
    tamper: (t) => t.setHead({ start_sequence: 0, start_hash: '0'.repeat(64) }),
    verify: at(1, 'removed'),
  },
  // Keys.
  { name: 'verified with another key under the same id', tamper: async () => {}, verifier: [SAME_ID_OTHER_KEY], verify: at(1, 'changed') },
  { name: 'verified with a key of another id', tamper: async () => {}, verifier: [OTHER_ID], verify: at(1, 'unknown_key') },
  { name: 'verified without keys', tamper: async () => {}, verifier: [], verify: at(1, 'unknown_key') },
  {
    name: 'record 3 edited and the chain re-hashed from it with plain hashes',
    tamper: (t) => t.rechain(3, { version: 2, edit: { changes: { previousValueEndsAt: { before: null, after: null } } } }),
    verify: at(3, 'unkeyed'),
  },
  {
    name: 'record 3 edited and the chain re-hashed from it in the encoding of before keys',
    tamper: (t) => t.rechain(3, { version: 1, edit: { changes: {} } }),
    verify: at(3, 'unkeyed'),
  },
  {
    name: 'record 3 edited and the chain re-signed from it with a key of the forger',
    tamper: (t) => t.rechain(3, { version: 2, forgerKey: 'k1-forged', edit: { changes: {} } }),
    verify: at(3, 'unknown_key'),
  },
  {
    name: 'the whole chain re-hashed with plain hashes, record 2 edited',
    tamper: (t) => t.rechain(1, { version: 2, edit: { changes: {} } }),
    // Plain from the first record: nothing in the database tells it from a chain written
    // before keys were configured, but `unkeyed` counts all six, and the anchor sees it.
    verify: 'ok',
    anchored: at(6, 'changed'),
  },
]

async function listed(auth: PasscodeAuth, options: { target?: string } = {}): Promise<AuditRecord[] | 'refused'> {
  try {
    return (await auth.audit.list(admin, ACCOUNT, { limit: 200, ...options })).records
  } catch (error) {
    if (error instanceof AuditChainBrokenError) return 'refused'
    throw error
  }
}

async function exported(auth: PasscodeAuth): Promise<{ records: AuditRecord[]; refused: boolean }> {
  const records: AuditRecord[] = []
  try {
    for await (const line of auth.audit.export(admin, ACCOUNT)) {
      const { time: _time, ...record } = JSON.parse(line) as AuditRecord & { time: string }
      records.push(record)
    }
    return { records, refused: false }
  } catch (error) {
    if (error instanceof AuditChainBrokenError) return { records, refused: true }
    throw error
  }
}

/** The tables of an account's data that only an audited write makes (service/audit/audit-api.ts, `keepsWrites`). */
const WRITTEN_TABLES = ['accounts', 'account_passcodes', 'user_passcodes', 'account_policies', 'webhook_endpoints']

/**
 * The six records written once (a migrated schema and the service's writes), then for
 * each case a schema of its own holding a copy of the audit tables and of
 * `WRITTEN_TABLES`: what the cases read and tamper with, at a fraction of a migration's
 * cost.
 */
function auditCopies(db: () => PostgresDatabase) {
  let template: Promise<{ schema: string; passcodeId: string }> | undefined
  const written = () =>
    (template ??= (async () => {
      const opened = await opener(db())()
      const { auth, clock } = service(opened)
      return { schema: opened.schema, passcodeId: await sixRecords(auth, clock) }
    })())
  return async (): Promise<Opened & { passcodeId: string }> => {
    const { schema: from, passcodeId } = await written()
    const schema = uniqueSchema()
    const sql = (text: string, params?: unknown[]) => toDatabase(db()).query(text, params)
    await sql(`CREATE SCHEMA ${schema}`)
    // The audit tables, and those of the data only an audited write makes (what
    // verification asks about an account without a head row or a row).
    for (const table of ['audit_heads', 'audit_records', ...WRITTEN_TABLES]) {
      await sql(`CREATE TABLE ${schema}.${table} (LIKE ${from}.${table} INCLUDING ALL)`)
      await sql(`INSERT INTO ${schema}.${table} SELECT * FROM ${from}.${table}`)
    }
    return { db: db(), schema, store: postgresStore(db(), { schema, listen: false }), sql, passcodeId }
  }
}

/** The table of tamper cases, each on its own copy of the six records in `db`; `open` gives a migrated schema of its own. */
function tamperCases(db: () => PostgresDatabase, open: () => Promise<Opened>): void {
  const copy = auditCopies(db)
  it.each(TAMPER_CASES)('$name', async (tamperCase) => {
    const opened = await copy()
    const { passcodeId } = opened
    const { auth, clock } = service(opened)
    if (tamperCase.pruned === true) {
      clock.set(T0 + 402.5 * DAY)
      expect(await auth.audit.prune({ keepDays: 400 })).toMatchObject({ removed: 3 })
    }
    const before = await auth.audit.verify(ACCOUNT)
    if (!before.ok) throw new Error(`the chain should verify before the tamper: ${JSON.stringify(before)}`)
    const rows = await opened.store.audit.records(ACCOUNT, { limit: 100 })

    await tamperCase.tamper(tampering(opened, rows, before.head))

    const verifier = tamperCase.verifier === undefined ? auth : service(opened, tamperCase.verifier).auth
    const expected = (answer: Expected) => (answer === 'ok' ? { ok: true } : { ok: false, ...answer })
    expect(await verifier.audit.verify(ACCOUNT)).toMatchObject(expected(tamperCase.verify))
    const anchored = tamperCase.anchored ?? tamperCase.verify
    expect(anchored).not.toBe('ok')
    expect(await verifier.audit.verify(ACCOUNT, { anchor: before.head })).toMatchObject(expected(anchored))

    // list (the management API's and the Activity page's call) and export show only
    // records verification vouches for, or refuse: where it finds a break, only records
    // as they were written before the tamper; where it cannot without an anchor, the rows
    // it vouches for as they are.
    const vouched = tamperCase.verify === 'ok' ? await opened.store.audit.records(ACCOUNT, { limit: 100 }) : rows
    const original = new Map(vouched.map((record) => [record.sequence, record]))
    if (tamperCase.listed === 'refused') expect(await listed(verifier)).toBe('refused')
    for (const page of [await listed(verifier), await listed(verifier, { target: passcodeId })]) {
      if (page === 'refused') continue
      for (const record of page) expect(record).toEqual(original.get(record.sequence))
    }
    const file = await exported(verifier)
    expect(file.refused).toBe(tamperCase.verify !== 'ok')
    for (const record of file.records) expect(record).toEqual(original.get(record.sequence))
  })

  it('verifies, lists and exports an untouched chain, keyed under the first key after a rotation too', async () => {
    const opened = await open()
    const { auth, clock } = service(opened, [KEY])
    await sixRecords(auth, clock)
    // A new key goes first; the records of the old one still verify.
    const rotated = service(opened, [OTHER_ID, KEY]).auth
    await rotated.accounts.setAcceptedPasscodes(admin, ACCOUNT, 'user')
    const result = await rotated.audit.verify(ACCOUNT)
    expect(result).toMatchObject({ ok: true, records: 7, unkeyed: 0, head: { sequence: 7 } })
    const rows = await opened.store.audit.records(ACCOUNT, { limit: 100 })
    expect(rows.map((row) => row.keyId)).toEqual(['k1', 'k1', 'k1', 'k1', 'k1', 'k1', 'k9'])
    expect((await listed(rotated)) as AuditRecord[]).toEqual([...rows].reverse())
    expect(await exported(rotated)).toEqual({ records: rows, refused: false })
    // The old service, without the new key, cannot vouch for its record.
    expect(await auth.audit.verify(ACCOUNT)).toEqual({ ok: false, at: 7, reason: 'unknown_key' })
  })
}

/** The cases that are not tampering: a failed write, and the plan of a page. */
function storeCases(open: () => Promise<Opened>): void {
  it('a store failure in the middle of an action leaves neither the change nor the record', async () => {
    const opened = await open()
    const { sql, schema } = opened
    const { auth } = service(opened)
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

    // The change fails after the head was locked: the record rolls back with it.
    await sql(`CREATE TRIGGER refuse BEFORE UPDATE ON ${schema}.account_passcodes FOR EACH ROW EXECUTE FUNCTION ${schema}.refuse()`)
    await expect(auth.passcodes.update(admin, ACCOUNT, passcode.id, { name: 'Renamed' })).rejects.toThrow()
    await sql(`DROP TRIGGER refuse ON ${schema}.account_passcodes`)
    const { records } = await auth.audit.list(admin, ACCOUNT)
    expect(records.map((record) => record.action)).toEqual(['passcode.created'])
    expect(await auth.audit.verify(ACCOUNT)).toMatchObject({ ok: true, records: 1 })
  })

  it('places a record after a head that moved since it was read: reads it again, then waits for the head lock; one change, one record', async () => {
    for (const times of [1, 2]) {
      const opened = await open()
      const keys = auditKeyring([KEY])
      const entry = (action: AuditRecord['action'], target: AuditRecord['target']) => ({
        entry: {
          accountId: ACCOUNT,
          at: T0,
          actor: { type: 'user', userId: 'u_admin', role: 'admin' },
          action,
          target,
          changes: {},
          requestId: null,
          clientAddress: null,
        } as const,
        signer: keys.signer,
      })
      const other = entry('user_passcode.revealed', { type: 'user', id: 'u_other' })
      await opened.store.audit.append(other)
      // Every time this store reads the head before a one-statement write, another instance appends first.
      const store = postgresStore(
        interfering(opened.db, times, () => opened.store.audit.append(other)),
        { schema: opened.schema, listen: false },
      )
      const user = {
        accountId: ACCOUNT,
        userId: 'u_1',
        hash: `hash-${times}`,
        ciphertext: 'not-a-jwe',
        hint: 'psc_…Ab12',
        validity: { type: 'finite', days: 30 },
        grantedAt: T0,
        expiresAt: T0 + DAY,
        revokedAt: null,
        lastUsedAt: null,
        lastUsedPartner: null,
      } as const
      await opened.store.grantUserPasscode(user, T0, entry('user_passcode.granted', { type: 'user', id: 'u_1' }))
      expect(await store.revokeUserPasscode(ACCOUNT, 'u_1', T0 + 1, entry('user_passcode.revoked', { type: 'user', id: 'u_1' }))).toMatchObject({
        revokedAt: T0 + 1,
      })
      const rows = await opened.store.audit.records(ACCOUNT, { limit: 10 })
      expect(rows.map((row) => row.action)).toEqual([
        'user_passcode.revealed',
        'user_passcode.granted',
        ...Array<string>(times).fill('user_passcode.revealed'),
        'user_passcode.revoked',
      ])
      const { auth } = service(opened)
      expect(await auth.audit.verify(ACCOUNT)).toMatchObject({ ok: true, records: times + 3 })
    }
  })

  it('reads a page of 50 through the primary key (account, sequence), whatever the other accounts hold', async () => {
    const opened = await open()
    const { sql, schema } = opened
    const { auth, clock } = service(opened)
    await sql(
      `INSERT INTO ${schema}.audit_records (account_id, sequence, at, actor, action, target, changes, previous_hash, hash, version)
       SELECT 'acc_' || (i % 500), i, i, '{}', 'passcode.created', '{}', '{}', '', '', 2 FROM generate_series(1, 20000) AS i`,
    )
    await sql(`ANALYZE ${schema}.audit_records`)
    await sixRecords(auth, clock)
    const plan = await sql(
      `EXPLAIN SELECT * FROM ${schema}.audit_records WHERE account_id = $1 AND sequence < 9223372036854775807 ORDER BY sequence DESC LIMIT 51`,
      [ACCOUNT],
    )
    const text = plan.map((row) => String(row['QUERY PLAN'])).join('\n')
    expect(text).toMatch(/audit_records_pkey/)
    expect(text).toMatch(/Index Cond: \(\(account_id = /)
    expect(text).not.toMatch(/Seq Scan/)
    expect((await auth.audit.list(admin, ACCOUNT)).records).toHaveLength(6)
    // 20 000 rows through the audit trigger: 1.5 s on a quiet machine, 32 s in a full run
    // beside two busy loops (PGlite is one thread); this checks a plan, not a time.
  }, 120_000)
}

/**
 * `db` whose first `times` reads of a chain head (the unlocked read before a record is
 * placed in one statement with its change) are each followed by `interfere` (another
 * append) before the reader gets the head it read: a head that moved since it was read.
 */
function interfering<T extends object>(db: T, times: number, interfere: () => Promise<unknown>): T {
  let left = times
  // A pg Pool runs each statement on a connection it lends (`connect`): those are watched the same way.
  const watched = <O extends object>(object: O): O =>
    new Proxy(object, {
      get(target, property) {
        const value: unknown = Reflect.get(target, property, target)
        if (typeof value !== 'function') return value
        const method = value as (...args: unknown[]) => Promise<unknown>
        if (property === 'connect') return async (...args: unknown[]) => watched((await method.apply(target, args)) as object)
        if (property !== 'query') return method.bind(target)
        return async (...args: unknown[]) => {
          const result = await method.apply(target, args)
          const text = typeof args[0] === 'string' ? args[0] : (args[0] as { text?: unknown } | undefined)?.text
          if (left > 0 && typeof text === 'string' && text.startsWith('SELECT sequence, hash, start_sequence, start_hash FROM')) {
            left--
            await interfere()
          }
          return result
        }
      },
    })
  return watched(db)
}

/** A schema of its own for each case, on `db`. */
const opener = (db: PostgresDatabase) => async (): Promise<Opened> => {
  const schema = uniqueSchema()
  await migrate(db, { schema })
  return {
    db,
    schema,
    store: postgresStore(db, { schema, listen: false }),
    sql: (text, params) => toDatabase(db).query(text, params),
  }
}

// One PGlite for the file's PGlite cases (starting one costs about a CPU-second), each case in a new schema of its own.
let pglite: PGlite
beforeAll(async () => {
  pglite = await freshPglite()
})
afterAll(async () => {
  await pglite?.close()
})

describe('SPEC 5.44 audit trail tampering, on PGlite', () => {
  tamperCases(
    () => pglite,
    () => opener(pglite)(),
  )
  storeCases(() => opener(pglite)())
})

/**
 * A chain as the release before audit keys wrote it (schema version 11: no `version`, no
 * `key_id`; SHA-256 of the encoding of version 1). The hashes are what that release's
 * `auditRecordHash` computed for these records, kept here: the migration must leave them
 * verifiable as they are.
 */
const LEGACY_HASHES: Readonly<Record<string, readonly string[]>> = {
  acc_legacy: [
    'fad44453a3342da98092ce1163aa54360a364f9a884c762d25390f85a2a9f80e',
    '04df1bb19d34585fdbb8442d0dca7571b475174e845483cd2bb893d2dd231e0c',
    'd47292a9f603074fae515090f72fba7d8c544de8ef4c7cd4d6cf4ac96ff51df7',
  ],
  acc_pruned: [
    '51d2ba9f0f669f87f0a240090c5a5b0cbf82d82770b017b2f220befb9e08dfa6',
    '196f464ee4e3bb188cc3f391ba86b3eec4a88060a1752233f02227f24fa03426',
    'a0cae5769715cdd73a18b6457eb7615942bc50febdcef6235c3c3e8ced17edb4',
  ],
}

/** Writes the legacy chain of {@link LEGACY_HASHES} into `account` as that release's append did. */
async function writeLegacyChain(sql: Opened['sql'], schema: string, account: 'acc_legacy' | 'acc_pruned'): Promise<void> {
  const hashes = LEGACY_HASHES[account]!
  for (let i = 1; i <= 3; i++) {
    await sql(
      `INSERT INTO ${schema}.audit_records (account_id, sequence, at, actor, action, target, target_id, changes, request_id, client_address, previous_hash, hash)
       VALUES ($1, $2, $3, $4, 'passcode.updated', $5, 'pc_legacy', $6, NULL, NULL, $7, $8)`,
      [
        account,
        i,
        Date.UTC(2026, 0, 1) + i,
        canonicalJson({ type: 'user', userId: 'u_admin', role: 'admin' }),
        canonicalJson({ type: 'passcode', id: 'pc_legacy', name: `Name ${i}` }),
        canonicalJson({ name: { before: `Name ${i - 1}`, after: `Name ${i}` } }),
        i === 1 ? '0'.repeat(64) : hashes[i - 2],
        hashes[i - 1],
      ],
    )
  }
  await sql(
    `INSERT INTO ${schema}.audit_heads (account_id, sequence, hash, previous_hash, start_sequence, start_hash) VALUES ($1, 3, $2, $3, 0, $4)`,
    [account, hashes[2], hashes[1], '0'.repeat(64)],
  )
}

describe('SPEC 5.44 migration 12: chains written before audit keys', () => {
  const LEGACY = 'acc_legacy'

  it('stay verifiable as they are, are keyed from the first new record, and an earlier release can no longer append', async () => {
    const schema = uniqueSchema()
    const sql = (text: string, params?: unknown[]) => toDatabase(pglite).query(text, params)
    await applyMigrations(
      toDatabase(pglite),
      schema,
      MIGRATIONS.filter((migration) => migration.version <= 11),
    )
    await writeLegacyChain(sql, schema, 'acc_legacy')
    // Another account, pruned by that release: its start moved, with no prune record.
    await writeLegacyChain(sql, schema, 'acc_pruned')
    await sql(`DELETE FROM ${schema}.audit_records WHERE account_id = 'acc_pruned' AND sequence = 1`)
    await sql(`UPDATE ${schema}.audit_heads SET start_sequence = 1, start_hash = $1 WHERE account_id = 'acc_pruned'`, [LEGACY_HASHES.acc_pruned![0]])
    expect(await migrate(pglite, { schema })).toMatchObject({ version: MIGRATIONS.at(-1)!.version })

    const opened: Opened = { db: pglite, schema, store: postgresStore(pglite, { schema, listen: false }), sql }
    const { auth } = service(opened)
    expect(await auth.audit.verify(LEGACY)).toEqual({ ok: true, records: 3, unkeyed: 3, head: { sequence: 3, hash: LEGACY_HASHES.acc_legacy![2] } })
    expect(await auth.audit.verify('acc_pruned')).toMatchObject({ ok: true, records: 2, unkeyed: 2 })
    const rows = await opened.store.audit.records(LEGACY, { limit: 10 })
    expect(rows.map((row) => [row.version, row.keyId, row.targetId])).toEqual([
      [1, null, 'pc_legacy'],
      [1, null, 'pc_legacy'],
      [1, null, 'pc_legacy'],
    ])

    // The next record is keyed, and follows the old head.
    await auth.accounts.setAcceptedPasscodes(admin, LEGACY, 'both')
    expect(await auth.audit.verify(LEGACY, { anchor: { sequence: 3, hash: LEGACY_HASHES.acc_legacy![2]! } })).toMatchObject({
      ok: true,
      records: 4,
      unkeyed: 3,
    })
    const [keyed] = await opened.store.audit.records(LEGACY, { from: 4, limit: 1 })
    expect(keyed).toMatchObject({ sequence: 4, version: 2, keyId: KEY.id, previousHash: LEGACY_HASHES.acc_legacy![2] })
    expect((await auth.audit.list(admin, LEGACY)).records.map((record) => record.sequence)).toEqual([4, 3, 2, 1])

    // The old records' target_id is held to their target.
    await sql(`UPDATE ${schema}.audit_records SET target_id = 'pc_elsewhere' WHERE account_id = $1 AND sequence = 2`, [LEGACY])
    expect(await auth.audit.verify(LEGACY)).toEqual({ ok: false, at: 2, reason: 'changed' })
    await expect(auth.audit.list(admin, LEGACY)).rejects.toBeInstanceOf(AuditChainBrokenError)
    await sql(`UPDATE ${schema}.audit_records SET target_id = 'pc_legacy' WHERE account_id = $1 AND sequence = 2`, [LEGACY])

    // The earlier release's append names no version: refused, so its change rolls back with it.
    await expect(
      sql(
        `INSERT INTO ${schema}.audit_records (account_id, sequence, at, actor, action, target, target_id, changes, previous_hash, hash)
         VALUES ($1, 5, 0, '{}', 'passcode.created', '{}', NULL, '{}', $2, $3)`,
        [LEGACY, keyed!.hash, 'a'.repeat(64)],
      ),
    ).rejects.toMatchObject({ code: '23502' })
    expect(await auth.audit.verify(LEGACY)).toMatchObject({ ok: true, records: 4 })
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
    server = await sharedTestPostgres()
    pool = new pg.Pool({ connectionString: server.connectionString, max: 4, connectionTimeoutMillis: 10_000 })
    pool.on('error', () => {})
  })
  afterAll(async () => {
    await pool?.end()
    await server?.stop()
  })

  tamperCases(
    () => pool,
    () => opener(pool)(),
  )
  storeCases(() => opener(pool)())

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
