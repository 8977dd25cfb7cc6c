import { performance } from 'node:perf_hooks'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ConfigurationError, generatePasscode, type AuditEvent } from '../../src/index'
import { migrate, postgresPartners, postgresRateLimitStore, postgresStore } from '../../src/stores/postgres/index'
import { faultServers, type FaultServers } from '../helpers/fault-servers'
import { pgbouncerAvailability } from '../helpers/pgbouncer'
import { postgresAvailability, type TestPostgres } from '../helpers/postgres'
import { admin } from '../helpers/service'
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy'
import { uniqueSchema } from '../stores/sql-fixture'
import { pgInstance, sleep, type PgInstance } from './pg-instances'

/**
 * Issue 48 with real faults: a proxy that hangs as a load balancer or pooler that
 * stopped working does (open connections stop forwarding, both sockets kept open; new
 * connections are accepted and never answered, not even after the heal).
 * - A `pg` Pool as pg's README makes it (no `connectionTimeoutMillis`) keeps every slot
 *   that such a connection attempt took, after the heal too: nothing but the pool's own
 *   connect timeout ever abandons one, and the library gets no handle on it. So
 *   `postgresStore` refuses that pool at creation, naming the setting to add.
 * - With the settings of docs/operations.md, instance B (directly, or through PgBouncer
 *   in transaction mode with the direct listening connection, every path through such a
 *   proxy) answers verifications again within 10 s of the heal, never refuses a valid
 *   passcode (4xx), and proves delivery on its listening connection again within the same
 *   10 s. Instance A is direct and never cut.
 * The cases run at the same time and share the file's database on the run's shared
 * PostgreSQL server, which none of them faults; each has its own proxies, schema and
 * PgBouncer.
 */

const availability = postgresAvailability()
const bouncing = pgbouncerAvailability().available
const title = availability.available
  ? 'a hung load balancer in front of a pg Pool (real faults)'
  : `a hung load balancer in front of a pg Pool (skipped: ${availability.reason})`

const BOUND_MS = 10_000
const POLL_MS = 100
/** Long enough for B's statements on its open connections to pass their 5 s deadline, be destroyed and be replaced by attempts the balancer strands; and for a proof (every 5 s) to fail. */
const CUT_MS = 8_000
/** The pool as pg's README makes it: `connectionTimeoutMillis` and `keepAlive` at pg's defaults. */
const PG_README_POOL: pg.PoolConfig = { max: 4 }
/** docs/operations.md: what a host passes to its `pg.Pool` (at the README's size). */
const RECOMMENDED_POOL: pg.PoolConfig = { max: 4, connectionTimeoutMillis: 2_000, keepAlive: true, keepAliveInitialDelayMillis: 10_000 }

