import { setTimeout as delay } from 'node:timers/promises'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createPasscodeAuth, type PasscodeAuth } from '../../src/index'
import { migrate, postgresStore, type PostgresStore } from '../../src/stores/postgres/index'
import { STATEMENT_DEADLINE_MS } from '../../src/stores/postgres/database-interface'
import { eventually } from '../conformance/store/fixtures'
import { postgresAvailability, type TestPostgres } from '../helpers/postgres'
import { sharedTestPostgres } from '../helpers/shared-postgres'
import { admin } from '../helpers/service'
import { uniqueSchema } from '../stores/sql-fixture'

/**
 * The pepper report (`auth.pepperReport()`) reads both passcode tables whole: at 10
 * million passcodes on a loaded machine it takes about 5 s, past the 5 s deadline of the
 * store's statements (docs/benchmarks.md, the scale section), and fails there.
 * Reproduced here, not fixed yet: the case below is expected to fail (`it.fails`).
 *
 * The fault is real: another session holds `ACCESS EXCLUSIVE` on the account passcodes
 * for a second longer than the requests' deadline, so the report's statement, on a real
 * pg Pool, is held past that deadline; the report must still answer, correctly, once
 * the lock goes.
 */

const availability = postgresAvailability()
const title = availability.available
  ? 'the pepper report past the requests’ deadline (PostgreSQL)'
  : `the pepper report (skipped: ${availability.reason})`
const PEPPER = 'pepper-report-deadline-test-pepper-0'
const OLDER = 'pepper-report-deadline-test-pepper-1'

describe.skipIf(!availability.available)(title, () => {
  let server: TestPostgres
  let pool: pg.Pool
  let schema: string
  let store: PostgresStore
  let auth: PasscodeAuth

  beforeAll(async () => {
    server = await sharedTestPostgres()
    pool = new pg.Pool({ connectionString: server.connectionString, max: 4, connectionTimeoutMillis: 10_000 })
    pool.on('error', () => {})
    schema = uniqueSchema()
    await migrate(pool, { schema })
    store = postgresStore(pool, { schema })
    auth = createPasscodeAuth({ store, pepper: [PEPPER, OLDER], cache: false })
    for (let i = 0; i < 3; i++) await auth.passcodes.create(admin, 'acc_report', { name: `Partner ${i}`, expiry: 90 })
  })

  afterAll(async () => {
    await auth?.close()
    await store?.close()
    await pool?.query(`DROP SCHEMA ${schema} CASCADE`).catch(() => {})
    await pool?.end()
    await server?.stop()
  })

  /** Holds `ACCESS EXCLUSIVE` on the account passcodes in a session of its own until `release()`. */
  const lockPasscodes = async () => {
    const session = new pg.Client({ connectionString: server.connectionString })
    await session.connect()
    await session.query('BEGIN')
    await session.query(`LOCK TABLE ${schema}.account_passcodes IN ACCESS EXCLUSIVE MODE`)
    return {
      release: async () => {
        await session.query('COMMIT')
        await session.end()
      },
    }
  }

  /** Sessions of this database waiting for a lock in the report's statement. */
  const reportsWaiting = async (): Promise<number> => {
    const { rows } = await pool.query<{ n: number }>(
      `SELECT count(*)::integer AS n FROM pg_stat_activity
       WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%GROUP BY pepper_id%'`,
    )
    return rows[0]!.n
  }

  // Fails today: the store's 5 s deadline refuses the report (StatementDeadlineError).
  it.fails(
    `answers, correctly, when its statement is held ${STATEMENT_DEADLINE_MS + 1_000} ms, past the requests' ${STATEMENT_DEADLINE_MS} ms deadline`,
    async () => {
      const lock = await lockPasscodes()
      try {
        const started = performance.now()
        const outcome = auth.pepperReport().then(
          (report) => ({ report }),
          (error: unknown) => ({ error }),
        )
        // The statement is in the server, waiting for the lock (not still on its way).
        await eventually(async () => expect(await reportsWaiting()).toBe(1), 5_000)
        await delay(STATEMENT_DEADLINE_MS + 1_000 - (performance.now() - started))
        await lock.release()
        expect(await outcome).toEqual({ report: { current: 3, older: [0], unknown: 0 } })
      } finally {
        await lock.release().catch(() => {})
      }
    },
    30_000,
  )
})
