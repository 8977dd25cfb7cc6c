import type { PGlite } from '@electric-sql/pglite'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createPasscodeAuth, type Mailer, type PasscodeStore } from '../../src/index'
import { memoryStore } from '../../src/memory'
import { migrate, postgresStore } from '../../src/stores/postgres/index'
import { eventually } from '../conformance/store/fixtures'
import { freshPglite } from '../helpers/pglite'
import { admin } from '../helpers/service'
import { uniqueSchema } from '../stores/sql-fixture'

/**
 * A mailer that fails or hangs never blocks verification: a notifier pass stuck on
 * the mailer holds no lock, no transaction and no connection that `authenticate`
 * needs. PGlite has a single connection, so anything held there would show at once;
 * a `pg` Pool has several, so it is the weaker test and is left out.
 */

/**
 * Long beside the 100 authentications (tens of milliseconds), so that on a loaded machine
 * they still end before the hung send times out; the test waits this long for the pass.
 */
const SEND_TIMEOUT_MS = 5_000
const AUTHENTICATIONS = 100

/** A mailer whose sends hang (never settle) or throw; counts the calls. */
function faultyMailer(mode: 'hangs' | 'throws') {
  let calls = 0
  const mailer: Mailer & { readonly calls: number } = {
    get calls() {
      return calls
    },
    send() {
      calls++
      if (mode === 'throws') return Promise.reject(new Error('simulated SMTP failure: 421 service not available'))
      return new Promise<never>(() => {})
    },
  }
  return mailer
}

let pglite: PGlite | undefined

beforeAll(async () => {
  pglite = await freshPglite()
})
afterAll(async () => {
  await pglite?.close()
})

const stores: { name: string; open(): Promise<PasscodeStore & { close?(): Promise<void> }> }[] = [
  { name: 'memory store', open: async () => memoryStore() },
  {
    name: 'PGlite store',
    async open() {
      const schema = uniqueSchema()
      await migrate(pglite!, { schema })
      return postgresStore(pglite!, { schema })
    },
  },
]

// The cases run at the same time, each on a store (a schema of the PGlite) of its own: most
// of a hang case is the wait for the send's timeout.
describe.concurrent.each(stores)('$name', ({ open }) => {
  for (const mode of ['hangs', 'throws'] as const) {
    const title =
      mode === 'hangs'
        ? 'a mailer that hangs: verification goes on while the notifier pass waits on it'
        : 'a mailer that fails: verification goes on, the pass reports it'
    it(title, async () => {
      const store = await open()
      const mailer = faultyMailer(mode)
      // No cache: every authentication below reads the store the notifier is using.
      const auth = createPasscodeAuth({
        store,
        partners: ['acme'],
        cache: false,
        mailer,
        recipients: () => ['ops@example.test'],
        notifier: { sendTimeoutMs: SEND_TIMEOUT_MS, leaseMs: 10_000 },
      })
      // Expires in a day: due for an "expiring soon" notification at once.
      await auth.passcodes.create(admin, 'acc_mail', { name: 'Due soon', expiry: 1 })
      const { value } = await auth.passcodes.create(admin, 'acc_mail', { name: 'Verified', expiry: 90 })

      let passSettled = false
      const pass = auth.notifyExpirations().finally(() => {
        passSettled = true
      })
      // A bound on the machine, not on the library: the pass reaches the mailer at once on an idle one.
      await eventually(() => expect(mailer.calls).toBe(1), 20_000)

      const outcomes = []
      // How many answered while the pass still waited on the mailer.
      let answeredWhileWaiting = 0
      for (let i = 0; i < AUTHENTICATIONS; i++) {
        outcomes.push(await auth.authenticate({ accountId: 'acc_mail', passcode: value }))
        if (!passSettled) answeredWhileWaiting++
      }
      for (const outcome of outcomes) expect(outcome).toMatchObject({ ok: true })
      if (mode === 'hangs') {
        // Answered while the pass waits on the mailer: nothing waited for it. Had an
        // authentication waited on the hung send, it could only answer once the send's
        // timeout settled the pass. All of them, on any machine that runs the 100 within
        // the send's timeout; at least the first, on one so loaded that it does not.
        expect(answeredWhileWaiting).toBeGreaterThanOrEqual(1)
      }

      const report = await pass
      expect(report.sent).toEqual([])
      expect(report.failed).toHaveLength(1)
      expect(report.failed[0]!.reason).toBe(mode === 'hangs' ? 'ERR_MAILER_TIMEOUT' : 'ERR_MAILER_FAILED')
      expect(await auth.authenticate({ accountId: 'acc_mail', passcode: value })).toMatchObject({ ok: true })
      if (mode === 'throws') {
        // The failed claim was given back: the next pass tries again.
        expect((await auth.notifyExpirations()).failed).toHaveLength(1)
        expect(mailer.calls).toBe(2)
      }
      await auth.close()
      await store.close?.()
    })
  }
})
