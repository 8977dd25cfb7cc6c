import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createPasscodeHasher } from '../../src/core/hashing'
import { generatePasscode } from '../../src/core/passcode-format'
import { createPasscodeAuth } from '../../src/service/create-passcode-auth'
import { toDatabase } from '../../src/stores/postgres/database'
import { postgresPartners, postgresStore } from '../../src/stores/postgres/index'
import { statements } from '../../src/stores/postgres/statements'
import { storeConformance } from '../conformance/store'
import { DAY_MS } from '../../src/core/time'
import { NOW, accountPasscode, claimRequest, eventually, subscribeReady, audited } from '../conformance/store/fixtures'
import { postgresAvailability, type TestPostgres } from '../helpers/postgres'
import { sharedTestPostgres } from '../helpers/shared-postgres'
import { migrationCases } from './migration-cases'
import { openSqlFixture, recordStatements, schemaPool, sharedMissCredentials, twoPepperMisses } from './sql-fixture'
import { rateLimitStoreCases } from './rate-limit-cases'
import { sqlStoreCases } from './sql-store-cases'

const availability = postgresAvailability()
const title = availability.available ? 'PostgreSQL server' : `PostgreSQL server (skipped: ${availability.reason})`

describe.skipIf(!availability.available)(title, () => {
  let server: TestPostgres
  let main: pg.Pool
  const pools = new Set<pg.Pool>()
  // The suites' cases hand their emptied schema on to the next (see SchemaPool); the
  // PostgreSQL-only cases below count the backends listening on their schema's channel,
  // so they keep a new schema each.
  const schemas = schemaPool()

  const newPool = (): pg.Pool => {
    const pool = new pg.Pool({ connectionString: server.connectionString, max: 10, connectionTimeoutMillis: 10_000 })
    // Tests kill backends on purpose; a host attaches its own handler the same way.
    pool.on('error', () => {})
    pools.add(pool)
    return pool
  }
  const endPool = async (pool: pg.Pool): Promise<void> => {
    pools.delete(pool)
    await pool.end()
  }
  // A peer's pool or client, once its case closed the peer store, is handed to the next
  // peer instead of being ended: a peer still gets connections of its own, apart from
  // the main one and from every other open peer's, without a new backend each time
  // (a PostgreSQL backend costs about 40 ms of CPU to start; the suites open hundreds
  // of peers). One with a connection still checked out, or broken, is ended instead.
  const sparePools: pg.Pool[] = []
  const spareClients: pg.Client[] = []
  const anotherPool = async () => {
    const pool = sparePools.pop() ?? newPool()
    const close = async () => {
      if (pool.totalCount === pool.idleCount && pool.waitingCount === 0) sparePools.push(pool)
      else await endPool(pool)
    }
    return { db: pool, close }
  }
  const clients = new Set<pg.Client>()
  const broken = new WeakSet<pg.Client>()
  const newClient = async (): Promise<pg.Client> => {
    const spare = spareClients.pop()
    if (spare !== undefined) return spare
    const client = new pg.Client({ connectionString: server.connectionString })
    client.on('error', () => broken.add(client))
    client.on('end', () => broken.add(client))
    await client.connect()
    clients.add(client)
    return client
  }
  const releaseClient = async (client: pg.Client): Promise<void> => {
    if (!broken.has(client)) return void spareClients.push(client)
    clients.delete(client)
    await client.end().catch(() => {})
  }
  const listenerPids = async (channel: string): Promise<number[]> => {
    const rows = await main.query('SELECT pid FROM pg_stat_activity WHERE query = $1', [`LISTEN ${channel}`])
    return rows.rows.map((row: { pid: number }) => row.pid)
  }

  beforeAll(async () => {
    // A database of the run's shared server: no case here stops the server, and each
    // counts only the sessions of its own schema's channel, its own pids or its database's.
    server = await sharedTestPostgres()
    main = newPool()
  })

  afterAll(async () => {
    if (main !== undefined) await schemas.drop(main)
    await Promise.all([...pools].map((pool) => pool.end()))
    await Promise.all([...clients].map((client) => client.end()))
    await server?.stop()
  })

  storeConformance('postgresStore on a pg Pool (peers: one pool each)', {
    queryPlan: true,
    open: () => openSqlFixture({ main, another: anotherPool }, schemas),
  })

  storeConformance('postgresStore on a pg Client (peers: one client each)', {
    queryPlan: true,
    open: async () => {
      const client = await newClient()
      const fixture = await openSqlFixture(
        {
          main: client,
          another: async () => {
            const peer = await newClient()
            return { db: peer, close: () => releaseClient(peer) }
          },
        },
        schemas,
      )
      return { ...fixture, close: () => fixture.close().finally(() => releaseClient(client)) }
    },
  })

  sqlStoreCases('postgresStore on a pg Pool', { main: () => main, another: anotherPool, schemas: schemas })
  rateLimitStoreCases('a pg Pool', { main: () => main, another: anotherPool })

  // The schema outlives the pools: one writes version 1, the next migrates and uses it.
  migrationCases('PostgreSQL server', { storage: async () => ({ open: anotherPool, drop: async () => {} }) })

  describe('PostgreSQL server only', () => {
    it('keeps receiving invalidations after its listening connection is killed', async () => {
      const fixture = await openSqlFixture({ main, another: anotherPool })
      const other = await fixture.peer()
      const received = await subscribeReady(other, fixture.store)
      const channel = `${fixture.schema}_invalidations`
      const [before] = await listenerPids(channel)
      expect(before).toBeTypeOf('number')
      await main.query('SELECT pg_terminate_backend($1)', [before])
      await eventually(async () => {
        await fixture.store.setAcceptedPasscodes('acc_after', 'both', audited('acc_after', 'account.accepted_passcodes_changed'))
        expect(received).toContainEqual({ type: 'account', accountId: 'acc_after' })
      }, 10_000)
      const after = await listenerPids(channel)
      expect(after).toHaveLength(1)
      expect(after[0]).not.toBe(before)
      await fixture.close()
    })

    it('close() ends the listening connection', async () => {
      const fixture = await openSqlFixture({ main, another: anotherPool })
      fixture.store.subscribe(() => {})
      await fixture.store.ready()
      const channel = `${fixture.schema}_invalidations`
      expect(await listenerPids(channel)).toHaveLength(1)
      await fixture.store.close()
      await eventually(async () => expect(await listenerPids(channel)).toEqual([]), 5_000)
      await fixture.close()
    })

    it('a store and a partner registry on one pool share one listening connection', async () => {
      const fixture = await openSqlFixture({ main, another: anotherPool })
      fixture.store.subscribe(() => {})
      await fixture.store.ready()
      const partners = postgresPartners(main, { schema: fixture.schema })
      await partners.add('acme')
      await eventually(async () => {
        const answer = partners.isWhitelisted('acme')
        await answer
        expect(answer).toBe(true) // answered from memory: its LISTEN is active
      }, 5_000)
      const channel = `${fixture.schema}_invalidations`
      expect(await listenerPids(channel)).toHaveLength(1)
      await fixture.store.close()
      expect(await listenerPids(channel)).toHaveLength(1) // still the registry's
      await partners.close()
      await eventually(async () => expect(await listenerPids(channel)).toEqual([]), 5_000)
      await fixture.close()
    })

    it('looks credentials up with a named prepared statement, and falls back when the server lost it', async () => {
      const fixture = await openSqlFixture({ main, another: anotherPool })
      const single = new pg.Pool({ connectionString: server.connectionString, max: 1, connectionTimeoutMillis: 10_000 })
      single.on('error', () => {})
      pools.add(single)
      const store = postgresStore(single, { schema: fixture.schema, listen: false })
      const auth = createPasscodeAuth({ store: fixture.store, cache: false })
      const { value } = await auth.passcodes.create({ userId: 'u_admin', role: 'admin' }, 'acc_1', { name: 'P', expiry: 30 })
      const hash = createPasscodeHasher()(value)
      const prepared = await store.findCredentialByHash(hash)
      expect(prepared).toMatchObject({ kind: 'account', record: { accountId: 'acc_1', name: 'P', hash } })
      const statements = await single.query(`SELECT name FROM pg_prepared_statements WHERE name LIKE 'passcode_auth_%'`)
      expect(statements.rows).toHaveLength(1)
      await single.query('DEALLOCATE ALL')
      expect(await store.findCredentialByHash(hash)).toEqual(prepared) // the unnamed statement, same record
      expect(await store.findCredentialByHash(hash)).toEqual(prepared)
      expect(await store.findCredentialByHash('0'.repeat(64))).toBeNull()
      await endPool(single)
      await fixture.close()
    })

    it('concurrent cache misses share named statements: fewer statements than misses, each its own answer; one at a time one each; after DEALLOCATE ALL too', async () => {
      // A pool that records every statement its connections send (`named: ` before a named one's text).
      // Two connections: both have the lookup statement named when DEALLOCATE ALL drops it below.
      const pool = new pg.Pool({ connectionString: server.connectionString, max: 2, connectionTimeoutMillis: 10_000 })
      pool.on('error', () => {})
      pools.add(pool)
      const texts = recordStatements(pool)
      const fixture = await openSqlFixture({ main: pool, another: anotherPool }, undefined, { listen: false })
      const sql = statements(fixture.schema)
      const auth = createPasscodeAuth({ store: fixture.store, cache: false })
      const { valid, refused } = await sharedMissCredentials(auth)
      const named = `named: SELECT row_to_json(r)::text AS json FROM (${sql.findCredentialByHash.text}) AS r`
      const namedMany = `named: ${sql.callFindCredentialsByHashes.text}`
      const lookupsIn = (sent: readonly string[]) =>
        sent.filter((text) => text.includes('find_credential_by_hash') || text.includes('account_passcodes p WHERE p.hash'))
      /** The 27 misses at once: right answers; the lookup statements they sent. */
      const concurrently = async () => {
        const from = texts.length
        const results = await Promise.all([...valid, ...refused].map((credential) => auth.authenticate(credential)))
        for (const result of results.slice(0, valid.length)) expect(result).toMatchObject({ ok: true })
        for (const result of results.slice(valid.length)) expect(result).toMatchObject({ ok: false, statusCode: 400 })
        return lookupsIn(texts.slice(from))
      }

      let shared = 0
      for (let round = 0; round < 3; round++) {
        const lookups = await concurrently()
        // Named, alone or shared: nothing unnamed.
        expect(lookups.every((text) => text === named || text === namedMany)).toBe(true)
        expect(lookups.length).toBeLessThan(valid.length + refused.length)
        shared += lookups.filter((text) => text === namedMany).length
      }
      expect(shared).toBeGreaterThan(0)
      // One at a time, as before: the named lookup statement once per miss.
      let from = texts.length
      for (const credential of valid.slice(0, 3)) expect(await auth.authenticate(credential)).toMatchObject({ ok: true })
      expect(lookupsIn(texts.slice(from))).toEqual([named, named, named])

      // Every connection of the pool loses its named statements.
      const connections = await Promise.all(Array.from({ length: pool.totalCount }, () => pool.connect()))
      for (const connection of connections) await connection.query('DEALLOCATE ALL')
      for (const connection of connections) connection.release()
      from = texts.length
      for (let round = 0; round < 3; round++) await concurrently()
      // Refused, then given up: the function's call, alone or shared, unnamed.
      const after = lookupsIn(texts.slice(from))
      const unnamedFrom = after.findIndex((text) => !text.startsWith('named: '))
      expect(unnamedFrom).toBeGreaterThan(-1)
      expect(
        after.slice(unnamedFrom).every((text) => text === sql.callFindCredentialByHash.text || text === sql.callFindCredentialsByHashes.text),
      ).toBe(true)
      for (const credential of valid.slice(0, 3)) expect(await auth.authenticate(credential)).toMatchObject({ ok: true })
      await auth.close()
      await fixture.close()
      await endPool(pool)
    })

    it('a cache miss under two peppers (a pepper change) is one statement for both hashes: the array form named, alone or shared', async () => {
      const pool = new pg.Pool({ connectionString: server.connectionString, max: 2, connectionTimeoutMillis: 10_000 })
      pool.on('error', () => {})
      pools.add(pool)
      const texts = recordStatements(pool)
      const fixture = await openSqlFixture({ main: pool, another: anotherPool }, undefined, { listen: false })
      const sql = statements(fixture.schema)
      const { behind, valid, unknown, close } = await twoPepperMisses(fixture.store)
      const lookupsIn = (sent: readonly string[]) =>
        sent.filter((text) => text.includes('find_credential_by_hash') || text.includes('account_passcodes p WHERE p.hash'))
      const namedMany = `named: ${sql.callFindCredentialsByHashes.text}`

      let from = texts.length
      for (const credential of valid.slice(0, 4)) expect(await behind.authenticate(credential)).toMatchObject({ ok: true })
      expect(await behind.authenticate(unknown[0]!)).toMatchObject({ ok: false, reason: 'unknown_passcode' })
      expect(lookupsIn(texts.slice(from))).toEqual(Array.from({ length: 5 }, () => namedMany))

      from = texts.length
      const results = await Promise.all([...valid, ...unknown].map((credential) => behind.authenticate(credential)))
      expect(results.map((result) => result.ok)).toEqual([...valid.map(() => true), ...unknown.map(() => false)])
      const lookups = lookupsIn(texts.slice(from))
      expect(lookups.every((text) => text === namedMany)).toBe(true)
      expect(lookups.length).toBeLessThan(valid.length + unknown.length)
      await close()
      await fixture.close()
      await endPool(pool)
    })

    // The function is STABLE, so every call in one statement reads that statement's
    // snapshot (PostgreSQL, "Function Volatility Categories"): a row that another session
    // re-hashes from the first key to the second while the statement runs is found under
    // the first key only. The statement is held after its first row with an advisory lock.
    it.each([
      ['the function over an array of keys', 'callFindCredentialsByHashes'],
      ['the statement of keys', 'findCredentialsByHashes'],
    ] as const)('%s reads every key in one snapshot: a re-hash committed between two keys is not seen', async (_, form) => {
      const fixture = await openSqlFixture({ main, another: anotherPool })
      const record = accountPasscode()
      await fixture.store.createAccountPasscode(record, 100, audited(record, 'passcode.created'))
      const moved = createPasscodeHasher()(generatePasscode())
      const { text } = statements(fixture.schema)[form]
      const json = form === 'findCredentialsByHashes' ? 'row_to_json(x)::text' : 'x.json'
      const held = `SELECT x.n, ${json} AS json, CASE WHEN x.n = 1 THEN pg_advisory_lock(4949)::text END AS waited FROM (${text}) AS x`
      const [holder, reader] = [await main.connect(), await main.connect()]
      try {
        await holder.query('SELECT pg_advisory_lock(4949)')
        const readerPid = (await reader.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid
        const reading = reader.query<{ n: string; json: string | null }>(held, [[record.hash, moved]])
        await eventually(async () => {
          const waiting = await main.query(`SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND NOT granted AND pid = $1`, [readerPid])
          expect(waiting.rows).toHaveLength(1)
        }, 5_000)
        const rehash = { kind: 'account', accountId: record.accountId, id: record.id, fromHash: record.hash, toHash: moved, pepperId: 'p' } as const
        expect(await fixture.store.rehashCredential(rehash)).toBe(true)
        await holder.query('SELECT pg_advisory_unlock(4949)')
        const found = (await reading).rows.map((row) => [Number(row.n), row.json === null ? null : (JSON.parse(row.json) as { hash: string }).hash])
        expect(found.filter(([, hash]) => hash !== null)).toEqual([[1, record.hash]])
        // A statement started after the commit finds it under the second key only.
        expect(await fixture.store.findCredentialsByHashes([record.hash, moved])).toEqual([null, expect.objectContaining({ kind: 'account' })])
      } finally {
        await reader.query('SELECT pg_advisory_unlock_all()').catch(() => {})
        await holder.query('SELECT pg_advisory_unlock_all()').catch(() => {})
        reader.release()
        holder.release()
      }
      await fixture.close()
    })

    it('rolls back a transaction whose connection drops, and the pool carries on', async () => {
      const fixture = await openSqlFixture({ main, another: anotherPool })
      const pool = newPool()
      const attempt = toDatabase(pool).transaction(async (tx) => {
        await tx.query(`INSERT INTO ${fixture.schema}.partners (name, added_at) VALUES ('half-done', 0)`)
        const [row] = await tx.query('SELECT pg_backend_pid() AS pid')
        await main.query('SELECT pg_terminate_backend($1)', [row!.pid])
        await tx.query('SELECT 1')
      })
      await expect(attempt).rejects.toThrow()
      expect((await main.query(`SELECT name FROM ${fixture.schema}.partners`)).rows).toEqual([])
      const store = postgresStore(pool, { schema: fixture.schema })
      await expect(store.setAcceptedPasscodes('acc_1', 'user', audited('acc_1', 'account.accepted_passcodes_changed'))).resolves.toBeUndefined()
      expect(await store.getAcceptedPasscodes('acc_1')).toBe('user')
      await endPool(pool)
      await fixture.close()
    })

    // A concurrent runner claims a notification after this claim's snapshot was taken
    // (here: a transaction that inserted it and commits while the claim waits on its
    // row). The claim passes over it, and still fills its batch with what else is due:
    // a batch shorter than its limit tells the notifier nothing more is due.
    it('a claim that loses a notification to a concurrent runner still fills its batch with the next due one', async () => {
      const fixture = await openSqlFixture({ main, another: anotherPool })
      const [first, second] = [0, 1].map((i) => accountPasscode({ expiresAt: NOW - DAY_MS + i }))
      for (const record of [first!, second!]) await fixture.store.createAccountPasscode(record, 100, audited(record, 'passcode.created'))
      const other = await main.connect()
      try {
        await other.query('BEGIN')
        await other.query(
          `INSERT INTO ${fixture.schema}.notifications (passcode_id, kind, expires_at, token, claimed_until) VALUES ($1, 'expired', $2, 'other', $3)`,
          [first!.id, first!.expiresAt, NOW + 60_000],
        )
        const claim = fixture.store.claimNotifications(claimRequest(NOW, { limit: 1 }))
        await eventually(async () => {
          const waiting = await main.query(
            `SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%notifications%'`,
          )
          expect(waiting.rows).toHaveLength(1)
        }, 5_000)
        await other.query('COMMIT')
        const claims = await claim
        expect(claims.map((c) => c.passcodeId)).toEqual([second!.id])
      } finally {
        other.release()
      }
      await fixture.close()
    })

    it('a store whose pool is gone throws, and the service answers 503', async () => {
      const fixture = await openSqlFixture({ main, another: anotherPool })
      const pool = newPool()
      const store = postgresStore(pool, { schema: fixture.schema })
      await endPool(pool)
      await expect(store.getAcceptedPasscodes('acc_1')).rejects.toThrow()
      const auth = createPasscodeAuth({ store, cache: false })
      expect(await auth.authenticate({ accountId: 'acc_1', passcode: generatePasscode() })).toMatchObject({ ok: false, statusCode: 503 })
      await fixture.close()
    })
  })
})
