import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createPasscodeAuth, startExpiryNotifier, type NotificationReport, type PasscodeAuth } from '../../src/index'
import { DAY_MS } from '../../src/core/time'
import { migrate, postgresStore } from '../../src/stores/postgres/index'
import { postgresAvailability, type TestPostgres } from '../helpers/postgres'
import { sharedTestPostgres } from '../helpers/shared-postgres'
import { admin, manualClock } from '../helpers/service'
import { everyone, scriptedMailer, sentKeys, tally } from './notify-fixtures'

/**
 * SPEC 5.14 across processes: four notifiers, each with its own connection pool (as
 * four host instances would have), over ONE PostgreSQL database. The store's claims
 * (FOR UPDATE SKIP LOCKED) must make each email go out exactly once, while flaky,
 * slow mailers force releases, retries and interleaving.
 */
const availability = postgresAvailability()

describe.skipIf(!availability.available)(
  `four concurrent notifiers over one PostgreSQL store${availability.available ? '' : ` (skipped: ${availability.reason})`}`,
  () => {
    let server: TestPostgres
    const pools: pg.Pool[] = []
    const schema = `notify_${process.pid}_${Date.now().toString(36)}`

    beforeAll(async () => {
      server = await sharedTestPostgres()
      for (let index = 0; index < 4; index += 1)
        pools.push(new pg.Pool({ connectionString: server.connectionString, max: 4, connectionTimeoutMillis: 10_000 }))
      await migrate(pools[0]!, { schema })
    })

    afterAll(async () => {
      await pools[0]?.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch(() => {})
      await Promise.all(pools.map((pool) => pool.end()))
      await server?.stop()
    })

    it('sends each "expiring soon" and each "expired" email exactly once', async () => {
      const clock = manualClock()
      const runners = pools.map((pool, runner) => {
        // Fails every other call, on a different phase per runner, after 0 to 4 ms.
        const mailer = scriptedMailer(
          (call) => (call + runner) % 2 === 0,
          () => Math.floor(Math.random() * 5),
        )
        const auth: PasscodeAuth = createPasscodeAuth({
          store: postgresStore(pool, { schema, listen: false }),
          mailer,
          recipients: everyone,
          clock,
          notifier: { batchSize: 5 },
        })
        return { auth, mailer }
      })

      const expiringSoon: string[] = []
      const expired: string[] = []
      for (let index = 0; index < 48; index += 1) {
        const expiry = index % 6 === 0 ? 'forever' : index % 6 === 1 ? 365 : 1 + (index % 25)
        const { passcode } = await runners[index % 4]!.auth.passcodes.create(admin, `acc${index % 6}`, { name: `P${index}`, expiry })
        if (passcode.expiresAt === null || typeof expiry !== 'number' || expiry > 30) continue
        expiringSoon.push(`${passcode.id}|expiring_soon|${passcode.expiresAt.toISOString()}`)
        expired.push(`${passcode.id}|expired|${passcode.expiresAt.toISOString()}`)
      }
      expect(expiringSoon.length).toBeGreaterThan(20)

      // Phase 1: rounds of four concurrent passes.
      const reports: NotificationReport[] = []
      for (let round = 0; round < 12 && sentKeys(reports).length < expiringSoon.length; round += 1) {
        reports.push(...(await Promise.all(runners.map((runner) => runner.auth.notifyExpirations()))))
      }
      expect(tally(sentKeys(reports))).toEqual(new Map(expiringSoon.map((key) => [key, 1])))
      expect(reports.some((report) => report.failed.length > 0)).toBe(true)
      expect(runners.filter((runner) => runner.mailer.delivered.length > 0).length).toBeGreaterThan(1)
      const quiet = await Promise.all(runners.map((runner) => runner.auth.notifyExpirations()))
      expect(quiet.flatMap((report) => report.sent)).toEqual([])

      // Phase 2: past every finite expiry except the 365-day ones, four schedulers at once.
      clock.advance(30 * DAY_MS)
      const later: NotificationReport[] = []
      const notifiers = runners.map((runner) => startExpiryNotifier(runner.auth, { intervalMs: 5, onReport: (report) => later.push(report) }))
      const deadline = Date.now() + 60_000
      while (sentKeys(later).length < expired.length && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 20))
      }
      await Promise.all(notifiers.map((notifier) => notifier.stop()))
      expect(tally(sentKeys(later))).toEqual(new Map(expired.map((key) => [key, 1])))

      const delivered = runners.reduce((sum, runner) => sum + runner.mailer.delivered.length, 0)
      expect(delivered).toBe(expiringSoon.length + expired.length)
    })
  },
)
