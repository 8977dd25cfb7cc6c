/**
 * One notifier process of test/service/notify-processes.test.ts: its own pool on the
 * shared database, passes one after another until `until` (epoch ms) on the real clock,
 * a mailer that fails every third call (so that claims are released and retried), then
 * prints the keys it sent, one JSON line. Arguments: connection string, schema. Once
 * its service is built and its pool connected it prints `ready` and waits for its first
 * line on stdin, so that every process passes at once. Its clock is the real clock plus
 * an offset: a line `offset <ms>` sets it (the test moves the expiries into the passes
 * once the "expiring soon" emails went out), a line `until <ms>` (on that clock) ends
 * the passes.
 */
import { createInterface } from 'node:readline'
import pg from 'pg'
import { createPasscodeAuth, type NotificationReport } from '../../src/index'
import { postgresStore } from '../../src/stores/postgres/index'
import { everyone, scriptedMailer, sentKeys } from './notify-fixtures'

const [connectionString, schema] = process.argv.slice(2)
const pool = new pg.Pool({ connectionString, max: 2, connectionTimeoutMillis: 10_000 })
await pool.query('SELECT 1')
let offset = 0
let until = Number.POSITIVE_INFINITY
let started: () => void
const start = new Promise<void>((resolve) => (started = resolve))
createInterface({ input: process.stdin }).on('line', (line) => {
  const [word, value] = line.split(' ')
  if (word === 'offset') offset = Number(value)
  if (word === 'until') until = Number(value)
  started()
})
const now = () => Date.now() + offset
const mailer = scriptedMailer(
  (call) => call % 3 === 0,
  () => Math.floor(Math.random() * 4),
)
const auth = createPasscodeAuth({
  store: postgresStore(pool, { schema: schema!, listen: false }),
  mailer,
  recipients: everyone,
  notifier: { batchSize: 4 },
  clock: () => new Date(now()),
})
process.stdout.write('ready\n')
await start
const reports: NotificationReport[] = []
let passes = 0
while (now() < until) {
  reports.push(await auth.notifyExpirations())
  passes += 1
  await new Promise((resolve) => setTimeout(resolve, Math.floor(Math.random() * 10)))
}
// Once everything is due, passes until one finds nothing to send and fails nothing: a
// send that failed in a pass released its claim, and only a later pass (of this process,
// or of another that claims it first) sends it. One last pass was not enough: a failure in
// it was never retried, and the email counted as lost (seen as 2 of 72 under load).
for (let drain = 0; drain < 50; drain += 1) {
  const report = await auth.notifyExpirations()
  reports.push(report)
  if (report.sent.length === 0 && report.failed.length === 0) break
}
await auth.close()
await pool.end()
process.stdin.destroy()
process.stdout.write(`${JSON.stringify({ passes, sent: sentKeys(reports), delivered: mailer.delivered.length })}\n`)
