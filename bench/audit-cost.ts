/**
 * The audit trail's costs (SPEC §5.40, §5.44: every record an HMAC made in this process
 * under the bench's audit key), side by side in one run:
 * - a management write (a rename) with its audit record next to the same write without
 *   one (the write alone: its change and its NOTIFY in a transaction, as the store wrote
 *   it before every write had its record, bench/write-alone.ts), on a PostgreSQL server,
 *   in interleaved slices, and next to the least a rename costs (the UPDATE and its
 *   NOTIFY as one prepared statement, no record); the same for a rotation, with its
 *   record, alone, and bare; and a create, a delete, a user passcode grant, reset and
 *   revoke, a change of the accepted passcodes, the notifier's completion of a claim and
 *   a leak report's disable with their record next to the same write alone;
 * - `audit.list` of 50 records of one account next to 1k and to 1M records of other
 *   accounts, alternating call by call;
 * - `audit.verify` per record, over a keyed chain of 20 000 records, next to the release
 *   before's verification of the same chain as it wrote it: that release's own code with
 *   `--baseline=<dir>` (a folder holding its `src/`), else a walk that does what it did
 *   (bench-only, `legacyVerify`).
 *
 *   npx tsx bench/audit-cost.ts               # DATABASE_URL, or a temporary cluster
 *   npx tsx bench/audit-cost.ts --only=write  # one section: write, list or verify
 *   git archive main src | tar -x -C .data/baseline   # then, beside main's own verify:
 *   npx tsx bench/audit-cost.ts --only=verify --baseline=.data/baseline
 */
import { resolve } from 'node:path'
import pg from 'pg'
import { createPasscodeAuth } from '../src/index'
import { sha256 } from '@noble/hashes/sha2.js'
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js'
import { auditRecordInput, canonicalJson, GENESIS_HASH, type AuditEntry, type AuditRecord } from '../src/core/audit'
import { changedFields } from '../src/core/audit-fields'
import { auditKeyring } from '../src/core/audit-keys'
import type { AuditAppend } from '../src/ports/audit-log'
import type { AccountPasscodeRecord, UserPasscodeRecord } from '../src/core/passcode-records'
import { migrate, postgresStore } from '../src/stores/postgres/index'
import { accountPatch, ROTATE_INPUTS, rotateChange } from '../src/stores/postgres/account-passcode-statements'
import { ACCOUNT_COLUMNS, EDIT_INPUTS, editInput } from '../src/stores/postgres/statement-columns'
import { joinInputs, namedStatement, sqlType } from '../src/stores/postgres/named-statement'
import { postgresAvailability, startTestPostgres } from '../test/helpers/postgres'
import { writesAlone } from './write-alone'
import { ADMIN } from './fixtures'
import { median } from './stats'

/** The bench's audit key (SPEC §5.44): every record is an HMAC under it, made in this process. */
const AUDIT_KEY = { id: 'bench', key: new Uint8Array(32).fill(11) }
const KEYS = auditKeyring([AUDIT_KEY])
const signed = (audit: AuditEntry): AuditAppend => ({ entry: audit, signer: KEYS.signer })

const entry = (accountId: string, at: number): AuditEntry => ({
  accountId,
  at,
  actor: { type: 'user', userId: ADMIN.userId, role: 'admin' },
  action: 'passcode.updated',
  target: { type: 'passcode', id: 'pc_bench', name: 'Bench' },
  changes: { name: { before: 'Before', after: 'After' } },
  requestId: null,
  clientAddress: null,
})

/**
 * Inserts a valid chain of `count` records for `accountId` in a few statements: keyed
 * under the bench's key (encoding version 2), or as the release before audit keys wrote
 * them (`legacy`: version 1, plain SHA-256), for `verify`'s cost before and after.
 */
