import { spawn } from 'node:child_process'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createPasscodeAuth } from '../../../src/index'
import { memoryMailer } from '../../../src/memory'
import { migrate, postgresStore } from '../../../src/stores/postgres/index'
import { bundleForNode } from '../../helpers/node-bundle'
import { postgresAvailability, type TestPostgres } from '../../helpers/postgres'
import { sharedTestPostgres } from '../../helpers/shared-postgres'
import { admin } from '../../helpers/service'

/**
 * SPEC 5.42 under concurrency on PostgreSQL: the same live values reported at once by
 * services with their own pools (in this process, then in three processes) change each
 * passcode once, send one email and write one `passcode.leak_reported` record per
 * passcode, whichever report wins.
 */
const availability = postgresAvailability()
const PASSCODES = 12

describe.skipIf(!availability.available)(
  `concurrent leak reports over one PostgreSQL store${availability.available ? '' : ` (skipped: ${availability.reason})`}`,
  () => {
    let server: TestPostgres
    let pool: pg.Pool
    let schemas = 0
    const schema = () => `leaks_${process.pid}_${++schemas}`

    beforeAll(async () => {
      server = await sharedTestPostgres()
      pool = new pg.Pool({ connectionString: server.connectionString, max: 4, connectionTimeoutMillis: 10_000 })
    })

    afterAll(async () => {
      await pool?.end()
      await server?.stop()
    })

    /** Live passcodes (and one user passcode) in a fresh schema, and a reader of what the reports left. */
    async function livePasscodes(name: string) {
      await migrate(pool, { schema: name })
      const store = postgresStore(pool, { schema: name, listen: false })
      const auth = createPasscodeAuth({ store, encryptionKeys: [{ id: 'k1', key: new Uint8Array(32).fill(1) }] })
      const values: string[] = []
      for (let index = 0; index < PASSCODES; index += 1)
        values.push((await auth.passcodes.create(admin, `acc_${index % 3}`, { name: `P${index}`, expiry: 30 })).value)
      await auth.userPasscodes.grant(admin, 'acc_0', 'u_1', { validity: { type: 'finite', days: 30 } })
      values.push((await auth.userPasscodes.reveal({ userId: 'u_1', role: 'member' }, 'acc_0')).value)
      const outcome = async () => {
        const records = (await Promise.all(['acc_0', 'acc_1', 'acc_2'].map((account) => store.audit.records(account, { limit: 1_000 })))).flat()
        const marks = (await Promise.all(['acc_0', 'acc_1', 'acc_2'].map((account) => store.listLeakMarks(account)))).flat()
        const views = (await Promise.all(['acc_0', 'acc_1', 'acc_2'].map((account) => auth.passcodes.list(admin, account)))).flat()
        return {
          leakRecords: records.filter((record) => record.action === 'passcode.leak_reported').length,
          marks: marks.length,
          disabled: views.filter((view) => view.status === 'disabled' && view.leak !== null).length,
        }
      }
      return { auth, values, outcome }
    }

    it('acts once per passcode when 3 services with their own pools report the same values at once', async () => {
      const { values, outcome } = await livePasscodes(schema())
      const name = `leaks_${process.pid}_${schemas}`
      const pools = [0, 1, 2].map(() => new pg.Pool({ connectionString: server.connectionString, max: 4, connectionTimeoutMillis: 10_000 }))
      try {
        const mailers = pools.map(() => memoryMailer())
        const services = pools.map((own, index) =>
          createPasscodeAuth({
            store: postgresStore(own, { schema: name, listen: false }),
            mailer: mailers[index],
            recipients: (account) => [`a@${account}.example`],
          }),
        )
        const answers = await Promise.all(services.flatMap((service) => values.map((value) => service.leaks.report([value], { source: 'github' }))))
        // A disabled account passcode stays live; the user passcode, once revoked, is not (a later read labels it false_positive).
        const accountAnswers = answers.flat().filter((answer) => answer.token !== values[PASSCODES])
        expect(accountAnswers.every((answer) => answer.label === 'true_positive')).toBe(true)
        expect(mailers.reduce((sum, mailer) => sum + mailer.messages.length, 0)).toBe(PASSCODES + 1)
        expect(await outcome()).toEqual({ leakRecords: PASSCODES + 1, marks: PASSCODES + 1, disabled: PASSCODES })
        await Promise.all(services.map((service) => service.close()))
      } finally {
        await Promise.all(pools.map((own) => own.end()))
      }
    }, 60_000)

    it('acts once per passcode when 3 processes report the same values at once', async () => {
      const name = schema()
      const { values, outcome } = await livePasscodes(name)
      const bundles = await bundleForNode({ child: 'test/service/leaks/leak-process-child.ts' })
      try {
        const children = [0, 1, 2].map(() => {
          const child = spawn(process.execPath, [bundles.file('child'), server.connectionString, name], { timeout: 60_000 })
          let stdout = ''
          const ready = new Promise<void>((resolve) => {
            child.stdout.on('data', (data: Buffer) => {
              stdout += String(data)
              if (stdout.startsWith('ready\n')) resolve()
            })
          })
          const result = new Promise<{ answers: string[]; leaked: string[]; mailed: string[] }>((resolve, reject) => {
            child.once('error', reject)
            child.once('exit', (code) => {
              if (code === 0) resolve(JSON.parse(stdout.slice('ready\n'.length)) as { answers: string[]; leaked: string[]; mailed: string[] })
              else reject(new Error(`a reporting process exited with ${code}`))
            })
          })
          return { child, ready, result }
        })
        await Promise.all(children.map(({ ready }) => ready))
        // Each process gets the values in another order, so that they meet on every row.
        children.forEach(({ child }, index) => child.stdin.end(`${JSON.stringify(index === 1 ? [...values].reverse() : values)}\n`))
        const processes = await Promise.all(children.map(({ result }) => result))

        // Each process answers in the order it was given; the user passcode's label depends on who read first.
        const accountLabels = processes.flatMap((child, index) =>
          child.answers.filter((_, at) => (index === 1 ? [...values].reverse() : values)[at] !== values[PASSCODES]),
        )
        expect(accountLabels.every((label) => label === 'true_positive')).toBe(true)
        const leaked = processes.flatMap((child) => child.leaked)
        expect(leaked).toHaveLength(PASSCODES + 1)
        expect(new Set(leaked).size).toBe(PASSCODES + 1)
        expect(processes.reduce((sum, child) => sum + child.mailed.length, 0)).toBe(PASSCODES + 1)
        expect(await outcome()).toEqual({ leakRecords: PASSCODES + 1, marks: PASSCODES + 1, disabled: PASSCODES })
      } finally {
        bundles.remove()
      }
    }, 90_000)
  },
)
