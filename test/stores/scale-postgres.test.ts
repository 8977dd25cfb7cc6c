import { randomUUID } from 'node:crypto'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DAY_MS } from '../../src/core/time'
import { toDatabase } from '../../src/stores/postgres/database'
import type { Database } from '../../src/stores/postgres/database-interface'
import { applyMigrations, migrate } from '../../src/stores/postgres/migrate'
import { MIGRATIONS } from '../../src/stores/postgres/migrations'
import { postgresStore } from '../../src/stores/postgres/postgres-store'
import { rateLimitStatements } from '../../src/stores/postgres/rate-limit-statements'
import { auditStatements } from '../../src/stores/postgres/audit-statements'
import { statements } from '../../src/stores/postgres/statements'
import { postgresAvailability, type TestPostgres } from '../helpers/postgres'
import { sharedTestPostgres } from '../helpers/shared-postgres'
import { seededPasscodeId, seedScale, withoutDeadline } from '../helpers/scale-seed'
import { uniqueSchema } from './sql-fixture'

/**
 * The jobs that run without a request, on a large table (SPEC §5.14, §5.27, issue 37):
 * a database as version 3 left it, seeded with 200 000 account passcodes as years of use
 * leave them (half expired and notified), is migrated with its data; then each periodic
 * statement's plan, as the planner makes it for this table, must read an index: a
 * sequential scan of a large table fails the test. The seed is set-based SQL and
 * ANALYZEd, so the plans are those of a real table, not of planner settings.
 */
const availability = postgresAvailability()
const SIZE = 200_000
const NOW = Date.UTC(2026, 10, 1)
const LARGE = ['accounts', 'account_passcodes', 'notifications', 'user_passcodes', 'rate_limit_failures']