async function seedChain(pool: pg.Pool, schema: string, accountId: string, count: number, legacy = false): Promise<void> {
  let head = { sequence: 0, hash: GENESIS_HASH }
  let previous = GENESIS_HASH
  for (let start = 0; start < count; start += 5_000) {
    const rows: unknown[][] = [[], [], [], [], [], [], [], [], [], []]
    for (let i = start; i < Math.min(count, start + 5_000); i++) {
      const keyed = KEYS.signer.chain(entry(accountId, i), head)
      const record: AuditRecord = legacy ? legacyRecord(keyed) : keyed
      previous = head.hash
      head = { sequence: record.sequence, hash: record.hash }
      const values = [
        record.sequence,
        record.at,
        canonicalJson(record.actor),
        canonicalJson(record.target),
        canonicalJson(record.changes),
        record.previousHash,
        record.hash,
        record.targetId,
        record.version,
        record.keyId,
      ]
      values.forEach((value, column) => rows[column]!.push(value))
    }
    await pool.query(
      `INSERT INTO ${schema}.audit_records (account_id, sequence, at, actor, action, target, changes, previous_hash, hash, target_id, version, key_id)
       SELECT $1, s, a, ac, 'passcode.updated', t, c, p, h, ti, v, k
       FROM unnest($2::bigint[], $3::bigint[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::smallint[], $11::text[])
         AS u(s, a, ac, t, c, p, h, ti, v, k)`,
      [accountId, ...rows],
    )
  }
  await pool.query(
    `INSERT INTO ${schema}.audit_heads (account_id, sequence, hash, previous_hash, start_sequence, start_hash) VALUES ($1, $2, $3, $4, 0, $5)
     ON CONFLICT (account_id) DO UPDATE SET sequence = excluded.sequence, hash = excluded.hash, previous_hash = excluded.previous_hash`,
    [accountId, head.sequence, head.hash, previous, GENESIS_HASH],
  )
}

/**
 * `record` as the release before audit keys would have written it after the same
 * previous hash: version 1, no key, SHA-256 (with `@noble/hashes`, as that release hashed).
 */
function legacyRecord(record: AuditRecord): AuditRecord {
  const unsigned = { ...record, version: 1, keyId: null }
  return { ...unsigned, hash: bytesToHex(sha256(utf8ToBytes(auditRecordInput(unsigned)))) }
}

/**
 * `auth.audit.verify` as the release before audit keys ran it, for its cost side by side
 * with today's (kept here, bench-only): pages of 1000 records above the start, read as
 * the store reads them, each hashed with `@noble/hashes` and linked to the one before.
 */
async function legacyVerify(store: ReturnType<typeof postgresStore>, accountId: string): Promise<number> {
  const log = store.audit
  const ends = await log.ends(accountId)
  let last = ends!.start
  let count = 0
  for (let from = last.sequence + 1; ;) {
    const page = await log.records(accountId, { from, limit: 1000 })
    for (const record of page) {
      if (bytesToHex(sha256(utf8ToBytes(auditRecordInput(record)))) !== record.hash) throw new Error('changed')
      if (record.sequence !== last.sequence + 1 || record.previousHash !== last.hash) throw new Error('removed')
      last = record
      count++
    }
    if (page.length < 1000) return count
    from = last.sequence + 1
  }
}

/** Other accounts' records, 20 per account, not chained (only their volume matters here). */
async function seedOthers(pool: pg.Pool, schema: string, count: number): Promise<void> {
  await pool.query(
    `INSERT INTO ${schema}.audit_records (account_id, sequence, at, actor, action, target, changes, previous_hash, hash)
     SELECT 'acc_other_' || (i / 20), i % 20 + 1, i, '{}', 'passcode.created', '{}', '{}', '', '' FROM generate_series(0, $1::integer - 1) AS i`,
    [count],
  )
  await pool.query(`ANALYZE ${schema}.audit_records`)
}

/** Writes per slice: at most the 100 passcodes an account may hold (SPEC §2). */
const SLICE = 100

const only = process.argv.find((arg) => arg.startsWith('--only='))?.slice('--only='.length)
const baseline = process.argv.find((arg) => arg.startsWith('--baseline='))?.slice('--baseline='.length)

