import { randomBytes, randomUUID } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import type { Actor } from '../../src/core/entities'
import { createPasscodeHasher } from '../../src/core/hashing'
import { generatePasscode, passcodeHint } from '../../src/core/passcode-format'
import { DAY_MS } from '../../src/core/time'
import { createPasscodeAuth } from '../../src/service/create-passcode-auth'
import { createUserPasscodeCrypto } from '../../src/service/user-passcodes/user-passcode-crypto'
import { toDatabase } from '../../src/stores/postgres/database'
import type { PostgresDatabase } from '../../src/stores/postgres/database-interface'
import { applyMigrations, migrate } from '../../src/stores/postgres/migrate'
import { MIGRATIONS } from '../../src/stores/postgres/migrations'
import { postgresRateLimitStore } from '../../src/stores/postgres/postgres-rate-limit-store'
import { postgresStore } from '../../src/stores/postgres/postgres-store'
import { statements } from '../../src/stores/postgres/statements'
import { eventually } from '../conformance/store/fixtures'
import { uniqueSchema } from './sql-fixture'

/** A database that outlives its connections: opened once per "release", then dropped. */
export interface MigrationStorage {
  /** Opens a connection (a pool, or the PGlite folder) to the same database. */
  open(): Promise<{ db: PostgresDatabase; close(): Promise<void> }>
  /** Removes what the storage made. */
  drop(): Promise<void>
}

/** How a case gets fresh storage of its own. */
export interface MigrationConnections {
  storage(): Promise<MigrationStorage>
}

const admin: Actor = { userId: 'u_admin', role: 'admin' }
const NOW = Date.UTC(2026, 10, 1)
const keys = [{ id: 'k1', key: randomBytes(32) }]
const hash = createPasscodeHasher()

/** What the version 1 fixture holds: values are made per run, never committed. */
interface Version1Data {
  readonly schema: string
  readonly account: { id: string; value: string }
  readonly forever: { id: string; value: string }
  readonly expired: { id: string; value: string }
  readonly user: { userId: string; value: string }
}

/**
 * A database as the first schema (version 1) left it, with data written the way that
 * release wrote it: its own SQL and columns, not today's store. Keep it as it is when
 * a migration is added: it is what existing installations hold.
 */
async function seedVersion1(db: PostgresDatabase): Promise<Version1Data> {
  const schema = uniqueSchema()
  const database = toDatabase(db)
  await applyMigrations(
    database,
    schema,
    MIGRATIONS.filter((migration) => migration.version <= 1),
  )
  const insert = `INSERT INTO ${schema}.account_passcodes
    (id, account_id, name, name_key, hash, hint, expiry_days, created_at, updated_at, expires_at)
    VALUES ($1, 'acc_old', $2, $3, $4, $5, $6, $7, $7, $8)`
  const passcode = async (name: string, days: number | null, createdAt: number) => {
    const value = generatePasscode()
    const id = randomUUID()
    const expiresAt = days === null ? null : createdAt + days * DAY_MS
    await database.query(insert, [id, name, name.toLowerCase(), hash(value), passcodeHint(value), days, createdAt, expiresAt])
    return { id, value }
  }
  const account = await passcode('Partner A', 365, NOW - DAY_MS)
  const forever = await passcode('Forever', null, NOW - 2 * DAY_MS)
  const expired = await passcode('Old', 1, NOW - 10 * DAY_MS)
  await database.query(
    `INSERT INTO ${schema}.notifications (passcode_id, kind, expires_at, token, claimed_until, sent_at) VALUES ($1, 'expired', $2, NULL, 0, $2)`,
    [expired.id, NOW - 9 * DAY_MS],
  )
  const userValue = generatePasscode()
  const owner = { accountId: 'acc_old', userId: 'u_old' }
  const ciphertext = await createUserPasscodeCrypto(keys)!.encrypt(userValue, owner)
  await database.query(
    `INSERT INTO ${schema}.user_passcodes (account_id, user_id, hash, ciphertext, hint, validity_type, validity_days, granted_at, expires_at, revoked_at)
     VALUES ('acc_old', 'u_old', $1, $2, $3, 'finite', 90, $4, $5, NULL)`,
    [hash(userValue), ciphertext, passcodeHint(userValue), NOW - DAY_MS, NOW + 89 * DAY_MS],
  )
  await database.query(`INSERT INTO ${schema}.accounts (account_id, accepted_passcodes) VALUES ('acc_old', 'both')`)
  await database.query(`INSERT INTO ${schema}.partners (name, added_at) VALUES ('acme', $1), ('globex', $1)`, [NOW - DAY_MS])
  return { schema, account, forever, expired, user: { userId: 'u_old', value: userValue } }
}