// Each case waits out its cut and its bound (up to 20 s, more on a loaded machine): the
// vitest timeout is not one of the bounds checked, so it leaves room.
describe.skipIf(!availability.available).concurrent(title, { timeout: 60_000 }, () => {
  let servers: FaultServers
  let shared: TestPostgres
  const proxies: TcpProxy[] = []

  beforeAll(async () => {
    servers = await faultServers()
    shared = servers.postgres
  })
  afterAll(async () => {
    // The proxies first: a pool ends only once its stranded connection attempts have failed.
    for (const proxy of proxies) await proxy.close()
    await servers?.close()
  })

  const proxyTo = async (connectionString: string): Promise<TcpProxy & { url: string }> => {
    const url = new URL(connectionString)
    const proxy = await startTcpProxy({ host: url.hostname, port: Number(url.port) })
    proxies.push(proxy)
    return Object.assign(proxy, { url: proxy.via(connectionString) })
  }

  it("pg's README pool keeps the slots its stranded connection attempts took, past the bound after the heal (why postgresStore refuses it)", async () => {
    const proxy = await proxyTo(shared.connectionString)
    const readme = new pg.Pool({ connectionString: proxy.url, ...PG_README_POOL })
    readme.on('error', () => {})
    servers.closeAfter({ close: () => readme.end() })
    await readme.query('SELECT 1')
    proxy.hang(true)
    // Two more than the pool has: its open connection goes silent, three attempts are stranded, two wait.
    const stuck = Array.from({ length: 6 }, () =>
      readme.query('SELECT 1').then(
        () => 'answered',
        () => 'failed',
      ),
    )
    const hungAt = performance.now()
    while (proxy.stranded < 3) {
      expect(performance.now() - hungAt, 'the attempts reach the balancer').toBeLessThan(BOUND_MS)
      await sleep(POLL_MS)
    }
    proxy.hang(false)
    const healed = performance.now()
    // Polled until past the bound: not one statement answers, none fails, and the pool stays full.
    let settled = 0
    for (const query of stuck) void query.then(() => settled++)
    const probe = readme.query('SELECT 1').then(() => 'answered')
    while (performance.now() - healed <= BOUND_MS) {
      expect(settled).toBe(0)
      expect(await Promise.race([probe, sleep(POLL_MS).then(() => 'waiting')])).toBe('waiting')
    }
    expect(readme.totalCount).toBe(4)
    expect(proxy.stranded).toBe(3)
  })

  it("postgresStore, postgresPartners and postgresRateLimitStore refuse pg's README pool at creation, naming connectionTimeoutMillis: 2000", async () => {
    const readme = new pg.Pool({ connectionString: shared.connectionString, ...PG_README_POOL })
    servers.closeAfter({ close: () => readme.end() })
    const schema = uniqueSchema()
    // A migration serves no request: it takes the pool.
    await migrate(readme, { schema })
    for (const make of [
      () => postgresStore(readme, { schema }),
      () => postgresPartners(readme, { schema }),
      () => postgresRateLimitStore(readme, { schema }),
    ]) {
      expect(make).toThrow(ConfigurationError)
      expect(make).toThrow(/connectionTimeoutMillis: 2000/)
    }
  })

  /** A on PostgreSQL directly; B through `via` (and `listenVia`) with the recommended pool; B answers a read and has proven delivery before the case starts. */
  const fleet = async (b: { via: string; listenVia?: string }) => {
    const schema = await servers.migratedSchema()
    const events: { at: number; event: AuditEvent }[] = []
    const a = pgInstance(shared.connectionString, schema)
    servers.closeAfter(a)
    const bInstance = pgInstance(b.via, schema, {
      pool: RECOMMENDED_POOL,
      ...(b.listenVia === undefined ? {} : { storeOptions: { listenConnectionString: b.listenVia } }),
      onEvent: (event) => void events.push({ at: performance.now(), event }),
    })
    servers.closeAfter(bInstance)
    await Promise.all([a.store.ready(), bInstance.store.ready()])
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

  const verify = (instance: PgInstance, passcode: string) => instance.auth.authenticate({ accountId: 'acc_hung', passcode })

  /** Milliseconds from now until `instance` accepts `value`; a 4xx on the way fails the test, and so does the bound. */
  const untilServes = async (instance: PgInstance, value: string): Promise<number> => {
    const started = performance.now()
    for (;;) {
      const outcome = await verify(instance, value)
      const elapsed = performance.now() - started
      if (outcome.ok) return elapsed
      expect(outcome.statusCode, 'a valid passcode is never refused with a 4xx').toBeGreaterThanOrEqual(500)
      if (elapsed > BOUND_MS) throw new Error(`still answering ${outcome.statusCode} ${Math.round(elapsed)} ms after the heal`)
      await sleep(POLL_MS)
    }
  }

  /**
   * The balancer hangs for {@link CUT_MS} while B gets a cache miss and a write every
   * 200 ms (each needs a connection of its pool), then heals. B then accepts, within
   * the bound, a valid passcode it never saw (so it reads its store); its listening
   * connection, replaced during the cut, proves delivery again within the bound.
   */
  const hangAndHeal = async (a: PgInstance, b: PgInstance, events: { at: number; event: AuditEvent }[], cut: TcpProxy[]) => {
    const { value: fresh } = await a.auth.passcodes.create(admin, 'acc_hung', { name: 'Fresh', expiry: 30 })
    for (const proxy of cut) proxy.hang(true)
    const cutAt = performance.now()
    const requests: Promise<unknown>[] = []
    for (let n = 1; performance.now() - cutAt < CUT_MS; n++) {
      requests.push(verify(b, generatePasscode()))
      // A write on B too: each takes a connection of its own (concurrent misses share statements).
      requests.push(b.auth.passcodes.create(admin, 'acc_hung', { name: `During ${n}`, expiry: 30 }).catch(() => undefined))
      await sleep(200)
    }
    const stranded = cut.map((proxy) => proxy.stranded)
    for (const proxy of cut) proxy.hang(false)
    const healed = performance.now()
    expect(
      stranded.every((count) => count > 0),
      `connection attempts the balancer stranded, per proxy: ${stranded.join(', ')}`,
    ).toBe(true)
    expect(await untilServes(b, fresh)).toBeLessThanOrEqual(BOUND_MS)
    // The proof (every 5 s) failed during the cut, or at its very end on a loaded machine, and came back after it.
    const lost = () => events.find(({ at, event }) => event.type === 'invalidations.unproven' && at >= cutAt)
    while (!events.some(({ at, event }) => event.type === 'invalidations.proven' && at > (lost()?.at ?? Number.POSITIVE_INFINITY))) {
      expect(performance.now() - healed, 'delivery lost and proven again within the bound').toBeLessThanOrEqual(BOUND_MS)
      await sleep(POLL_MS)
    }
    // Every request made during the cut was answered (a 5xx, or a 400 for an unknown passcode read after the heal): none hangs.
    await Promise.all(requests)
  }

  it('direct, the pool as docs/operations.md makes it: B serves and proves delivery again within 10 s of the heal', async () => {
    const proxy = await proxyTo(shared.connectionString)
    const { a, b, events } = await fleet({ via: proxy.url })
    await hangAndHeal(a, b, events, [proxy])
  })

  it.skipIf(!bouncing)('PgBouncer with the direct listening connection, both through hung balancers: the same bounds', async () => {
    const toBouncer = await proxyTo((await servers.ownPgBouncer()).connectionString)
    const toPostgres = await proxyTo(shared.connectionString)
    const { a, b, events } = await fleet({ via: toBouncer.url, listenVia: toPostgres.url })
    await hangAndHeal(a, b, events, [toBouncer, toPostgres])
  })
})