/**
 * The release before's own `auth.audit.verify` on the store of `schema`, from the `src/`
 * under `--baseline` (its chain as that release wrote it: the schema's later columns are
 * ones it does not read).
 */
async function baselineVerify(pool: pg.Pool, schema: string): Promise<(accountId: string) => Promise<{ ok: boolean; records?: number }>> {
  const root = resolve(baseline!, 'src')
  const service = (await import(resolve(root, 'index.ts'))) as typeof import('../src/index')
  const stores = (await import(resolve(root, 'stores/postgres/index.ts'))) as typeof import('../src/stores/postgres/index')
  const auth = service.createPasscodeAuth({ store: stores.postgresStore(pool, { schema, listen: false }), partners: ['acme'] })
  return async (accountId) => auth.audit.verify(accountId)
}
const runs = (section: 'write' | 'list' | 'verify') => only === undefined || only === section

const availability = postgresAvailability()
if (!availability.available) {
  console.log(`skipped: ${availability.reason}`)
} else {
  const server = process.env.DATABASE_URL === undefined ? await startTestPostgres() : undefined
  const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL ?? server!.connectionString, max: 4, connectionTimeoutMillis: 10_000 })
  pool.on('error', () => {})
  try {
    if (runs('write')) await writeSection(pool)
    if (runs('list')) await listSection(pool)
    if (runs('verify')) await verifySection(pool)
  } finally {
    await pool.end()
    await server?.stop()
  }
}

/**
 * Times `kinds` side by side: `slice(kind)` runs one slice of {@link SLICE} writes of that
 * kind and answers its timed milliseconds (untimed setup left out); two slices of each
 * kind warm up, then 21 rounds run one slice of each, each kind first, second and last
 * in turn. Answers the median time per write of each kind and the median of the
 * per-round ratios of the first kind to each other one.
 */
async function sideBySide<K extends string>(
  kinds: readonly [K, ...K[]],
  slice: (kind: K) => Promise<number>,
): Promise<{ ms: Record<K, number>; ratio: Record<K, number> }> {
  for (let warm = 0; warm < 2; warm++) for (const kind of kinds) await slice(kind)
  const times = Object.fromEntries(kinds.map((kind) => [kind, [] as number[]])) as Record<K, number[]>
  const ratios = Object.fromEntries(kinds.map((kind) => [kind, [] as number[]])) as Record<K, number[]>
  for (let round = 0; round < 21; round++) {
    const order = kinds.map((_, i) => kinds[(i + round) % kinds.length]!)
    const slices = {} as Record<K, number>
    for (const kind of order) slices[kind] = (await slice(kind)) / SLICE
    for (const kind of kinds) {
      times[kind].push(slices[kind])
      ratios[kind].push(slices[kinds[0]] / slices[kind])
    }
  }
  const medians = (values: Record<K, number[]>) => Object.fromEntries(kinds.map((kind) => [kind, median(values[kind])])) as Record<K, number>
  return { ms: medians(times), ratio: medians(ratios) }
}

/** Milliseconds `run` takes. */
async function timed(run: () => Promise<unknown>): Promise<number> {
  const start = performance.now()
  await run()
  return performance.now() - start
}

