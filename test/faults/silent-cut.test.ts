import { performance } from 'node:perf_hooks'
import type pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { generatePasscode, type AuditEvent } from '../../src/index'
import { faultServers, type FaultServers } from '../helpers/fault-servers'
import { pgbouncerAvailability } from '../helpers/pgbouncer'
import { postgresAvailability, type TestPostgres } from '../helpers/postgres'
import { admin } from '../helpers/service'
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy'
import { pgInstance, sleep, type PgInstance } from './pg-instances'

/**
 * Issue 32 with real faults, each test stating its bound. Instance A talks to
 * PostgreSQL directly and is never cut; instance B (its own pool, store and service)
 * reaches it through TCP proxies that, when told, go silent: every byte either way is
 * dropped and both sockets stay open (no FIN, no RST), as with a dropped NAT entry or a
 * blackholed route. The bounds (SPEC §5.32, §5.33, issue 32 item 8), with the default
 * 5 s proof:
 * - a passcode deleted on A is refused by B within 10 s of the delete, cut or not,
 *   direct or through PgBouncer in transaction mode, with or without the direct
 *   listening connection;
 * - B serves again within 10 s of the network healing, of a `pg_ctl restart`
 *   completing, or of a PgBouncer restart, and revocations after it reach B within the
 *   same 10 s;
 * - a valid passcode is never refused (4xx) by either instance at any time.
 * B's pool gets the settings docs/operations.md recommends.
 *
 * The cases run at the same time (most of each is waiting out a fault and its bound),
 * so each has the servers it faults to itself: every PgBouncer case its own PgBouncer,
 * the `pg_ctl restart` case its own cluster. The other cases use the file's database on
 * the run's shared PostgreSQL server, which none of them faults: each cuts only its own
 * proxies, in a schema of its own.
 */

const availability = postgresAvailability()
const restartable = availability.available && availability.source === 'binaries'
const bouncing = pgbouncerAvailability().available
const title = restartable
  ? 'silent network cuts, restarts and a transaction pooler (real faults)'
  : `silent network cuts, restarts and a transaction pooler (skipped: ${availability.available ? 'needs a temporary cluster; DATABASE_URL cannot be restarted' : availability.reason})`

const BOUND_MS = 10_000
const POLL_MS = 100
/** docs/operations.md: what a host passes to its `pg.Pool`. */
const RECOMMENDED_POOL: pg.PoolConfig = { keepAlive: true, keepAliveInitialDelayMillis: 10_000, connectionTimeoutMillis: 2_000 }

