import { randomBytes } from 'node:crypto'
import { inspect } from 'node:util'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { createPasscodeAuth, type Invalidation } from '../../src/index'
import { DAY_MS } from '../../src/core/time'
import { memoryMailer } from '../../src/memory'
import { toDatabase } from '../../src/stores/postgres/database'
import type { PostgresDatabase } from '../../src/stores/postgres/database-interface'
import { migrate, postgresPartners, postgresStore } from '../../src/stores/postgres/index'
import { freshPglite } from '../helpers/pglite'
import { subscribeReady } from '../conformance/store/fixtures'
import { admin, manualClock } from '../helpers/service'
import { postgresAvailability, type TestPostgres } from '../helpers/postgres'
import { sharedTestPostgres } from '../helpers/shared-postgres'
import { uniqueSchema } from './sql-fixture'

/**
 * SPEC §5.6 and §5.19 at rest (issue 9): after a full scenario against the SQL store,
 * a dump of every table of the schema (each row as PostgreSQL's own text form) holds
 * no account passcode value and no user passcode in clear (user values are there only
 * as JWE ciphertext), no pepper and no encryption key; nor do the invalidations the
 * store publishes to other instances.
 */

const forms = (secret: string | Uint8Array): string[] => {
  const bytes = typeof secret === 'string' ? Buffer.from(secret, 'utf8') : Buffer.from(secret)
  const all = [bytes.toString('base64url'), bytes.toString('base64'), bytes.toString('hex')]
  if (typeof secret === 'string') all.push(secret, secret.slice(4, -4))
  return all
}

async function scenarioAndDump(db: PostgresDatabase): Promise<void> {
  const schema = uniqueSchema()
  await migrate(db, { schema })
  const store = postgresStore(db, { schema })
  // Subscribed once the store's LISTEN is active (a probe write came back): PostgreSQL
  // drops a notification committed before it, and a slow start then lost some of the
  // scenario's invalidations, whatever the wait below.
  const published: Invalidation[] = await subscribeReady(store, store)
  const pepper = randomBytes(24).toString('base64url')
  const key = randomBytes(32)
  const clock = manualClock()
  const mailer = memoryMailer()
  const partners = postgresPartners(db, { schema })
  await partners.add('Acme')
  const auth = createPasscodeAuth({
    store,
    partners,
    pepper,
    encryptionKeys: [{ id: 'k1', key }],
    clock,
    mailer,
    recipients: () => ['ops@example.com'],
  })
  const member = (userId: string) => ({ userId, role: 'member' }) as const
  try {
    const values: string[] = []
    const kept = await auth.passcodes.create(admin, 'acc', { name: 'Kept', expiry: 90 })
    const soon = await auth.passcodes.create(admin, 'acc', { name: 'Soon', expiry: 10 })
    const gone = await auth.passcodes.create(admin, 'acc', { name: 'Gone', expiry: 'forever' })
    values.push(kept.value, soon.value, gone.value)
    await auth.passcodes.update(admin, 'acc', soon.passcode.id, { name: 'Soon renamed', expiry: 5 })
    await auth.accounts.setAcceptedPasscodes(admin, 'acc', 'both')
    for (const userId of ['u1', 'u2', 'u3']) {
      await auth.userPasscodes.grant(admin, 'acc', userId, { validity: { type: 'finite', days: 30 } })
      values.push((await auth.userPasscodes.reveal(member(userId), 'acc')).value)
    }
    await auth.userPasscodes.reset(admin, 'acc', 'u1')
    values.push((await auth.userPasscodes.reveal(member('u1'), 'acc')).value)
    await auth.userPasscodes.revoke(admin, 'acc', 'u2')
    expect((await auth.connect({ headers: { 'x-service-account-id': 'acc', 'x-service-passcode': kept.value }, partner: 'acme' })).statusCode).toBe(
      200,
    )
    expect((await auth.authenticate({ accountId: 'acc', passcode: values[3]! })).ok).toBe(false) // u1's value before the reset
    await auth.passcodes.delete(admin, 'acc', gone.passcode.id)
    clock.advance(6 * DAY_MS)
    const report = await auth.notifyExpirations()
    expect(report.sent.length).toBeGreaterThan(0)

    const database = toDatabase(db)
    const tables = (
      await database.query('SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY table_name', [schema])
    ).map((row) => String(row.table_name))
    expect(tables).toEqual(expect.arrayContaining(['account_passcodes', 'user_passcodes', 'notifications', 'accounts', 'partners']))
    let dump = ''
    for (const table of tables) {
      const rows = await database.query(`SELECT t::text AS row FROM ${schema}.${table} t`)
      dump += `${table}\n${rows.map((row) => String(row.row)).join('\n')}\n`
    }
    // The dump is what it claims to be: hashes, hints and ciphertext are in it.
    expect(dump).toContain(kept.passcode.hint)
    expect(dump).toMatch(/eyJ[\w-]+\.\.[\w-]+\.[\w-]+\.[\w-]+/) // a compact JWE (dir: empty encrypted key)
    // Invalidations come back through LISTEN, after the writes: wait for them rather than race them.
    await vi.waitFor(() => expect(published.length).toBeGreaterThan(3), { timeout: 10_000 })
    const rendered = inspect(published, { depth: 8 }) + JSON.stringify(published)

    for (const secret of [...values.flatMap(forms), ...forms(pepper), ...forms(key)]) {
      if (dump.includes(secret)) expect.fail(`a secret is stored in clear: ${dump.replaceAll(secret, '[SECRET]').slice(0, 500)}`)
      if (rendered.includes(secret)) expect.fail('a secret was published as an invalidation')
    }
    expect(values).toHaveLength(7)
  } finally {
    await auth.close()
    await store.close()
  }
}

describe('a dump of the SQL store holds no passcode in clear', () => {
  it('on PGlite', async () => {
    const db = await freshPglite()
    try {
      await scenarioAndDump(db)
    } finally {
      await db.close()
    }
  }, 120_000)

  const availability = postgresAvailability()
  describe.skipIf(!availability.available)(
    availability.available ? 'on a PostgreSQL server' : `on a PostgreSQL server (skipped: ${availability.reason})`,
    () => {
      let server: TestPostgres
      let pool: pg.Pool
      beforeAll(async () => {
        server = await sharedTestPostgres()
        pool = new pg.Pool({ connectionString: server.connectionString, max: 4, connectionTimeoutMillis: 10_000 })
        pool.on('error', () => {})
      })
      afterAll(async () => {
        await pool?.end()
        await server?.stop()
      })
      it('every table, every row', () => scenarioAndDump(pool), 120_000)
    },
  )
})