/**
 * Upgrading an existing database that holds data (no release is published yet, so
 * version 1 is what a user of today's code has). The data is written at version 1,
 * the connection is closed, the next "release" opens the same database, migrates it
 * and uses the old passcodes, then the new features on the old rows. A migration
 * added later adds its checks to the second half.
 */
export function migrationCases(name: string, connections: MigrationConnections): void {
  describe(`${name}: upgrading a version 1 database that holds data`, () => {
    it('migrates to the latest version; old passcodes, settings and notifications keep working', async () => {
      const storage = await connections.storage()
      const before = await storage.open()
      const data = await seedVersion1(before.db)
      await before.close()

      const after = await storage.open()
      const { schema } = data
      const report = await migrate(after.db, { schema })
      const later = MIGRATIONS.map((migration) => migration.version).filter((version) => version > 1)
      expect(report).toEqual({ applied: later, version: Math.max(...later) })
      // Version 10: the lookup function (the path through a transaction pooler) finds the old rows.
      const call = statements(schema).callFindCredentialByHash.text
      const found = async (value: string) => {
        const rows = await toDatabase(after.db).query(call, [hash(value)])
        return rows.map((row) => (typeof row.json === 'string' ? (JSON.parse(row.json) as Record<string, unknown>) : row.json))
      }
      expect(await found(data.account.value)).toEqual([
        expect.objectContaining({ kind: 'account', id: data.account.id, account_id: 'acc_old', accepted_passcodes: 'both', previous_hash: null }),
      ])
      expect(await found(data.user.value)).toEqual([expect.objectContaining({ kind: 'user', user_id: 'u_old', accepted_passcodes: 'both' })])
      expect(await found(generatePasscode())).toEqual([null])

      const store = postgresStore(after.db, { schema, listen: false })
      const clock = () => new Date(NOW)
      const auth = createPasscodeAuth({ store, partners: ['acme', 'globex'], encryptionKeys: keys, clock })
      try {
        const account = await auth.authenticate({ accountId: 'acc_old', passcode: data.account.value })
        expect(account).toEqual({
          ok: true,
          principal: { accountId: 'acc_old', kind: 'account', passcodeId: data.account.id, passcodeName: 'Partner A' },
        })
        expect((await auth.authenticate({ accountId: 'acc_old', passcode: data.forever.value })).ok).toBe(true)
        expect((await auth.authenticate({ accountId: 'acc_old', passcode: data.user.value })).ok).toBe(true)
        expect(await auth.authenticate({ accountId: 'acc_old', passcode: data.expired.value })).toMatchObject({ ok: false, statusCode: 401 })
        const headers = { 'x-service-account-id': 'acc_old', 'x-service-passcode': data.account.value }
        expect((await auth.connect({ headers, partner: 'Acme' })).statusCode).toBe(200)

        const listed = await auth.passcodes.list(admin, 'acc_old')
        expect(listed.map((view) => [view.name, view.status, view.partners])).toEqual([
          ['Old', 'expired', null],
          ['Forever', 'active', null],
          ['Partner A', 'active', null],
        ])
        expect((await auth.userPasscodes.reveal({ userId: 'u_old', role: 'member' }, 'acc_old')).value).toBe(data.user.value)
        const sent = await toDatabase(after.db).query(`SELECT kind FROM ${schema}.notifications WHERE passcode_id = $1`, [data.expired.id])
        expect(sent).toEqual([{ kind: 'expired' }])
        // Versions 6 and 7: the email sent before is known on the row, and not claimed again.
        const [filled] = await toDatabase(after.db).query(
          `SELECT expired_sent_for::float8 AS at, soon_sent_for FROM ${schema}.account_passcodes WHERE id = $1`,
          [data.expired.id],
        )
        expect(filled).toEqual({ at: NOW - 9 * DAY_MS, soon_sent_for: null })
        const claims = await store.claimNotifications({ now: NOW, windowMs: 30 * DAY_MS, leaseMs: 60_000, limit: 100, token: randomUUID() })
        expect(claims).toEqual([])

        // Version 2 on the old rows: binding, rotation with overlap, last use.
        const bound = await auth.passcodes.update(admin, 'acc_old', data.account.id, { partners: ['globex'] })
        expect(bound.partners).toEqual(['globex'])
        expect((await auth.connect({ headers, partner: 'acme' })).statusCode).toBe(403)
        expect((await auth.connect({ headers, partner: 'globex' })).statusCode).toBe(200)
        // Version 3, pepper rotation: the old hashes' pepper is unknown until each verifies;
        // the three that verified above (two account passcodes, the user's) are labelled.
        await eventually(async () => expect(await auth.pepperReport()).toEqual({ current: 3, older: [], unknown: 1 }))
        const rotated = await auth.passcodes.rotate(admin, 'acc_old', data.forever.id, { overlapMinutes: 30 })
        expect((await auth.authenticate({ accountId: 'acc_old', passcode: data.forever.value })).ok).toBe(true)
        expect((await auth.authenticate({ accountId: 'acc_old', passcode: rotated.value })).ok).toBe(true)
        await auth.close()
        const used = await store.getAccountPasscode('acc_old', data.account.id)
        expect(used).toMatchObject({ partners: ['globex'], lastUsedAt: NOW, lastUsedPartner: 'globex' })
        expect(await store.getUserPasscode('acc_old', 'u_old')).toMatchObject({ lastUsedAt: NOW, lastUsedPartner: null })

        // Version 13: the rotated value's previous one, in its overlap, counts under its own pepper (SPEC §5.47).
        expect(await auth.pepperReport()).toEqual({ current: 4, older: [], unknown: 1 })
        // Version 14: an old row grants every scope from any address, with no metadata and
        // no tags (SPEC §5.48–5.51); restricting it on the migrated schema takes effect.
        const scoped = createPasscodeAuth({ store, scopes: { 'events:read': 'Read events', 'events:write': 'Send events' }, clock, cache: false })
        const old = await scoped.authenticate({ accountId: 'acc_old', passcode: data.account.value })
        expect(old).toMatchObject({ ok: true, principal: { scopes: ['events:read', 'events:write'] } })
        expect(await store.getAccountPasscode('acc_old', data.account.id)).toMatchObject({
          scopes: null,
          allowedAddresses: [],
          metadata: null,
          tags: [],
        })
        expect(await store.getUserPasscode('acc_old', 'u_old')).toMatchObject({ scopes: null, allowedAddresses: [] })
        await scoped.passcodes.update(admin, 'acc_old', data.account.id, {
          scopes: ['events:read'],
          allowedAddresses: ['192.0.2.0/24'],
          metadata: { plan: 'gold' },
          tags: ['legacy'],
        })
        const from = (clientAddress: string) => scoped.authenticate({ accountId: 'acc_old', passcode: data.account.value, clientAddress })
        expect(await from('192.0.2.7')).toMatchObject({ ok: true, principal: { scopes: ['events:read'], metadata: { plan: 'gold' } } })
        expect(await from('198.51.100.7')).toMatchObject({ ok: false, statusCode: 403 })
        await scoped.passcodes.update(admin, 'acc_old', data.account.id, { scopes: null, allowedAddresses: [] })
        await scoped.close()

        // Adding a pepper to this deployment keeps the old passcodes working and re-hashes them.
        const pepper = randomBytes(32)
        const withPepper = createPasscodeAuth({ store, pepper: [pepper, null], encryptionKeys: keys, clock, cache: false })
        expect((await withPepper.authenticate({ accountId: 'acc_old', passcode: data.account.value })).ok).toBe(true)
        await eventually(async () => expect(await withPepper.pepperReport()).toEqual({ current: 1, older: [3], unknown: 1 }))
        expect((await createPasscodeAuth({ store, pepper, clock }).authenticate({ accountId: 'acc_old', passcode: data.account.value })).ok).toBe(
          true,
        )
        await withPepper.close()

        // Version 3, the fleet-wide limiter's table: failures shared, rows bounded.
        const limiter = postgresRateLimitStore(after.db, { schema, listen: false })
        for (let i = 0; i < 5; i++) limiter.recordFailure('address:192.0.2.1', 3, 60_000, NOW + i)
        await limiter.flush()
        const rows = await toDatabase(after.db).query(`SELECT cardinality(instants) AS kept FROM ${schema}.rate_limit_failures`)
        expect(rows.map((row) => Number(row.kept))).toEqual([3])
        await limiter.close()
      } finally {
        await auth.close()
        await store.close()
        await toDatabase(after.db).query(`DROP SCHEMA ${schema} CASCADE`)
        await after.close()
        await storage.drop()
      }
    })
  })
}
