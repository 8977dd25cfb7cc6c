import { performance } from 'node:perf_hooks'
import type pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startExpiryNotifier, startWebhookDispatcher } from '../../src/index'
import { faultServers, type FaultServers } from '../helpers/fault-servers'
import { pgbouncerAvailability, type TestPgBouncer } from '../helpers/pgbouncer'
import { admin } from '../helpers/service'
import { pgInstance, sleep, type PgInstance } from './pg-instances'

/**
 * Issue 46's delivery soak counted two 504s 14 s after a PgBouncer restart. Does the
 * pool keep dead connections after one, so that cache misses fail long after PgBouncer
 * is back? An instance on `postgresStore` through PgBouncer (transaction mode; `LISTEN`
 * direct, as docs/operations.md says), the pool docs/operations.md recommends with the
 * soak's `max: 10`, every verification a cache miss (`cache: false`), its webhook
 * dispatcher and notifier running as a host's do. The pool is warmed to all 10
 * connections; PgBouncer is killed (`kill -9`, and SIGTERM: its immediate shutdown) under
 * verification traffic and started again on the same port. The bound, from the moment it
 * accepts connections again: each traffic loop's verifications answer 200 after at most
 * one failed attempt, that failure a 503 or 504, and every answer comes within the
 * service's deadline (2 s) plus room for a busy machine, never a hang.
 */

const availability = pgbouncerAvailability()
const title = availability.available
  ? 'a PgBouncer restart: cache misses served again at once (real faults)'
  : `a PgBouncer restart: cache misses served again at once (skipped: ${availability.reason})`

/** The service's default `timeoutMs`; answers past it plus this margin are hangs. */
const DEADLINE_MS = 2_000
const HANG_MARGIN_MS = 2_000
const LOOPS = 6
/** How long traffic runs after PgBouncer is back: 14 s, past when the soak saw its 504s. */
const AFTER_MS = 15_000
const RECOMMENDED_POOL: pg.PoolConfig = { max: 10, keepAlive: true, keepAliveInitialDelayMillis: 10_000, connectionTimeoutMillis: 2_000 }

interface Answer {
  readonly loop: number
  readonly at: number
  readonly status: number
  readonly elapsedMs: number
}

describe.skipIf(!availability.available).concurrent(title, { timeout: 90_000 }, () => {
  // The file's database on the run's shared PostgreSQL server (never stopped here); each case restarts a PgBouncer of its own.
  let servers: FaultServers

  beforeAll(async () => {
    servers = await faultServers()
  })
  afterAll(async () => {
    await servers?.close()
  })

  const instanceBehind = async (bouncer: TestPgBouncer): Promise<PgInstance> => {
    const schema = await servers.migratedSchema()
    const instance = pgInstance(bouncer.connectionString, schema, {
      cache: false,
      mailer: { send: () => Promise.resolve() },
      recipients: (accountId) => [`admin+${accountId}@example.test`],
      pool: RECOMMENDED_POOL,
      storeOptions: { listenConnectionString: servers.postgres.connectionString },
    })
    servers.closeAfter(instance)
    await instance.store.ready()
    // As the soak's instances run them: their passes borrow the same pool.
    const dispatcher = startWebhookDispatcher(instance.auth)
    const notifier = startExpiryNotifier(instance.auth, { intervalMs: 2_000 })
    servers.closeAfter({
      close: async () => {
        await Promise.all([dispatcher.stop(), notifier.stop()])
      },
    })
    return instance
  }

  const restartCase = (signal: 'SIGKILL' | 'SIGTERM') => async () => {
    const bouncer = await servers.ownPgBouncer()
    const instance = await instanceBehind(bouncer)
    const values: string[] = []
    for (let i = 0; i < 4; i++) values.push((await instance.auth.passcodes.create(admin, 'acc_bounce', { name: `Live ${i}`, expiry: 30 })).value)
    // Warm: every connection of the pool open (each with a statement through PgBouncer) and idle.
    const held = await Promise.all(Array.from({ length: 10 }, () => instance.pool.connect()))
    await Promise.all(held.map((client) => client.query('SELECT 1')))
    for (const client of held) client.release()
    expect(instance.pool.totalCount).toBe(10)

    const answers: Answer[] = []
    let running = true
    const started = performance.now()
    const now = () => performance.now() - started
    const loops = Array.from({ length: LOOPS }, async (_, loop) => {
      for (let i = 0; running; i++) {
        const at = now()
        const outcome = await instance.auth.authenticate({ accountId: 'acc_bounce', passcode: values[(loop + i) % 4]! })
        answers.push({ loop, at, status: outcome.ok ? 200 : outcome.statusCode, elapsedMs: now() - at })
        await sleep(20)
      }
    })
    await sleep(500)
    // Every connection still in the pool (idle or on loan) when PgBouncer goes.
    expect(instance.pool.totalCount).toBe(10)
    const pid = bouncer.pid!
    const downAt = now()
    process.kill(pid, signal)
    await bouncer.stopServer()
    await sleep(300)
    await bouncer.startServer()
    const upAt = now()
    await sleep(AFTER_MS)
    running = false
    await Promise.all(loops)

    expect(answers.filter((answer) => answer.elapsedMs > DEADLINE_MS + HANG_MARGIN_MS)).toEqual([])
    expect(answers.filter((answer) => answer.at + answer.elapsedMs < downAt && answer.status !== 200)).toEqual([])
    expect(answers.filter((answer) => answer.status !== 200 && answer.status !== 503 && answer.status !== 504)).toEqual([])
    const after = answers.filter((answer) => answer.at >= upAt)
    for (let loop = 0; loop < LOOPS; loop++) {
      const mine = after.filter((answer) => answer.loop === loop)
      expect(mine.length, `loop ${loop}`).toBeGreaterThan(10)
      // At most its first answer after PgBouncer is back failed (on a pooled connection whose close the instance had not read yet).
      expect(
        mine.slice(1).filter((answer) => answer.status !== 200),
        `loop ${loop}`,
      ).toEqual([])
    }
  }

  it('kill -9 of PgBouncer under cache-miss traffic on a warm pool of 10', restartCase('SIGKILL'))
  it('SIGTERM of PgBouncer (its immediate shutdown) under cache-miss traffic on a warm pool of 10', restartCase('SIGTERM'))
})