describe.skipIf(!availability.available)(
  `PostgreSQL with ${SIZE} passcodes: periodic jobs read indexes${availability.available ? '' : ` (skipped: ${availability.reason})`}`,
  () => {
    let server: TestPostgres
    let pool: pg.Pool
    let database: Database
    const schema = uniqueSchema()
    let report: Awaited<ReturnType<typeof migrate>>

    beforeAll(async () => {
      server = await sharedTestPostgres()
      pool = new pg.Pool({ connectionString: server.connectionString, max: 4, connectionTimeoutMillis: 10_000 })
      database = toDatabase(pool)
      await applyMigrations(
        database,
        schema,
        MIGRATIONS.filter((migration) => migration.version <= 3),
      )
      const bulk = withoutDeadline(database)
      await seedScale(bulk, { schema, from: 0, to: SIZE, now: NOW, beforeVersion6: true }, 100_000)
      report = await migrate(pool, { schema })
      for (const table of LARGE) await bulk.query(`ANALYZE ${schema}.${table}`)
    }, 300_000)

    afterAll(async () => {
      await pool?.end()
      await server?.stop()
    })

    /** The plan of `text` with `params`, as this table gets it. */
    const plan = async (text: string, params: unknown[]): Promise<string> => {
      const rows = await database.query(`EXPLAIN ${text}`, params)
      return rows.map((row) => String(row['QUERY PLAN'])).join('\n')
    }
    const expectNoTableScan = (explained: string): void => {
      for (const table of LARGE) expect(explained, explained).not.toMatch(new RegExp(`Seq Scan on ${table}\\b`))
    }

    it('migrates the populated table online: the notified rows get their columns, the indexes are valid, nothing is due', async () => {
      expect(report.applied).toEqual(MIGRATIONS.filter((migration) => migration.version > 3).map((migration) => migration.version))
      const [filled] = await database.query(
        `SELECT count(*) FILTER (WHERE soon_sent_for = expires_at)::integer AS soon,
                count(*) FILTER (WHERE expired_sent_for = expires_at)::integer AS expired
         FROM ${schema}.account_passcodes`,
      )
      // 10–59 of every 100: both emails sent; 90–99: the first one.
      expect(filled).toEqual({ soon: SIZE * 0.6, expired: SIZE * 0.5 })
      const indexes = await database.query(
        `SELECT c.relname AS name, i.indisvalid AS valid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
         JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 ORDER BY c.relname`,
        [schema],
      )
      const names = indexes.map((row) => row.name)
      expect(names).toEqual(
        expect.arrayContaining(['account_passcodes_first_email_due', 'account_passcodes_expired_email_due', 'notifications_unsent']),
      )
      expect(names).not.toContain('account_passcodes_expires')
      expect(indexes.every((row) => row.valid === true)).toBe(true)
      const store = postgresStore(pool, { schema, listen: false })
      const request = { now: NOW, windowMs: 30 * DAY_MS, leaseMs: 60_000, limit: 100, token: randomUUID() }
      expect(await store.claimNotifications(request)).toEqual([])
      // Twenty days on, still none (the seed's soonest expiry is 22 days away).
      expect(await store.claimNotifications({ ...request, now: NOW + 20 * DAY_MS })).toEqual([])
      const [soonest] = await database.query(`SELECT min(expires_at)::float8 AS at FROM ${schema}.account_passcodes WHERE expires_at > $1`, [NOW])
      const due = await store.claimNotifications({ ...request, now: Number(soonest!.at) })
      expect(due.length).toBeGreaterThan(0)
      expect(due.every((claim) => claim.kind === 'expired')).toBe(true)
      for (const claim of due) await store.releaseNotification(claim)
    })

    it('a due row whose email the notifications table holds as sent (an earlier release wrote it) gets its column, not a claim', async () => {
      const store = postgresStore(pool, { schema, listen: false })
      const id = seededPasscodeId(10) // expired, both emails sent
      await database.query(`UPDATE ${schema}.account_passcodes SET soon_sent_for = NULL, expired_sent_for = NULL WHERE id = $1`, [id])
      const request = { now: NOW, windowMs: 30 * DAY_MS, leaseMs: 60_000, limit: 100, token: randomUUID() }
      expect(await store.claimNotifications(request)).toEqual([])
      const [row] = await database.query(
        `SELECT expired_sent_for = expires_at AS expired, soon_sent_for IS NULL AS soon_unset FROM ${schema}.account_passcodes WHERE id = $1`,
        [id],
      )
      // The "expired" email is the one due for an expired passcode: its column is filled.
      expect(row).toEqual({ expired: true, soon_unset: true })
      expect(await store.claimNotifications(request)).toEqual([])
    })

    it('the notifier claim, completion and release read the due end of an index', async () => {
      const sql = statements(schema)
      const request = { now: NOW + 25 * DAY_MS, windowMs: 30 * DAY_MS, limit: 100, token: randomUUID(), leaseMs: 60_000 }
      const claim = await plan(sql.claimNotifications.text, sql.claimNotifications.values(request))
      expectNoTableScan(claim)
      expect(claim).toMatch(/account_passcodes_first_email_due/)
      expect(claim).toMatch(/account_passcodes_expired_email_due/)
      const key = { passcodeId: seededPasscodeId(12), kind: 'expired', expiresAt: NOW - DAY_MS, token: randomUUID() }
      // The completion as the store runs it when it cannot place its record in one statement: locking the account's chain head after it.
      const completion = auditStatements(schema).completeNotificationAndLock
      expectNoTableScan(await plan(completion.text, completion.values({ ...key, sentAt: NOW, accountId: 'acc_0' })))
      expectNoTableScan(await plan(sql.releaseNotification.text, sql.releaseNotification.values(key)))
      expectNoTableScan(
        await plan(sql.getAccountPasscode.text, sql.getAccountPasscode.values({ accountId: 'acc_0', passcodeId: seededPasscodeId(12) })),
      )
    })

    it('the usage flush of 1 000 used passcodes reads each row by its key', async () => {
      const entries = Array.from({ length: 1_000 }, (_, i) => i * 97)
      const input = {
        kinds: entries.map((i) => (i % 10 === 0 ? 'user' : 'account')),
        accountIds: entries.map((i) => `acc_${Math.floor(i / 100)}`),
        keys: entries.map((i) => (i % 10 === 0 ? `u_${i}` : seededPasscodeId(i))),
        ats: entries.map(() => NOW),
        partners: entries.map(() => null),
      }
      const { recordUsage } = statements(schema)
      expectNoTableScan(await plan(recordUsage.text, recordUsage.values(input)))
    })

    it('limiter pruning reads the rows whose window passed, in bounded batches', async () => {
      const { deleteExpired } = rateLimitStatements(schema)
      expectNoTableScan(await plan(deleteExpired.text, deleteExpired.values({ now: NOW, limit: 1_000 })))
    })

    it('the pepper report, which counts every hash, reads each table once and joins nothing', async () => {
      // Inherently proportional to the tables (docs/benchmarks.md has its cost at scale):
      // an index on pepper_id would be read whole just the same, and cost every write.
      // The previous hashes in their overlap (SPEC §5.47) come through their own index.
      const { countHashesByPepper } = statements(schema)
      const explained = await plan(countHashesByPepper.text, countHashesByPepper.values({ now: NOW }))
      expect(explained).not.toMatch(/Join|Nested Loop|SubPlan/)
      expect(explained.match(/Seq Scan on (account|user)_passcodes\b/g)).toHaveLength(2)
      expect(explained).toMatch(/Index Scan (using|on) account_passcodes_previous_hash_key/)
    })

    it('a start on an up-to-date schema reads only schema_migrations', async () => {
      const seen: string[] = []
      const watched: Database = { ...database, query: (text, params) => (seen.push(text), database.query(text, params)) }
      expect(await applyMigrations(watched, schema, MIGRATIONS)).toMatchObject({ applied: [] })
      expect(seen).toHaveLength(2)
      for (const text of seen) expectNoTableScan(await plan(text, text.includes('$1') ? [`${schema}.schema_migrations`] : []))
    })
  },
)
