import type { PostgresStoreOptions } from '../../src/stores/postgres/options'
import { randomBytes } from 'node:crypto'
import { describe, expect, it, vi } from 'vitest'
import type { Actor } from '../../src/core/entities'
import { InvalidInputError, InvalidOptionsError, StorageError } from '../../src/core/errors'
import { createPasscodeHasher } from '../../src/core/hashing'
import { generatePasscode } from '../../src/core/passcode-format'
import type { Invalidation } from '../../src/ports/passcode-store'
import { createPasscodeAuth } from '../../src/service/create-passcode-auth'
import { toDatabase } from '../../src/stores/postgres/database'
import type { Database, PostgresDatabase } from '../../src/stores/postgres/database-interface'
import { migrate, postgresPartners, postgresStore } from '../../src/stores/postgres/index'
import { applyMigrations } from '../../src/stores/postgres/migrate'
import { MIGRATIONS } from '../../src/stores/postgres/migrations'
import { statements } from '../../src/stores/postgres/statements'
import { eventually, subscribeReady, audited } from '../conformance/store/fixtures'
import { openSqlFixture, uniqueSchema, type SchemaPool } from './sql-fixture'

const admin: Actor = { userId: 'u_admin', role: 'admin' }
const VERSIONS = MIGRATIONS.map((migration) => migration.version)
const LATEST = Math.max(...VERSIONS)
const UNUSED = {
  partners: null,
  previousHash: null,
  previousHashEndsAt: null,
  lastUsedAt: null,
  lastUsedPartner: null,
  disabledAt: null,
  description: '',
}

/** Connections for the SQL-only cases: the file's database and further connections to it. */
export interface SqlCaseConnections {
  main(): PostgresDatabase
  another(): Promise<{ db: PostgresDatabase; close(): Promise<void> }>
  /** Where fixtures hand their emptied schema on to the next case (the file drops them at the end). */
  readonly schemas?: SchemaPool
  /** Options every store gets besides its schema (e.g. `listenConnectionString` through a pooler). */
  readonly storeOptions?: PostgresStoreOptions
}