// Each case takes 10–18 s of waiting for its bounds (more on a loaded machine): the
// vitest timeout is not one of the bounds checked, so it leaves room.
describe.skipIf(!restartable).concurrent(title, { timeout: 60_000 }, () => {
  let servers: FaultServers
  let shared: TestPostgres

  beforeAll(async () => {
    servers = await faultServers()
    shared = servers.postgres
  })
  afterAll(async () => {
    await servers?.close()
  })

  const proxyTo = async (connectionString: string): Promise<TcpProxy & { url: string }> => {
    const url = new URL(connectionString)
    const proxy = servers.closeAfter(await startTcpProxy({ host: url.hostname, port: Number(url.port) }))
    return Object.assign(proxy, { url: proxy.via(connectionString) })
  }

  /** A on PostgreSQL directly; B as given; both listening (B's readiness bounded: through a pooler it may never come). */
  const fleet = async (server: TestPostgres, b: { via: string; listenVia?: string }) => {
    const schema = await servers.migratedSchema(server)
    const events: AuditEvent[] = []
    const a = pgInstance(server.connectionString, schema)
    const bInstance = pgInstance(b.via, schema, {
      pool: RECOMMENDED_POOL,
      ...(b.listenVia === undefined ? {} : { storeOptions: { listenConnectionString: b.listenVia } }),
      onEvent: (event) => void events.push(event),
    })
    servers.closeAfter(a)
    servers.closeAfter(bInstance)
    await Promise.all([a.store.ready(), Promise.race([bInstance.store.ready(), sleep(3_000)])])
    // B answers a read before the case starts (retried: through PgBouncer, a first read may fail).
    for (let tries = 0; ; tries++) {
      try {
        await bInstance.store.getAcceptedPasscodes('acc_warm')
        break
      } catch (error) {
        if (tries >= 50) throw error
        await sleep(POLL_MS)
      }
    }
    return { a, b: bInstance, events }
  }

  const verify = (instance: PgInstance, accountId: string, passcode: string) => instance.auth.authenticate({ accountId, passcode })

  /** Creates a passcode on A and has both instances accept (and cache) it. */
  const cachedOnBoth = async (a: PgInstance, b: PgInstance, name: string) => {
    const { value, passcode } = await a.auth.passcodes.create(admin, 'acc_cut', { name, expiry: 30 })
    for (const instance of [a, b]) expect(await verify(instance, 'acc_cut', value), name).toMatchObject({ ok: true })
    return { value, id: passcode.id }
  }

  /** Milliseconds from now until `instance` refuses `value`, polled every 100 ms; fails past the bound. */
  const untilRefused = async (instance: PgInstance, value: string): Promise<number> => {
    const started = performance.now()
    for (;;) {
      const outcome = await verify(instance, 'acc_cut', value)
      const elapsed = performance.now() - started
      if (!outcome.ok) return elapsed
      if (elapsed > BOUND_MS) throw new Error(`still accepted ${Math.round(elapsed)} ms after the delete`)
      await sleep(POLL_MS)
    }
  }

  /** Milliseconds from now until `instance` accepts `value` again; a 4xx on the way fails the test. */
  const untilServes = async (instance: PgInstance, value: string): Promise<number> => {
    const started = performance.now()
    for (;;) {
      const outcome = await verify(instance, 'acc_cut', value)
      const elapsed = performance.now() - started
      if (outcome.ok) return elapsed
      expect(outcome.statusCode, 'a valid passcode is never refused with a 4xx').toBeGreaterThanOrEqual(500)
      if (elapsed > BOUND_MS) throw new Error(`still not serving ${Math.round(elapsed)} ms after the fault ended`)
      await sleep(POLL_MS)
    }
  }

  /** B cut off silently: a delete on A is refused by B within 10 s; healed, B serves within 10 s and hears revocations again. */
  const cutAndHeal = async (a: PgInstance, b: PgInstance, proxies: TcpProxy[]) => {
    const doomed = await cachedOnBoth(a, b, 'Doomed')
    const live = await cachedOnBoth(a, b, 'Live')
    const later = await cachedOnBoth(a, b, 'Later')
    // B's pool full of open connections, as under load: each one that carries a statement during the cut stays broken.
    await Promise.all(Array.from({ length: 16 }, () => verify(b, 'acc_cut', generatePasscode())))
    for (const proxy of proxies) proxy.silence(true)
    await a.auth.passcodes.delete(admin, 'acc_cut', doomed.id)
    // Traffic meanwhile: more distinct reads than B's pool has connections, each stuck on a dead one.
    const burst = Promise.all(Array.from({ length: 12 }, () => verify(b, 'acc_cut', generatePasscode())))
    expect(await untilRefused(b, doomed.value)).toBeLessThanOrEqual(BOUND_MS)
    // 504 past the deadline, or 503 when no connection could be had (connectionTimeoutMillis): never a 4xx.
    for (const outcome of await burst) expect(!outcome.ok && outcome.statusCode >= 500).toBe(true)
    await sleep(1_000) // the cut lasts on; B keeps trying
    for (const proxy of proxies) proxy.silence(false)
    expect(await untilServes(b, live.value)).toBeLessThanOrEqual(BOUND_MS)
    // After healing, a revocation reaches B within the bound (from the store, or by invalidation once proven).
    await a.auth.passcodes.delete(admin, 'acc_cut', later.id)
    expect(await untilRefused(b, later.value)).toBeLessThanOrEqual(BOUND_MS)
    expect(await verify(b, 'acc_cut', doomed.value)).toMatchObject({ ok: false })
  }

  it('direct: a delete on A is refused by B within 10 s of a silent cut of B; healed, B serves within 10 s', async () => {
    const proxy = await proxyTo(shared.connectionString)
    const { a, b, events } = await fleet(shared, { via: proxy.url })
    await sleep(500)
    await cutAndHeal(a, b, [proxy])
    expect(events.filter((event) => event.type === 'invalidations.unproven')).toHaveLength(1)
  })

  it("direct: a cut too short to hold a proof that drops a delete's notification: B refuses within 10 s of the delete", async () => {
    // The fleet smoke's short cuts (2 to 2.5 s, the proof every 5 s) often fall between two
    // proofs. The listening connection that lost a notification is dead, as any TCP
    // connection with a hole in its stream: the next proof does not come back.
    const proxy = await proxyTo(shared.connectionString)
    const { a, b } = await fleet(shared, { via: proxy.url })
    await sleep(500)
    const doomed = await cachedOnBoth(a, b, 'Doomed')
    proxy.silence(true)
    const deleted = performance.now()
    await a.auth.passcodes.delete(admin, 'acc_cut', doomed.id)
    await sleep(300) // its notification reached the proxy and was dropped
    proxy.silence(false)
    const waited = performance.now() - deleted
    expect(waited + (await untilRefused(b, doomed.value))).toBeLessThanOrEqual(BOUND_MS)
  })

  it.skipIf(!bouncing)('PgBouncer (transaction mode) with the direct listening connection: the same bounds, both paths cut', async () => {
    const toBouncer = await proxyTo((await servers.ownPgBouncer()).connectionString)
    const toPostgres = await proxyTo(shared.connectionString)
    const { a, b, events } = await fleet(shared, { via: toBouncer.url, listenVia: toPostgres.url })
    await sleep(500)
    expect(events.filter((event) => event.type.startsWith('invalidations.'))).toEqual([])
    await cutAndHeal(a, b, [toBouncer, toPostgres])
  })

  it.skipIf(!bouncing)(
    'PgBouncer (transaction mode) without it: reported once at start with the fix, no cache trusted, the same bounds',
    async () => {
      const toBouncer = await proxyTo((await servers.ownPgBouncer()).connectionString)
      const { a, b, events } = await fleet(shared, { via: toBouncer.url })
      const started = performance.now()
      while (!events.some((event) => event.type === 'invalidations.unproven')) {
        expect(performance.now() - started, 'reported within the bound').toBeLessThan(BOUND_MS)
        await sleep(POLL_MS)
      }
      await cutAndHeal(a, b, [toBouncer])
      const reported = events.filter((event) => event.type.startsWith('invalidations.'))
      expect(reported[0]).toEqual({
        type: 'invalidations.unproven',
        at: expect.any(Date),
        message: expect.stringContaining('listenConnectionString'),
      })
      // Said once. (Through the pooler a proof may come back by accident now and then: a later loss is reported without the start's fix.)
      expect(reported.filter((event) => event.type === 'invalidations.unproven' && event.message.includes('listenConnectionString'))).toHaveLength(1)
    },
  )

  /** Verifications of live passcodes on both instances every 20 ms until `stop`; every answer kept. */
  const traffic = (instances: PgInstance[], values: string[]) => {
    const answers: { at: number; ok: boolean; status: number }[] = []
    let running = true
    const loops = instances.map(async (instance, n) => {
      for (let i = 0; running; i++) {
        const outcome = await verify(instance, 'acc_cut', values[(n + i) % values.length]!)
        answers.push({ at: performance.now(), ok: outcome.ok, status: outcome.ok ? 200 : outcome.statusCode })
        await sleep(20)
      }
    })
    return {
      answers,
      async stop() {
        running = false
        await Promise.all(loops)
      },
    }
  }

  /** A restart under traffic: no valid passcode refused (4xx) ever; every answer from 10 s after the restart completed on is a success; a delete after it reaches B within 10 s. */
  const restartUnderTraffic = async (a: PgInstance, b: PgInstance, restart: () => Promise<void>) => {
    const live = [await cachedOnBoth(a, b, 'Live 1'), await cachedOnBoth(a, b, 'Live 2')]
    const later = await cachedOnBoth(a, b, 'Later')
    const load = traffic(
      [a, b],
      live.map((passcode) => passcode.value),
    )
    await sleep(1_000)
    await restart()
    const restarted = performance.now()
    // A write needs the store: retried until A's pool has reconnected.
    for (;;) {
      try {
        await a.auth.passcodes.delete(admin, 'acc_cut', later.id)
        break
      } catch {
        expect(performance.now() - restarted).toBeLessThan(BOUND_MS)
        await sleep(POLL_MS)
      }
    }
    expect(performance.now() - restarted + (await untilRefused(b, later.value))).toBeLessThanOrEqual(BOUND_MS)
    await sleep(Math.max(0, restarted + BOUND_MS + 2_000 - performance.now()))
    await load.stop()
    expect(load.answers.filter((answer) => answer.status >= 400 && answer.status < 500)).toEqual([])
    const after = load.answers.filter((answer) => answer.at >= restarted + BOUND_MS)
    expect(after.length).toBeGreaterThan(10)
    expect(after.filter((answer) => !answer.ok)).toEqual([])
  }

  it('pg_ctl restart under traffic: no valid passcode refused, both serve within 10 s, revocations after it reach B within 10 s', async () => {
    const server = await servers.ownPostgres()
    const { a, b } = await fleet(server, { via: server.connectionString })
    await restartUnderTraffic(a, b, async () => {
      await server.stopServer!('fast')
      await server.startServer!()
    })
  })

  it.skipIf(!bouncing)(
    'PgBouncer restart under traffic: no valid passcode refused, B serves within 10 s, revocations after it reach B within 10 s',
    async () => {
      const bouncer = await servers.ownPgBouncer()
      const { a, b } = await fleet(shared, { via: bouncer.connectionString, listenVia: shared.connectionString })
      await restartUnderTraffic(a, b, async () => {
        await bouncer.stopServer()
        await sleep(500)
        await bouncer.startServer()
      })
    },
  )
})
