import { spawn } from 'node:child_process'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DAY_MS } from '../../src/core/time'
import { createPasscodeAuth } from '../../src/index'
import { migrate, postgresStore } from '../../src/stores/postgres/index'
import { bundleForNode } from '../helpers/node-bundle'
import { postgresAvailability, type TestPostgres } from '../helpers/postgres'
import { sharedTestPostgres } from '../helpers/shared-postgres'
import { admin } from '../helpers/service'
import { tally } from './notify-fixtures'

/**
 * SPEC 5.14 across real processes: three notifier processes (test/service/
 * notify-process-child.ts), each with its own pool, pass at once and again and again over
 * one PostgreSQL table whose passcodes expire one after another during the passes, on
 * the real clock (moved on once the "expiring soon" emails went out). Each "expiring
 * soon" and each "expired" email goes out exactly once: none lost, none doubled, while
 * failed sends release claims for the others to retry.
 */
const availability = postgresAvailability()
const PASSCODES = 40
const SPACING_MS = 100
const HOUR_MS = 3_600_000
/** How long the "expiring soon" emails may take to go out: a bound on the machine. */
const SOON_BOUND_MS = 60_000

describe.skipIf(!availability.available)(
  `three notifier processes over one PostgreSQL table${availability.available ? '' : ` (skipped: ${availability.reason})`}`,
  () => {
    let server: TestPostgres
    let pool: pg.Pool
    const schema = `notify_processes_${process.pid}`

    beforeAll(async () => {
      // A database of the run's shared server: nothing here stops it or counts its sessions.
      server = await sharedTestPostgres()
      pool = new pg.Pool({ connectionString: server.connectionString, max: 2, connectionTimeoutMillis: 10_000 })
      await migrate(pool, { schema })
    })

    /** The passcodes with an expiry whose "expiring soon" email was not sent yet. */
    const unsentSoon = async () =>
      Number(
        (
          await pool.query<{ count: string }>(
            `SELECT count(*) FROM ${schema}.account_passcodes WHERE expires_at IS NOT NULL AND soon_sent_for IS DISTINCT FROM expires_at`,
          )
        ).rows[0]!.count,
      )

    afterAll(async () => {
      await pool?.end()
      await server?.stop()
    })

    it('sends every email exactly once while rows become due during the passes', async () => {
      const bundles = await bundleForNode({ child: 'test/service/notify-process-child.ts' })
      try {
        // Three processes, each with its service built and its pool connected, waiting.
        const children = [0, 1, 2].map(() => {
          const child = spawn(process.execPath, [bundles.file('child'), server.connectionString, schema], { timeout: 60_000 })
          let stdout = ''
          const ready = new Promise<void>((resolve) => {
            child.stdout.on('data', (data: Buffer) => {
              stdout += String(data)
              if (stdout.startsWith('ready\n')) resolve()
            })
          })
          const result = new Promise<{ passes: number; sent: string[]; delivered: number }>((resolve, reject) => {
            child.once('error', reject)
            child.once('exit', (code) => {
              if (code === 0) resolve(JSON.parse(stdout.slice('ready\n'.length)) as { passes: number; sent: string[]; delivered: number })
              else reject(new Error(`a notifier process exited with ${code}`))
            })
          })
          return { child, ready, result }
        })
        await Promise.all(children.map(({ ready }) => ready))

        // Made through the API on a clock one day back, so that with a one-day expiry
        // they expire an hour from now, one every 100 ms: due for "expiring soon" at once,
        // and none expires while they are made, however long that takes.
        let clock = 0
        const auth = createPasscodeAuth({ store: postgresStore(pool, { schema, listen: false }), clock: () => new Date(clock) })
        const start = Date.now() + HOUR_MS
        const expected: string[] = []
        for (let index = 0; index < PASSCODES; index += 1) {
          clock = start - DAY_MS + index * SPACING_MS
          const { passcode } = await auth.passcodes.create(admin, `acc_${index % 4}`, { name: `P${index}`, expiry: index % 10 === 9 ? 'forever' : 1 })
          if (passcode.expiresAt === null) continue
          const at = passcode.expiresAt.toISOString()
          expected.push(`${passcode.id}|expiring_soon|${at}`, `${passcode.id}|expired|${at}`)
        }
        await auth.close()
        // The processes pass; every "expiring soon" email (and its retries) goes out first:
        // a passcode first notified after it expired gets the "expired" email only. Polled,
        // not a head start of fixed length (3 s was passed under load).
        for (const { child } of children) child.stdin.write('offset 0\n')
        const soonBound = Date.now() + SOON_BOUND_MS
        while ((await unsentSoon()) > 0) {
          if (Date.now() > soonBound) throw new Error(`the "expiring soon" emails were not all sent within ${SOON_BOUND_MS} ms`)
          await new Promise((resolve) => setTimeout(resolve, 50))
        }
        // Then their clocks jump to 1 s before the first expiry: the passcodes expire one
        // after another while the processes pass, until half a second after the last.
        const offset = start - 1_000 - Date.now()
        const until = start + PASSCODES * SPACING_MS + 500
        for (const { child } of children) child.stdin.end(`until ${until}\noffset ${offset}\n`)
        const processes = await Promise.all(children.map(({ result }) => result))

        expect(tally(processes.flatMap((child) => child.sent))).toEqual(new Map(expected.map((key) => [key, 1])))
        expect(processes.reduce((sum, child) => sum + child.delivered, 0)).toBe(expected.length)
        // They did pass side by side, and shared the work.
        expect(processes.every((child) => child.passes > 3)).toBe(true)
        expect(processes.filter((child) => child.sent.length > 0).length).toBeGreaterThan(1)
      } finally {
        bundles.remove()
      }
    }, 90_000)
  },
)