/** What only the SQL store has: migrations, what lands in the tables, the channel, options, partners. */
export function sqlStoreCases(name: string, connections: SqlCaseConnections): void {
  const open = () => openSqlFixture({ main: connections.main(), another: connections.another }, connections.schemas)

  describe(`${name}: migrations`, () => {
    it('migrates once and is a no-op after', async () => {
      const schema = uniqueSchema()
      expect(await migrate(connections.main(), { schema })).toEqual({ applied: VERSIONS, version: LATEST })
      expect(await migrate(connections.main(), { schema })).toEqual({ applied: [], version: LATEST })
      const rows = await toDatabase(connections.main()).query(`SELECT version FROM ${schema}.schema_migrations ORDER BY version`)
      expect(rows.map((row) => Number(row.version))).toEqual(VERSIONS)
      await toDatabase(connections.main()).query(`DROP SCHEMA ${schema} CASCADE`)
    })

    it('applies each version once when instances migrate at the same time', async () => {
      const schema = uniqueSchema()
      const others = await Promise.all([connections.another(), connections.another(), connections.another()])
      const reports = await Promise.all(others.map((other) => migrate(other.db, { schema })))
      expect(reports.map((report) => report.applied).sort()).toEqual([[], [], VERSIONS])
      await Promise.all(others.map((other) => other.close()))
      await toDatabase(connections.main()).query(`DROP SCHEMA ${schema} CASCADE`)
    })

    it('reads the recorded versions only on an up-to-date schema (no lock, no DDL); a missing version or schema takes the locked path', async () => {
      /** The database, counting transactions and recording each statement sent outside one. */
      const watched = () => {
        const database = toDatabase(connections.main())
        const seen = { transactions: 0, statements: [] as string[] }
        const wrapped: Database = {
          query: (text, params) => (seen.statements.push(text), database.query(text, params)),
          transaction: (fn) => (seen.transactions++, database.transaction(fn)),
          listen: (channel, onPayload, onGap) => database.listen(channel, onPayload, onGap),
        }
        return { wrapped, seen }
      }
      const schema = uniqueSchema()
      const allButLast = MIGRATIONS.slice(0, -1)
      try {
        const fresh = watched()
        expect(await applyMigrations(fresh.wrapped, schema, allButLast)).toMatchObject({ applied: allButLast.map((m) => m.version) })
        // One transaction, and one more after each online step that has versions after it
        // (they are applied, and the online step recorded, in that next transaction).
        const onlineSteps = allButLast.slice(0, -1).filter((migration) => migration.online !== undefined).length
        expect(fresh.seen.transactions).toBe(1 + onlineSteps)

        const behind = watched()
        expect(await applyMigrations(behind.wrapped, schema, MIGRATIONS)).toEqual({ applied: [LATEST], version: LATEST })
        expect(behind.seen.transactions).toBe(1)

        const current = watched()
        expect(await applyMigrations(current.wrapped, schema, MIGRATIONS)).toEqual({ applied: [], version: LATEST })
        expect(current.seen.transactions).toBe(0)
        expect(current.seen.statements).toHaveLength(2)
        for (const statement of current.seen.statements) expect(statement.trimStart()).toMatch(/^SELECT /)
      } finally {
        await toDatabase(connections.main()).query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`)
      }
    })
  })

  describe(`${name}: the lookup function (schema version 10)`, () => {
    it('returns, for each kind of match and for none, the row of the lookup statement, as JSON', async () => {
      const fixture = await open()
      const auth = createPasscodeAuth({ store: fixture.store, cache: false, partners: ['acme'], encryptionKeys: [{ id: 'k', key: randomBytes(32) }] })
      const bound = await auth.passcodes.create(admin, 'acc_1', { name: 'Bound', expiry: 30, partners: ['acme'], description: 'For Acme' })
      await auth.passcodes.disable(admin, 'acc_1', bound.passcode.id)
      const forever = await auth.passcodes.create(admin, 'acc_1', { name: 'Forever', expiry: 'forever' })
      const rotated = await auth.passcodes.rotate(admin, 'acc_1', forever.passcode.id, { overlapMinutes: 30 })
      await auth.userPasscodes.grant(admin, 'acc_1', 'u_1', { validity: { type: 'infinite' } })
      const userValue = (await auth.userPasscodes.reveal({ userId: 'u_1', role: 'member' }, 'acc_1')).value
      await auth.userPasscodes.grant(admin, 'acc_2', 'u_2', { validity: { type: 'finite', days: 7 } })
      await auth.userPasscodes.revoke(admin, 'acc_2', 'u_2')
      const revoked = await toDatabase(connections.main()).query(`SELECT hash FROM ${fixture.schema}.user_passcodes WHERE user_id = 'u_2'`)
      await toDatabase(connections.main()).query(`UPDATE ${fixture.schema}.accounts SET accepted_passcodes = 'both' WHERE account_id = 'acc_1'`)
      const hash = createPasscodeHasher()
      const hashes = [
        hash(bound.value),
        hash(forever.value),
        hash(rotated.value),
        hash(userValue),
        String(revoked[0]!.hash),
        hash(generatePasscode()),
      ]

      const database = toDatabase(connections.main())
      const sql = statements(fixture.schema)
      const kinds: unknown[] = []
      for (const key of hashes) {
        const [statement] = await database.query(`SELECT row_to_json(r)::text AS json FROM (${sql.findCredentialByHash.text}) AS r`, [key])
        const called = await database.query(sql.callFindCredentialByHash.text, [key])
        expect(called).toHaveLength(1)
        const expected = statement === undefined ? null : (JSON.parse(String(statement.json)) as Record<string, unknown>)
        const json = called[0]!.json
        expect(typeof json === 'string' ? JSON.parse(json) : json).toEqual(expected)
        kinds.push(expected === null ? null : [expected.kind, expected.accepted_passcodes])
      }
      // Current and previous hash of an account passcode, a live and a revoked user passcode, no match.
      expect(kinds).toEqual([['account', 'both'], ['account', 'both'], ['account', 'both'], ['user', 'both'], ['user', 'account'], null])
      // The same function over an array of keys (concurrent misses sharing one statement):
      // a row per key, at its position, duplicates and no-match included.
      const keys = [...hashes, hashes[0]!]
      const shared = await database.query(sql.callFindCredentialsByHashes.text, [keys])
      expect(shared).toHaveLength(keys.length)
      const byPosition = new Map(shared.map((row) => [Number(row.n), row.json]))
      for (const [i, key] of keys.entries()) {
        const [single] = await database.query(sql.callFindCredentialByHash.text, [key])
        const json = byPosition.get(i + 1)
        expect(typeof json === 'string' ? JSON.parse(json) : json).toEqual(typeof single!.json === 'string' ? JSON.parse(single!.json) : single!.json)
      }
      // The statement of keys (one value under several peppers, where the function cannot
      // be used): the lookup statement's row for each key that matched, with its position.
      const ofKeys = await database.query(`SELECT row_to_json(r)::text AS json FROM (${sql.findCredentialsByHashes.text}) AS r`, [keys])
      const expected = []
      for (const [i, key] of keys.entries()) {
        const [single] = await database.query(`SELECT row_to_json(r)::text AS json FROM (${sql.findCredentialByHash.text}) AS r`, [key])
        if (single !== undefined) expected.push({ n: i + 1, ...(JSON.parse(String(single.json)) as Record<string, unknown>) })
      }
      const rows = ofKeys.map((row) => JSON.parse(String(row.json)) as { n: number })
      expect(rows.sort((a, b) => a.n - b.n)).toEqual(expected)
      await auth.close()
      await fixture.close()
    })
  })

  describe(`${name}: at rest and on the wire`, () => {
    it('stores account passcodes as hash and hint only, user passcodes as hash and JWE', async () => {
      const fixture = await open()
      const auth = createPasscodeAuth({ store: fixture.store, encryptionKeys: [{ id: 'k', key: randomBytes(32) }] })
      const { value } = await auth.passcodes.create(admin, 'acc_1', { name: 'At rest', expiry: 30 })
      await auth.userPasscodes.grant(admin, 'acc_1', 'u_1', { validity: { type: 'infinite' } })
      const userValue = (await auth.userPasscodes.reveal({ userId: 'u_1', role: 'member' }, 'acc_1')).value
      const database = toDatabase(connections.main())
      const [account] = await database.query(`SELECT row_to_json(p)::text AS json, hash FROM ${fixture.schema}.account_passcodes p`)
      const [user] = await database.query(`SELECT row_to_json(u)::text AS json, ciphertext FROM ${fixture.schema}.user_passcodes u`)
      expect(account!.json).not.toContain(value)
      expect(account!.hash).toBe(createPasscodeHasher()(value))
      expect(user!.json).not.toContain(userValue)
      expect(String(user!.ciphertext).split('.')).toHaveLength(5)
      await auth.close()
      await fixture.close()
    })

    it('publishes exactly the invalidation as JSON on the channel, nothing secret', async () => {
      const fixture = await open()
      const payloads: string[] = []
      const listening = toDatabase(connections.main()).listen(`${fixture.schema}_invalidations`, (payload) => payloads.push(payload))
      await listening.ready
      const { store } = fixture
      const created = await store.createAccountPasscode(
        {
          id: 'pc_1',
          accountId: 'acc_1',
          name: 'N',
          nameKey: 'n',
          hash: 'a'.repeat(64),
          hint: 'psc_…Wire',
          expiry: 1,
          createdAt: 1,
          updatedAt: 1,
          expiresAt: 2,
          ...UNUSED,
        },
        100,
        audited('acc_1', 'passcode.created'),
      )
      expect(created.ok).toBe(true)
      await store.deleteAccountPasscode('acc_1', 'pc_1', audited('acc_1', 'passcode.deleted'))
      const expected: Invalidation = { type: 'account_passcode', accountId: 'acc_1', passcodeId: 'pc_1' }
      await eventually(() => expect(payloads.map((payload) => JSON.parse(payload))).toEqual([expected]))
      expect(payloads[0]).not.toContain('a'.repeat(64))
      await listening.stop()
      await fixture.close()
    })

    it('with listen: false, subscribers hear only the writes of their own instance', async () => {
      const fixture = await open()
      const local = postgresStore(connections.main(), { schema: fixture.schema, listen: false })
      const heard: Invalidation[] = []
      local.subscribe((invalidation) => heard.push(invalidation))
      await local.ready()
      await local.setAcceptedPasscodes('acc_local', 'both', audited('acc_local', 'account.accepted_passcodes_changed'))
      expect(heard).toEqual([{ type: 'account', accountId: 'acc_local' }])
      const remote = await subscribeReady(fixture.store, fixture.store)
      await fixture.store.setAcceptedPasscodes('acc_remote', 'user', audited('acc_remote', 'account.accepted_passcodes_changed'))
      await eventually(() => expect(remote).toContainEqual({ type: 'account', accountId: 'acc_remote' }))
      expect(heard).toEqual([{ type: 'account', accountId: 'acc_local' }])
      await local.close()
      await fixture.close()
    })
  })

  describe(`${name}: the webhook outbox (migration 17)`, () => {
    it('keeps every delivery with its event without the foreign key: queued in one statement, refused to delete or re-key under its deliveries', async () => {
      const fixture = await open()
      const database = toDatabase(connections.main())
      const s = fixture.schema
      const auth = createPasscodeAuth({ store: fixture.store, webhooks: { allowPrivateAddresses: true } })
      const all = await auth.webhooks.create(admin, 'acc_1', { url: 'http://127.0.0.1:9/all', events: 'all' })
      await auth.webhooks.create(admin, 'acc_1', { url: 'http://127.0.0.1:9/leaks', events: ['passcode.leaked'] })
      const off = await auth.webhooks.create(admin, 'acc_1', { url: 'http://127.0.0.1:9/off', events: 'all' })
      await auth.webhooks.update(admin, 'acc_1', off.endpoint.id, { enabled: false })
      const created = await auth.passcodes.create(admin, 'acc_1', { name: 'Kept', expiry: 30 })
      await auth.passcodes.update(admin, 'acc_1', created.passcode.id, { name: 'Kept 2' })
      await auth.leaks.report([{ token: created.value, source: 'content' }], { source: 'github' })
      await auth.webhooks.sendTest(admin, 'acc_1', all.endpoint.id)

      // Each event went to the enabled endpoints that subscribed to its type, and no delivery lacks its event.
      const rows = await database.query(
        `SELECT ev.type, count(d.id)::integer AS deliveries, count(*) FILTER (WHERE d.endpoint_id = $1)::integer AS to_off
         FROM ${s}.webhook_events ev LEFT JOIN ${s}.webhook_deliveries d ON d.event_id = ev.id
         GROUP BY ev.id, ev.type ORDER BY min(d.seq)`,
        [off.endpoint.id],
      )
      expect(rows.map((row) => [row.type, row.deliveries, row.to_off])).toEqual([
        ['passcode.created', 1, 0],
        ['passcode.updated', 1, 0],
        ['passcode.leaked', 2, 0],
        ['passcode.disabled', 1, 0],
        ['webhook.test', 1, 0],
      ])
      const orphans = `SELECT count(*)::integer AS n FROM ${s}.webhook_deliveries d WHERE NOT EXISTS (SELECT FROM ${s}.webhook_events ev WHERE ev.id = d.event_id)`
      expect((await database.query(orphans))[0]!.n).toBe(0)

      // What the foreign key refused on the events' side is refused as it was (23503), and changes nothing.
      const [first] = await database.query(`SELECT id FROM ${s}.webhook_events ORDER BY at, id LIMIT 1`)
      const refusedBy = { code: '23503' }
      await expect(database.query(`DELETE FROM ${s}.webhook_events WHERE id = $1`, [first!.id])).rejects.toMatchObject(refusedBy)
      await expect(database.query(`UPDATE ${s}.webhook_events SET id = id || '_x' WHERE id = $1`, [first!.id])).rejects.toMatchObject(refusedBy)
      await expect(database.query(`TRUNCATE ${s}.webhook_events`)).rejects.toMatchObject(refusedBy)
      expect((await database.query(`SELECT count(*)::integer AS n FROM ${s}.webhook_events`))[0]!.n).toBe(5)
      expect((await database.query(orphans))[0]!.n).toBe(0)
      // A change of anything but the id passes, and once an endpoint's deletion took its deliveries along, its events may go.
      await database.query(`UPDATE ${s}.webhook_events SET data = data WHERE id = $1`, [first!.id])
      for (const endpoint of await auth.webhooks.list(admin, 'acc_1')) await auth.webhooks.delete(admin, 'acc_1', endpoint.id)
      await database.query(`DELETE FROM ${s}.webhook_events WHERE id = $1`, [first!.id])
      await auth.close()
      await fixture.close()
    })
  })

  describe(`${name}: options and failures`, () => {
    it('rejects bad options and a bad db with InvalidOptionsError naming them', () => {
      const db = connections.main()
      const option = (fn: () => unknown) => {
        try {
          fn()
        } catch (error) {
          expect(error).toBeInstanceOf(InvalidOptionsError)
          return (error as InvalidOptionsError).option
        }
        throw new Error('expected an InvalidOptionsError')
      }
      expect(option(() => postgresStore(db, { schema: 'Bad-Name' }))).toBe('schema')
      expect(option(() => postgresStore(db, { schema: 'x'.repeat(49) }))).toBe('schema')
      expect(option(() => postgresStore(db, { channel: 'a;b' }))).toBe('channel')
      expect(option(() => postgresStore(db, { listen: 'yes' as unknown as boolean }))).toBe('listen')
      expect(option(() => postgresStore(db, { schemas: 'x' } as never))).toBe('options')
      expect(option(() => postgresStore({} as never))).toBe('db')
      expect(option(() => postgresPartners(db, { schema: '1abc' }))).toBe('schema')
    })

    it('fails store calls on a schema that was never migrated; the service answers 503 without internals', async () => {
      const store = postgresStore(connections.main(), { schema: uniqueSchema() })
      await expect(store.findCredentialByHash('a'.repeat(64))).rejects.toThrow()
      const auth = createPasscodeAuth({ store })
      expect(await auth.authenticate({ accountId: 'acc_1', passcode: generatePasscode() })).toMatchObject({ ok: false, statusCode: 503 })
      const failure = await auth.passcodes.create(admin, 'acc_1', { name: 'X', expiry: 1 }).catch((error: unknown) => error)
      expect(failure).toBeInstanceOf(StorageError)
      expect((failure as Error).message).toBe('The passcode store is unavailable')
      await store.close()
    })
  })

  describe(`${name}: refusals remembered by another instance`, () => {
    it('a change made on one instance lifts a refusal remembered by another at once (NOTIFY)', async () => {
      const fixture = await open()
      const peer = await fixture.peer()
      await subscribeReady(peer, fixture.store) // the peer's LISTEN is active
      const writer = createPasscodeAuth({ store: fixture.store, encryptionKeys: [{ id: 'k1', key: new Uint8Array(32).fill(1) }] })
      const reader = createPasscodeAuth({ store: peer })
      await writer.userPasscodes.grant(admin, 'acc_1', 'u_1', { validity: { type: 'finite', days: 30 } })
      const { value } = await writer.userPasscodes.reveal({ userId: 'u_1', role: 'member' }, 'acc_1')
      const credentials = { accountId: 'acc_1', passcode: value }
      // Refused (the account accepts account passcodes only), and remembered by the reader.
      expect(await reader.authenticate(credentials)).toMatchObject({ ok: false, statusCode: 400 })
      expect(await reader.authenticate(credentials)).toMatchObject({ ok: false, statusCode: 400 })
      await writer.accounts.setAcceptedPasscodes(admin, 'acc_1', 'both')
      await eventually(async () => expect((await reader.authenticate(credentials)).ok).toBe(true), 1_000)
      await writer.close()
      await reader.close()
      await fixture.close()
    })
  })

  describe(`${name}: partner registry`, () => {
    it('adds, lists, checks and removes partners by their normalised name', async () => {
      const fixture = await open()
      const partners = postgresPartners(connections.main(), { schema: fixture.schema })
      expect(await partners.add('  Acme ')).toBe(true)
      expect(await partners.add('ACME')).toBe(false)
      expect(await partners.add('globex')).toBe(true)
      expect(await partners.list()).toEqual(['acme', 'globex'])
      expect(await partners.isWhitelisted('acme')).toBe(true)
      expect(await partners.remove('Globex')).toBe(true)
      expect(await partners.remove('globex')).toBe(false)
      expect(await partners.list()).toEqual(['acme'])
      await expect(partners.add('   ')).rejects.toBeInstanceOf(InvalidInputError)
      await expect(partners.add('x'.repeat(129))).rejects.toBeInstanceOf(InvalidInputError)
      await fixture.close()
    })

    it('is the whitelist of GET /v1/connect', async () => {
      const fixture = await open()
      const partners = postgresPartners(connections.main(), { schema: fixture.schema })
      await partners.add('Acme')
      const auth = createPasscodeAuth({ store: fixture.store, partners })
      const { value } = await auth.passcodes.create(admin, 'acc_1', { name: 'P', expiry: 30 })
      const headers = { 'x-service-account-id': 'acc_1', 'x-service-passcode': value }
      expect((await auth.connect({ headers, partner: ' ACME ' })).statusCode).toBe(200)
      expect((await auth.connect({ headers, partner: 'initech' })).statusCode).toBe(403)
      await auth.close()
      await partners.close()
      await fixture.close()
    })

    it('answers from memory once loaded: no database read per lookup, and a synchronous answer', async () => {
      const fixture = await open()
      const partners = postgresPartners(connections.main(), { schema: fixture.schema })
      await partners.add('acme')
      // Until LISTEN is active and the list loaded, a lookup reads the database (a promise).
      await eventually(async () => {
        const answer = partners.isWhitelisted('acme')
        await answer
        expect(answer).toBe(true)
      }, 5_000)
      const query = vi.spyOn(toDatabase(connections.main()), 'query')
      try {
        for (let i = 0; i < 50; i++) {
          expect(partners.isWhitelisted('acme')).toBe(true)
          expect(partners.isWhitelisted('initech')).toBe(false)
        }
        expect(query).not.toHaveBeenCalled()
      } finally {
        query.mockRestore()
      }
      await partners.close()
      await fixture.close()
    })

    it('add and remove reach every instance at once (NOTIFY), also on another connection', async () => {
      const fixture = await open()
      const other = await connections.another()
      const here = postgresPartners(connections.main(), { schema: fixture.schema })
      const there = postgresPartners(other.db, { schema: fixture.schema })
      // Answered from memory (synchronously) once LISTEN is active and the list loaded.
      const fromMemory = (registry: typeof here, name: string, expected: boolean) =>
        eventually(async () => {
          const answer = registry.isWhitelisted(name)
          expect(typeof answer === 'boolean' ? answer : !expected).toBe(expected)
        }, 5_000)
      await fromMemory(here, 'acme', false)
      await fromMemory(there, 'acme', false)

      expect(await here.add('Acme')).toBe(true)
      expect(await here.isWhitelisted('acme')).toBe(true) // the writer's own copy, at once
      await fromMemory(there, 'acme', true) // the other instance's copy, by NOTIFY
      expect(await there.remove('ACME')).toBe(true)
      expect(await there.isWhitelisted('acme')).toBe(false)
      await fromMemory(here, 'acme', false)

      // A change that changes nothing publishes nothing. Read on the channel itself, between
      // two markers: PostgreSQL delivers notifications in commit order, so a payload of the
      // no-op would arrive before the second marker. (Whether `here` still answers from
      // memory is no proof: a late NOTIFY of the earlier remove may drop its copy now.)
      const channel = `${fixture.schema}_invalidations`
      const heard: string[] = []
      const listening = toDatabase(connections.main()).listen(channel, (payload) => heard.push(payload))
      await listening.ready
      const notify = (payload: string) => toDatabase(connections.main()).query('SELECT pg_notify($1::text, $2::text)', [channel, payload])
      await notify('before')
      await eventually(() => expect(heard).toContain('before'), 5_000)
      expect(await there.remove('acme')).toBe(false)
      await notify('after')
      await eventually(() => expect(heard).toContain('after'), 5_000)
      expect(heard.slice(heard.indexOf('before'))).toEqual(['before', 'after'])
      await listening.stop()
      await here.close()
      await there.close()
      await other.close()
      await fixture.close()
    })

    it('with listen: false, reads the database on every lookup (no other instance could tell it of a change)', async () => {
      const fixture = await open()
      const partners = postgresPartners(connections.main(), { schema: fixture.schema, listen: false })
      await partners.add('acme')
      const query = vi.spyOn(toDatabase(connections.main()), 'query')
      try {
        for (let i = 0; i < 3; i++) expect(await partners.isWhitelisted('acme')).toBe(true)
        expect(query).toHaveBeenCalledTimes(3)
      } finally {
        query.mockRestore()
      }
      await partners.close()
      await fixture.close()
    })

    it('answers a partner name with NUL or another control character, or over 128 characters, with the 403 body (SPEC 5.22)', async () => {
      const fixture = await open()
      const partners = postgresPartners(connections.main(), { schema: fixture.schema })
      await partners.add('Acme')
      const auth = createPasscodeAuth({ store: fixture.store, partners })
      const { value } = await auth.passcodes.create(admin, 'acc_1', { name: 'P', expiry: 30 })
      const headers = { 'x-service-account-id': 'acc_1', 'x-service-passcode': value }
      const cases: [sent: string, echoed: string][] = [
        ['a\u0000b', 'ab'],
        ['Acme\u0000', 'Acme'],
        ['a\u0085b\u007f', 'ab'],
        ['a\u001bb', 'ab'],
        ['x'.repeat(129), 'x'.repeat(128)],
      ]
      for (const [partner, echoed] of cases) {
        expect(await auth.connect({ headers, partner })).toEqual({
          statusCode: 403,
          body: { status: 'fail', error: `Partner not whitelisted ${echoed}`, code: 403 },
          reason: 'partner_not_whitelisted',
        })
      }
      await expect(partners.add('a\u0000b')).rejects.toBeInstanceOf(InvalidInputError)
      await auth.close()
      await fixture.close()
    })
  })
}
