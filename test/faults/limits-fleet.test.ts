import { fork, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { faultServers, type FaultServers } from '../helpers/fault-servers'
import { pgbouncerAvailability, type TestPgBouncer } from '../helpers/pgbouncer'
import { postgresAvailability, type TestPostgres } from '../helpers/postgres'
import { pgInstance, sleep, type PgInstance } from './pg-instances'

/*
 * SPEC §5.50 across a fleet: three instances, separate processes, on one PostgreSQL (one
 * direct, two through PgBouncer in transaction mode) hammer one passcode with N credits.
 * Over-spend is 0 whatever happens; with every instance alive and closed at the end, the
 * fleet admits exactly N; with one killed (`kill -9`) mid-run, it admits at most N and
 * loses at most the killed instance's one lease, which the store's half rule holds to
 * half of what it held (docs/limits.md, "Bounds"). Each run ends by polling, within
 * 60 s: once the store holds no credit, every live instance has answered 429 since.
 */

const HERE = dirname(fileURLToPath(import.meta.url))
const ROOT = join(HERE, '..', '..')
const N = 400
const postgres = postgresAvailability()
const bouncer = pgbouncerAvailability()
const skipped = !postgres.available ? postgres.reason : !bouncer.available ? bouncer.reason : undefined

interface Child {
  readonly process: ChildProcess
  readonly url: string
  alive: boolean
  /** When it last answered 429 (Credits exhausted). */
  lastExhausted: number
}

describe.skipIf(skipped !== undefined)(
  `SPEC 5.50 credits across a fleet of processes${skipped === undefined ? '' : ` (skipped: ${skipped})`}`,
  () => {
    // The file's database on the run's shared PostgreSQL server and a PgBouncer in front of it: the cases kill an instance, never a server.
    let servers: FaultServers
    let server: TestPostgres
    let pgbouncer: TestPgBouncer
    let admin: PgInstance

    beforeAll(async () => {
      servers = await faultServers()
      server = servers.postgres
      pgbouncer = await servers.ownPgBouncer()
    })
    afterAll(async () => {
      await servers?.close()
    })

    /** A migrated schema with one passcode of N credits, made by an instance of the test's own. */
    async function passcodeWithCredits(): Promise<{ schema: string; accountId: string; value: string; passcodeId: string }> {
      const schema = await servers.migratedSchema()
      admin = pgInstance(server.connectionString, schema)
      const { passcode, value } = await admin.auth.passcodes.create({ userId: 'u_admin', role: 'admin' }, 'acc_fleet', {
        name: 'Batch job',
        expiry: 30,
        credits: { remaining: N },
      })
      return { schema, accountId: 'acc_fleet', value, passcodeId: passcode.id }
    }

    async function start(schema: string, index: number): Promise<Child> {
      const viaBouncer = index > 0
      const child = fork(join(HERE, 'limits-fleet-instance.ts'), [], {
        cwd: ROOT,
        execArgv: ['--import', 'tsx'],
        env: {
          ...process.env,
          LIMITS_SCHEMA: schema,
          LIMITS_DATABASE_URL: viaBouncer ? pgbouncer.connectionString : server.connectionString,
          ...(viaBouncer && { LIMITS_LISTEN_URL: server.connectionString }),
        },
        stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
      })
      const [message] = (await once(child, 'message')) as [{ port: number }]
      return { process: child, url: `http://127.0.0.1:${message.port}/verify`, alive: true, lastExhausted: 0 }
    }

    /** Requests to `child` until `stopped()`, four at a time; what it admitted. */
    async function hammer(child: Child, headers: Record<string, string>, stopped: () => boolean, admitted: () => void): Promise<void> {
      await Promise.all(
        Array.from({ length: 4 }, async () => {
          while (!stopped() && child.alive) {
            const started = Date.now()
            try {
              const response = await fetch(child.url, { headers })
              const reason = await response.text()
              if (response.status === 200) admitted()
              else if (reason === 'credits_exhausted') child.lastExhausted = started
              else throw new Error(`unexpected answer ${response.status} ${reason}`)
            } catch (error) {
              // The killed instance's requests fail; nothing else may.
              if (child.alive) throw error
            }
          }
        }),
      )
    }

    async function run(options: { readonly killOneAfter?: number }) {
      const { schema, accountId, value, passcodeId } = await passcodeWithCredits()
      const children = await Promise.all([0, 1, 2].map((index) => start(schema, index)))
      const headers = { 'x-account-id': accountId, 'x-passcode': value }
      let admitted = 0
      let stop = false
      const limits = admin.store
      const balance = async () => (await limits.listCreditBalances('acc_fleet', Date.now())).find((entry) => entry.key === passcodeId)!.balance
      const loops = children.map((child) =>
        hammer(
          child,
          headers,
          () => stop,
          () => {
            admitted++
            if (admitted === options.killOneAfter && children[1]!.alive) {
              children[1]!.alive = false
              children[1]!.process.kill('SIGKILL')
            }
          },
        ),
      )
      try {
        // Done once the store holds nothing and every live instance has been refused since.
        const deadline = Date.now() + 60_000
        let emptySince: number | undefined
        while (Date.now() < deadline) {
          await sleep(50)
          if (emptySince === undefined) {
            if ((await balance()) === 0) emptySince = Date.now()
          } else if (children.every((child) => !child.alive || child.lastExhausted > emptySince!)) break
        }
        expect(emptySince, 'the store still held credits after 60 s').toBeDefined()
      } finally {
        stop = true
        await Promise.all(loops)
      }
      // The live instances close: what they still hold (nothing, they were refused) goes back.
      await Promise.all(
        children
          .filter((child) => child.alive)
          .map(async (child) => {
            child.process.send({ type: 'close' })
            await once(child.process, 'exit')
          }),
      )
      const left = await balance()
      await admin.close()
      return { admitted, left }
    }

    it('admits exactly N, with every instance alive', async () => {
      const { admitted, left } = await run({})
      expect(left).toBe(0)
      expect(admitted).toBe(N)
    }, 120_000)

    it('admits at most N with one instance killed (kill -9) mid-run, and loses at most its one lease', async () => {
      const { admitted, left } = await run({ killOneAfter: N / 4 })
      expect(left).toBe(0)
      expect(admitted).toBeLessThanOrEqual(N)
      // The killed instance's lease: at most half of what the store held when it was taken.
      expect(N - admitted).toBeLessThanOrEqual(Math.ceil((N - N / 4) / 2))
    }, 120_000)
  },
)