/** 1. A write with and without its record. */
async function writeSection(pool: pg.Pool): Promise<void> {
  const schema = 'bench_audit_write'
  await pool.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`)
  await migrate(pool, { schema })
  const store = postgresStore(pool, { schema, listen: false })
  const alone = writesAlone(pool, schema)
  const auth = createPasscodeAuth({ store, partners: ['acme'], auditKeys: [AUDIT_KEY] })
  const { passcode } = await auth.passcodes.create(ADMIN, 'acc_bench', { name: 'Bench 0', expiry: 30 })
  const ms = (value: number) => value.toFixed(3)
  const report = (label: string, result: { ms: Record<string, number>; ratio: Record<string, number> }) =>
    console.log(
      `write (${label}) on PostgreSQL: ${ms(result.ms.without!)} ms without a record, ${ms(result.ms.with!)} ms with it; ratio ${result.ratio.without!.toFixed(2)}x (goal <= 1.3x)`,
    )
  // The least a rename costs: the UPDATE and its NOTIFY in one named prepared statement,
  // no record (not the rename alone, bench/write-alone.ts: BEGIN, UPDATE, NOTIFY, COMMIT).
  const bareRename = namedStatement(
    joinInputs(EDIT_INPUTS, { channel: sqlType.text, payload: sqlType.text }),
    ($) => `WITH edited AS (UPDATE ${schema}.account_passcodes AS p SET ${accountPatch($)}
      WHERE p.account_id = ${$.accountId} AND p.id = ${$.passcodeId} RETURNING ${ACCOUNT_COLUMNS})
      SELECT ${ACCOUNT_COLUMNS}, pg_notify(${$.channel}, ${$.payload}) FROM edited`,
  )
  const bare = { name: 'bench_bare_rename', text: bareRename.text }
  let n = 0
  const kinds = ['with', 'without', 'bare'] as const
  const rename = async (kind: (typeof kinds)[number]) => {
    n++
    const patch = { name: `Bench ${n}`, nameKey: `bench ${n}`, updatedAt: Date.now() }
    if (kind === 'with') await store.updateAccountPasscode('acc_bench', passcode.id, patch, signed(entry('acc_bench', Date.now())))
    else if (kind === 'without') await alone.update('acc_bench', passcode.id, patch)
    else {
      const input = { ...editInput('acc_bench', passcode.id, patch), channel: 'bench_channel', payload: '{}' }
      await pool.query({ ...bare, values: bareRename.values(input) })
    }
  }
  const renames = await sideBySide(kinds, (kind) =>
    timed(async () => {
      for (let i = 0; i < SLICE; i++) await rename(kind)
    }),
  )
  report('rename', renames)
  console.log(
    `  next to the bare rename (one prepared UPDATE + NOTIFY, no record): ${ms(renames.ms.bare)} ms; with a record / bare ${renames.ratio.bare.toFixed(2)}x`,
  )
  // A rotation with its record (one statement, which reads its before under its lock) next
  // to the rotation alone (BEGIN, the rotation, NOTIFY, COMMIT), and next to the least a rotation
  // costs: its statement and its NOTIFY as one named prepared statement, no record.
  const bareRotationStatement = namedStatement(
    joinInputs(ROTATE_INPUTS, { channel: sqlType.text, payload: sqlType.text }),
    ($) => `WITH ${rotateChange(schema, $)} SELECT ${ACCOUNT_COLUMNS}, pg_notify(${$.channel}, ${$.payload}) FROM changed`,
  )
  const bareRotation = { name: 'bench_bare_rotation', text: bareRotationStatement.text }
  const rotate = async (kind: (typeof kinds)[number]) => {
    n++
    const rotation = {
      hash: `bench-rotation-${n}`,
      hint: 'psc_…Ab12',
      previousHashEndsAt: n % 2 === 0 ? null : Date.now() + 60_000,
      updatedAt: Date.now(),
    }
    if (kind === 'bare') {
      const input = { accountId: 'acc_bench', passcodeId: passcode.id, ...rotation, pepperId: null, channel: 'bench_channel', payload: '{}' }
      await pool.query({ ...bareRotation, values: bareRotationStatement.values(input) })
      return
    }
    if (kind === 'without') await alone.rotate('acc_bench', passcode.id, rotation)
    else
      await store.rotateAccountPasscode(
        'acc_bench',
        passcode.id,
        rotation,
        signed({ ...entry('acc_bench', Date.now()), action: 'passcode.rotated' as const, changes: {} }),
      )
  }
  const rotations = await sideBySide(kinds, (kind) =>
    timed(async () => {
      for (let i = 0; i < SLICE; i++) await rotate(kind)
    }),
  )
  report('rotation', rotations)
  console.log(
    `  next to the bare rotation (one prepared rotation + NOTIFY, no record): ${ms(rotations.ms.bare)} ms; with a record / bare ${rotations.ratio.bare.toFixed(2)}x`,
  )

  // The other audited writes through the store with the service's record next to the same
  // write alone (bench/write-alone.ts: see docs/benchmarks.md). Each slice
  // writes to an account of its own, so every slice of either kind starts from the same
  // empty account and no create meets the cap.
  const audited = ['with', 'without'] as const
  let accounts = 0
  const freshAccount = (what: string) => `acc_${what}_${++accounts}`
  const newPasscode = (accountId: string, i: number): AccountPasscodeRecord => {
    const now = Date.now()
    n++
    return {
      id: crypto.randomUUID(),
      accountId,
      name: `Bench ${i}`,
      nameKey: `bench ${i}`,
      hash: `bench-create-${n}`,
      pepperId: null,
      hint: 'psc_…Ab12',
      expiry: 30,
      createdAt: now,
      updatedAt: now,
      expiresAt: now + 30 * 86_400_000,
      partners: null,
      previousHash: null,
      previousHashEndsAt: null,
      lastUsedAt: null,
      lastUsedPartner: null,
      disabledAt: null,
      description: '',
    }
  }
  const shown = (record: AccountPasscodeRecord) => ({
    name: record.name,
    expiry: record.expiry,
    expiresAt: record.expiresAt,
    partners: record.partners,
  })
  // The writes that set a slice up, untimed, have their record as every write does.
  const setup = (accountId: string) => signed({ ...entry(accountId, Date.now()), action: 'passcode.created' as const, changes: {} })
  const one = <T>(rows: readonly T[]): T | null => rows[0] ?? null
  const created = (outcome: { ok: boolean }) => {
    if (!outcome.ok) throw new Error('every create of the benchmark should succeed')
  }
  /** A fresh account with SLICE passcodes created untimed, for the writes that change them. */
  const createdPasscodes = async (what: string) => {
    const accountId = freshAccount(what)
    const records = Array.from({ length: SLICE }, (_, i) => newPasscode(accountId, i))
    for (const record of records) created(await store.createAccountPasscode(record, SLICE, setup(accountId)))
    return { accountId, records }
  }
  // A create: ensure the account, lock it, count its passcodes, insert (the service's
  // record: the passcode's fields, before null).
  const creates = await sideBySide(audited, async (kind) => {
    const accountId = freshAccount('create')
    const records = Array.from({ length: SLICE }, (_, i) => newPasscode(accountId, i))
    return timed(async () => {
      for (const record of records) {
        if (kind === 'without') {
          created(await alone.create(record, SLICE))
          continue
        }
        const audit = signed({
          ...entry(accountId, record.createdAt),
          action: 'passcode.created' as const,
          target: { type: 'passcode' as const, id: record.id, name: record.name },
          changes: changedFields(null, shown(record)),
        })
        created(await store.createAccountPasscode(record, SLICE, audit))
      }
    })
  })
  report('create', creates)
  // A delete of passcodes created untimed (the store makes the record's fields from the
  // row it deletes).
  const deletes = await sideBySide(audited, async (kind) => {
    const { accountId, records } = await createdPasscodes('delete')
    return timed(async () => {
      for (const record of records) {
        const audit = signed({
          ...entry(accountId, Date.now()),
          action: 'passcode.deleted' as const,
          target: { type: 'passcode' as const, id: record.id, name: record.name },
          changes: changedFields(shown(record), null),
        })
        const deleted =
          kind === 'with' ? await store.deleteAccountPasscode(accountId, record.id, audit) : one(await alone.delete(accountId, record.id))
        if (deleted === null) throw new Error('the passcode should exist')
      }
    })
  })
  report('delete', deletes)
  // A user passcode grant to users who have none: lock the (absent) row, insert.
  const grants = await sideBySide(audited, async (kind) => {
    const accountId = freshAccount('grant')
    return timed(async () => {
      for (let i = 0; i < SLICE; i++) {
        n++
        const now = Date.now()
        const expiresAt = now + 30 * 86_400_000
        const audit = signed({
          ...entry(accountId, now),
          action: 'user_passcode.granted' as const,
          target: { type: 'user' as const, id: `u_bench_${i}` },
          changes: { validity: { before: null, after: '30 days' }, expiresAt: { before: null, after: expiresAt } },
        })
        const record: UserPasscodeRecord = {
          accountId,
          userId: `u_bench_${i}`,
          hash: `bench-grant-${n}`,
          ciphertext: 'bench-not-a-jwe',
          hint: 'psc_…Cd34',
          validity: { type: 'finite', days: 30 },
          grantedAt: now,
          expiresAt,
          revokedAt: null,
          lastUsedAt: null,
          lastUsedPartner: null,
          pepperId: null,
        }
        const outcome = kind === 'with' ? await store.grantUserPasscode(record, now, audit) : await alone.grant(record)
        if (!outcome.ok) throw new Error('every grant of the benchmark should succeed')
      }
    })
  })
  report('user passcode grant', grants)

  // A user passcode reset and a revoke of passcodes granted untimed (each changes the row
  // and sends its NOTIFY; the store makes the reset's expiresAt before and after from the row).
  const userRecord = (accountId: string, userId: string): UserPasscodeRecord => {
    n++
    const now = Date.now()
    return {
      accountId,
      userId,
      hash: `bench-user-${n}`,
      ciphertext: 'bench-not-a-jwe',
      hint: 'psc_…Cd34',
      validity: { type: 'finite', days: 30 },
      grantedAt: now,
      expiresAt: now + 30 * 86_400_000,
      revokedAt: null,
      lastUsedAt: null,
      lastUsedPartner: null,
      pepperId: null,
    }
  }
  const grantedUsers = async (what: string) => {
    const accountId = freshAccount(what)
    const users = Array.from({ length: SLICE }, (_, i) => `u_bench_${i}`)
    for (const userId of users) {
      if (!(await store.grantUserPasscode(userRecord(accountId, userId), Date.now(), setup(accountId))).ok)
        throw new Error('every grant of the benchmark should succeed')
    }
    return { accountId, users }
  }
  const userEntry = (accountId: string, userId: string, action: AuditEntry['action']): AuditEntry => ({
    ...entry(accountId, Date.now()),
    action,
    target: { type: 'user', id: userId },
    changes: {},
  })
  const resets = await sideBySide(audited, async (kind) => {
    const { accountId, users } = await grantedUsers('reset')
    return timed(async () => {
      for (const userId of users) {
        const { hash, ciphertext, hint, grantedAt, expiresAt, pepperId } = userRecord(accountId, userId)
        const audit = signed(userEntry(accountId, userId, 'user_passcode.reset'))
        const fields = { hash, ciphertext, hint, grantedAt, expiresAt, pepperId }
        const reset =
          kind === 'with' ? await store.resetUserPasscode(accountId, userId, fields, audit) : one(await alone.reset(accountId, userId, fields))
        if (reset === null) throw new Error('the user passcode should be live')
      }
    })
  })
  report('user passcode reset', resets)
  const revokes = await sideBySide(audited, async (kind) => {
    const { accountId, users } = await grantedUsers('revoke')
    return timed(async () => {
      for (const userId of users) {
        const audit = signed(userEntry(accountId, userId, 'user_passcode.revoked'))
        const revoked =
          kind === 'with'
            ? await store.revokeUserPasscode(accountId, userId, Date.now(), audit)
            : one(await alone.revoke(accountId, userId, Date.now()))
        if (revoked === null) throw new Error('the user passcode should be live')
      }
    })
  })
  report('user passcode revoke', revokes)

  // The account's accepted passcodes, switched back and forth (ensure the account, set it, NOTIFY).
  const settings = await sideBySide(audited, async (kind) => {
    const accountId = freshAccount('accepted')
    return timed(async () => {
      for (let i = 0; i < SLICE; i++) {
        const accepted = i % 2 === 0 ? ('account' as const) : ('both' as const)
        const audit = signed({
          ...entry(accountId, Date.now()),
          action: 'account.accepted_passcodes_changed' as const,
          target: { type: 'account' as const },
          changes: {},
        })
        if (kind === 'with') await store.setAcceptedPasscodes(accountId, accepted, audit)
        else await alone.setAccepted(accountId, accepted)
      }
    })
  })
  report('accepted passcodes change', settings)

  // The notifier's completion of a claim (notification sent): passcodes that expire
  // within a day, created and claimed untimed; alone the completion is one statement,
  // with its record it is the completion and the record in one statement too (or, when
  // another append moved the head meanwhile, one transaction).
  const DAY = 86_400_000
  const completions = await sideBySide(audited, async (kind) => {
    const accountId = freshAccount('notified')
    const now = Date.now()
    for (let i = 0; i < SLICE; i++) {
      const record = { ...newPasscode(accountId, i), expiry: 1 as const, expiresAt: now + DAY / 2 }
      created(await store.createAccountPasscode(record, SLICE, setup(accountId)))
    }
    const claims = await store.claimNotifications({ now, windowMs: DAY, leaseMs: 600_000, limit: SLICE, token: crypto.randomUUID() })
    if (claims.length !== SLICE || claims.some((claim) => claim.accountId !== accountId)) throw new Error('each slice should claim its own passcodes')
    return timed(async () => {
      for (const claim of claims) {
        const audit = signed({
          ...entry(accountId, Date.now()),
          actor: { type: 'system' as const },
          action: 'notification.sent' as const,
          target: { type: 'passcode' as const, id: claim.passcodeId, name: claim.name },
          changes: { notification: { before: null, after: claim.kind } },
        })
        const sent =
          kind === 'with' ? await store.completeNotification(claim, Date.now(), audit) : await alone.completeNotification(claim, Date.now())
        if (!sent) throw new Error('the claim should hold')
      }
    })
  })
  report('notification sent', completions)

  // A leak report that disables an account passcode created untimed (SPEC §5.42).
  const leaks = await sideBySide(audited, async (kind) => {
    const { accountId, records } = await createdPasscodes('leak')
    return timed(async () => {
      for (const record of records) {
        const at = Date.now()
        const audit = signed({
          ...entry(accountId, at),
          actor: { type: 'system' as const },
          action: 'passcode.leak_reported' as const,
          target: { type: 'passcode' as const, id: record.id, name: record.name },
          changes: { source: { before: null, after: 'bench' } },
        })
        const report = {
          id: crypto.randomUUID(),
          kind: 'account' as const,
          accountId,
          key: record.id,
          hash: record.hash,
          action: 'disable' as const,
          at,
          url: null,
          source: 'bench',
          token: crypto.randomUUID(),
          claimedUntil: at + 60_000,
        }
        const mark = kind === 'with' ? await store.reportLeak(report, audit) : one(await alone.reportLeak(report))
        if (mark === null) throw new Error('the report should disable the passcode')
      }
    })
  })
  report('leak report (disable)', leaks)
  await pool.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`)
}

