import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createPasscodeAuth, type AuditEvent } from '../../src/index'
import { postgresRateLimitStore, postgresStore } from '../../src/stores/postgres/index'
import { storeConformance } from '../conformance/store'
import { eventually } from '../conformance/store/fixtures'
import { pgbouncerAvailability, startTestPgBouncer, type TestPgBouncer } from '../helpers/pgbouncer'
import { startTestPostgres, type TestPostgres } from '../helpers/postgres'
import { admin } from '../helpers/service'
import { rateLimitStoreCases } from './rate-limit-cases'
import { openSqlFixture, schemaPool } from './sql-fixture'

/**
 * SPEC §5.33: the store through PgBouncer in transaction mode (Debian's pgbouncer, as
 * most hosted PostgreSQL offers it). Every statement goes through PgBouncer; `LISTEN`
 * goes over a direct connection (`listenConnectionString`), as docs/operations.md
 * says. The whole store conformance suite (verification, management, the cap under
 * concurrency, the notifier's SKIP LOCKED claims, invalidations) and the limiter's run
 * this way; then what happens without the direct connection.
 */

const availability = pgbouncerAvailability()
const title = availability.available
  ? 'PostgreSQL through PgBouncer (transaction mode)'
  : `PostgreSQL through PgBouncer (skipped: ${availability.reason})`

describe.skipIf(!availability.available)(title, () => {
  let server: TestPostgres
  let bouncer: TestPgBouncer
  let main: pg.Pool
  const pools = new Set<pg.Pool>()
  const schemas = schemaPool()

  const newPool = (): pg.Pool => {
    const pool = new pg.Pool({ connectionString: bouncer.connectionString, max: 10 })
    pool.on('error', () => {})
    pools.add(pool)
    return pool
  }
  const spare: pg.Pool[] = []
  const anotherPool = async () => {
    const pool = spare.pop() ?? newPool()
    return { db: pool, close: async () => void spare.push(pool) }
  }

  beforeAll(async () => {
    server = await startTestPostgres()
    bouncer = await startTestPgBouncer(server.connectionString)
    main = newPool()
  })
  afterAll(async () => {
    if (main !== undefined) await schemas.drop(main)
    await Promise.all([...pools].map((pool) => pool.end()))
    await bouncer?.stop()
    await server?.stop()
  })

  const direct = () => ({ listenConnectionString: server.connectionString })

  storeConformance('postgresStore through PgBouncer, LISTEN on a direct connection', {
    queryPlan: true,
    open: () => openSqlFixture({ main, another: anotherPool }, schemas, direct()),
  })

  rateLimitStoreCases('PgBouncer (LISTEN direct)', {
    main: () => main,
    another: anotherPool,
    get storeOptions() {
      return direct()
    },
  })

  describe('the delivery proof through PgBouncer', () => {
    it('with listenConnectionString: proven, nothing reported, and a delete on another instance is heard at once', async () => {
      const fixture = await openSqlFixture({ main, another: anotherPool }, undefined, { ...direct(), proofIntervalMs: 200 })
      const events: AuditEvent[] = []
      const auth = createPasscodeAuth({ store: fixture.store, partners: ['acme'], onEvent: (event) => void events.push(event) })
      const other = createPasscodeAuth({ store: await fixture.peer(), partners: ['acme'] })
      await fixture.store.ready()
      const { value, passcode } = await auth.passcodes.create(admin, 'acc_1', { name: 'One', expiry: 30 })
      expect(await auth.authenticate({ accountId: 'acc_1', passcode: value })).toMatchObject({ ok: true })
      await new Promise((resolve) => setTimeout(resolve, 1_000)) // five proofs
      await other.passcodes.delete(admin, 'acc_1', passcode.id)
      await eventually(async () => expect(await auth.authenticate({ accountId: 'acc_1', passcode: value })).toMatchObject({ ok: false }), 1_000)
      expect(events.filter((event) => event.type.startsWith('invalidations.'))).toEqual([])
      await auth.close()
      await other.close()
      await fixture.close()
    })

    it('without it: says so once, at start, with the fix, and trusts no cache (every verification reads the store)', async () => {
      const fixture = await openSqlFixture({ main, another: anotherPool }, undefined, { proofIntervalMs: 200 })
      const events: AuditEvent[] = []
      const auth = createPasscodeAuth({ store: fixture.store, partners: ['acme'], onEvent: (event) => void events.push(event) })
      const other = createPasscodeAuth({ store: await fixture.peer(), partners: ['acme'] })
      const { value, passcode } = await auth.passcodes.create(admin, 'acc_1', { name: 'One', expiry: 30 })
      await eventually(() => expect(events.some((event) => event.type === 'invalidations.unproven')).toBe(true), 5_000)
      expect(await auth.authenticate({ accountId: 'acc_1', passcode: value })).toMatchObject({ ok: true })
      await other.passcodes.delete(admin, 'acc_1', passcode.id)
      // No invalidation can arrive; the cache is not trusted, so the store says no at once.
      expect(await auth.authenticate({ accountId: 'acc_1', passcode: value })).toMatchObject({ ok: false, statusCode: 400 })
      await new Promise((resolve) => setTimeout(resolve, 1_000))
      const reported = events.filter((event) => event.type.startsWith('invalidations.'))
      expect(reported[0]).toEqual({
        type: 'invalidations.unproven',
        at: expect.any(Date),
        message: expect.stringContaining('listenConnectionString'),
      })
      // Said once. (Through the pooler a proof may come back by accident now and then: a later loss is reported without the start's fix.)
      expect(reported.filter((event) => event.type === 'invalidations.unproven' && event.message.includes('listenConnectionString'))).toHaveLength(1)
      await auth.close()
      await other.close()
      await fixture.close()
    })

    it('the limiter without it: announcements cannot arrive, so each check reads the shared count', async () => {
      const fixture = await openSqlFixture({ main, another: anotherPool })
      const other = await anotherPool()
      const a = postgresRateLimitStore(main, { schema: fixture.schema, proofIntervalMs: 200 })
      const b = postgresRateLimitStore(other.db, { schema: fixture.schema, proofIntervalMs: 200 })
      const key = `address:shared-${Date.now()}`
      const now = Date.now()
      await eventually(() => expect(b.retryAfterMs(key, 3, 60_000, now)).toBeInstanceOf(Promise), 5_000)
      expect(await b.retryAfterMs(key, 3, 60_000, now)).toBe(0)
      for (let i = 0; i < 3; i++) a.recordFailure(key, 3, 60_000, now + i)
      await a.flush()
      // B never hears A's announcement through PgBouncer; it reads the count instead.
      expect(await b.retryAfterMs(key, 3, 60_000, now + 3)).toBe(60_000 - 3)
      await a.close()
      await b.close()
      await other.close()
      await fixture.close()
    })

    it('a store without listenConnectionString is still a working store (reads and writes through PgBouncer)', async () => {
      const fixture = await openSqlFixture({ main, another: anotherPool }, undefined, { listen: false })
      const store = postgresStore(main, { schema: fixture.schema, listen: false })
      const auth = createPasscodeAuth({ store, cache: false, partners: ['acme'] })
      const { value } = await auth.passcodes.create(admin, 'acc_1', { name: 'One', expiry: 30 })
      for (let i = 0; i < 20; i++) expect(await auth.authenticate({ accountId: 'acc_1', passcode: value })).toMatchObject({ ok: true })
      await auth.close()
      await fixture.close()
    })
  })
})
