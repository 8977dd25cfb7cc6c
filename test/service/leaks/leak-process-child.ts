/**
 * One reporting process of test/service/leaks/leak-processes.test.ts: its own pool on
 * the shared database and its own mailer. Arguments: connection string, schema. Once
 * its pool is connected it prints `ready`, reads the values (one JSON array line) from
 * stdin, reports them all at once (one report per value, in the order given), then
 * prints what it did as one JSON line: the emails its mailer took and the leak events.
 */
import pg from 'pg'
import { createPasscodeAuth, type AuditEvent } from '../../../src/index'
import { memoryMailer } from '../../../src/memory'
import { postgresStore } from '../../../src/stores/postgres/index'

const [connectionString, schema] = process.argv.slice(2)
const pool = new pg.Pool({ connectionString, max: 4, connectionTimeoutMillis: 10_000 })
await pool.query('SELECT 1')
const mailer = memoryMailer()
const leaked: string[] = []
const auth = createPasscodeAuth({
  store: postgresStore(pool, { schema: schema!, listen: false }),
  mailer,
  recipients: (accountId) => [`admins+${accountId}@example.com`],
  onEvent: (event: AuditEvent) => {
    if (event.type === 'passcode.leaked') leaked.push(event.passcodeId ?? event.userId ?? '')
  },
})
process.stdout.write('ready\n')
const line = await new Promise<string>((resolve) => process.stdin.once('data', (data) => resolve(String(data).trim())))
const values = JSON.parse(line) as string[]
const answers = await Promise.all(values.map(async (value) => (await auth.leaks.report([value], { source: `pid ${process.pid}` }))[0]!.label))
await auth.close()
await pool.end()
process.stdout.write(`${JSON.stringify({ answers, leaked, mailed: mailer.messages.map((message) => message.subject) })}\n`)