/** 2. A page of 50 next to 1k and 1M other records. */
async function listSection(pool: pg.Pool): Promise<void> {
  const pages: Record<string, number[]> = {}
  const services: [string, ReturnType<typeof createPasscodeAuth>][] = []
  for (const [label, others] of [
    ['1k', 1_000],
    ['1M', 1_000_000],
  ] as const) {
    const pageSchema = `bench_audit_${label.toLowerCase()}`
    await pool.query(`DROP SCHEMA IF EXISTS ${pageSchema} CASCADE`)
    await migrate(pool, { schema: pageSchema })
    await seedOthers(pool, pageSchema, others)
    await seedChain(pool, pageSchema, 'acc_bench', 500)
    services.push([
      label,
      createPasscodeAuth({ store: postgresStore(pool, { schema: pageSchema, listen: false }), partners: ['acme'], auditKeys: [AUDIT_KEY] }),
    ])
    pages[label] = []
  }
  for (let i = 0; i < 2_000; i++) {
    for (const [label, service] of i % 2 === 0 ? services : [...services].reverse()) {
      const start = performance.now()
      const page = await service.audit.list(ADMIN, 'acc_bench', { limit: 50 })
      const elapsed = performance.now() - start
      if (page.records.length !== 50) throw new Error('a page of 50 was expected')
      if (i >= 200) pages[label]!.push(elapsed)
    }
  }
  const p1k = median(pages['1k']!)
  const p1m = median(pages['1M']!)
  console.log(
    `audit.list page of 50: ${p1k.toFixed(3)} ms next to 1k other records, ${p1m.toFixed(3)} ms next to 1M; ratio ${(p1m / p1k).toFixed(2)}x (goal <= 1.5x)`,
  )
  for (const name of ['bench_audit_1k', 'bench_audit_1m']) await pool.query(`DROP SCHEMA IF EXISTS ${name} CASCADE`)
}

/**
 * 3. verify per record, side by side in one run: `auth.audit.verify` over a keyed chain
 * (every row read, each HMAC checked) next to the release before's verification over the
 * same chain as it would have written it (plain SHA-256, records above the start only),
 * and today's verify over that legacy chain too; runs alternate, median of 5 each.
 */
async function verifySection(pool: pg.Pool): Promise<void> {
  const records = 20_000
  const kinds = ['keyed', 'legacy', 'before'] as const
  const schemas = { keyed: 'bench_audit_chain', legacy: 'bench_audit_legacy' }
  for (const [kind, chainSchema] of Object.entries(schemas)) {
    await pool.query(`DROP SCHEMA IF EXISTS ${chainSchema} CASCADE`)
    await migrate(pool, { schema: chainSchema })
    await seedChain(pool, chainSchema, 'acc_chain', records, kind === 'legacy')
  }
  const stores = {
    keyed: postgresStore(pool, { schema: schemas.keyed, listen: false }),
    legacy: postgresStore(pool, { schema: schemas.legacy, listen: false }),
  }
  const verifier = (store: ReturnType<typeof postgresStore>) => createPasscodeAuth({ store, partners: ['acme'], auditKeys: [AUDIT_KEY] })
  const services = { keyed: verifier(stores.keyed), legacy: verifier(stores.legacy) }
  const before = baseline === undefined ? undefined : await baselineVerify(pool, schemas.legacy)
  const run = {
    keyed: async () => services.keyed.audit.verify('acc_chain'),
    legacy: async () => services.legacy.audit.verify('acc_chain'),
    before: async () => (before === undefined ? { ok: true, records: await legacyVerify(stores.legacy, 'acc_chain') } : before('acc_chain')),
  }
  const times = { keyed: [] as number[], legacy: [] as number[], before: [] as number[] }
  for (let round = 0; round < 6; round++) {
    for (const kind of round % 2 === 0 ? kinds : [...kinds].reverse()) {
      const start = performance.now()
      const result = await run[kind]()
      if (round > 0) times[kind].push(performance.now() - start)
      if (!result.ok || result.records !== records) throw new Error(`the seeded chain should verify: ${JSON.stringify(result)}`)
    }
  }
  const perRecord = (kind: (typeof kinds)[number]) => (median(times[kind]) / records) * 1000
  console.log(
    `audit.verify over ${records} records, per record: ${perRecord('keyed').toFixed(1)} µs keyed (HMAC), ${perRecord('legacy').toFixed(1)} µs over the ` +
      `legacy chain, ${perRecord('before').toFixed(1)} µs the release before's ${before === undefined ? 'walk (legacyVerify)' : `verify (${baseline})`} over it; keyed / before ${(perRecord('keyed') / perRecord('before')).toFixed(2)}x (goal <= 1.5x)`,
  )
  for (const chainSchema of Object.values(schemas)) await pool.query(`DROP SCHEMA IF EXISTS ${chainSchema} CASCADE`)
}
