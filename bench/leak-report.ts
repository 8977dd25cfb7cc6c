/**
 * Benchmark: a signed leak report of 1 000 tokens answered by `leakReportHandler`
 * (passcode-auth/fetch) on PostgreSQL, end to end: signature check, JSON, one indexed
 * read per well-formed token, and for live ones the disable, the store's invalidation
 * and an email (memory mailer). Three reports, side by side in one run, over a store of
 * 1 000 account passcodes (10 accounts × 100):
 *
 * - 1 000 look-alikes (checksum fails): no store read, the floor;
 * - 1 000 well-formed unknown values: 1 000 reads, nothing to do (a typical scanner report);
 * - 1 000 live values: 1 000 reads, 1 000 disables, 1 000 emails (the worst case).
 *
 *   npx tsx bench/leak-report.ts            # DATABASE_URL, or a temporary cluster
 */
import { generateKeyPairSync, sign } from 'node:crypto'
import pg from 'pg'
import { leakReportHandler } from '../src/fetch/index'
import { createPasscodeAuth, generatePasscode } from '../src/index'
import { memoryMailer } from '../src/memory'
import { migrate, postgresStore } from '../src/stores/postgres/index'
import { startTestPostgres } from '../test/helpers/postgres'

const ADMIN = { userId: 'u_bench', role: 'admin' } as const
const TOKENS = 1_000

const database = await startTestPostgres()
const pool = new pg.Pool({ connectionString: database.connectionString, max: 10, connectionTimeoutMillis: 10_000 })
try {
  const schema = `leaks_bench_${process.pid}`
  await migrate(pool, { schema })
  const mailer = memoryMailer()
  const auth = createPasscodeAuth({ store: postgresStore(pool, { schema }), mailer, recipients: (accountId) => [`admins@${accountId}.example`] })
  const live: string[] = []
  for (let account = 0; account < TOKENS / 100; account++) {
    for (let index = 0; index < 100; index++) {
      live.push((await auth.passcodes.create(ADMIN, `acc_${account}`, { name: `P${index}`, expiry: 90 })).value)
    }
  }
  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' })
  const handler = leakReportHandler(auth, { publicKeys: [{ id: 'bench', pem: publicKey.export({ type: 'spki', format: 'pem' }).toString() }] })
  const report = async (tokens: readonly string[]) => {
    const body = JSON.stringify(tokens.map((token) => ({ token, type: 'passcode', url: 'https://example.com/leak', source: 'content' })))
    const signature = sign('sha256', Buffer.from(body), privateKey).toString('base64')
    const started = performance.now()
    const response = await handler(
      new Request('http://localhost/v1/leaks', {
        method: 'POST',
        body,
        headers: { 'github-public-key-identifier': 'bench', 'github-public-key-signature': signature },
      }),
    )
    const answer = (await response.json()) as { label: string }[]
    const ms = performance.now() - started
    if (response.status !== 200 || answer.length !== tokens.length) throw new Error(`unexpected answer ${response.status}`)
    return { ms, truePositives: answer.filter((entry) => entry.label === 'true_positive').length, bytes: body.length }
  }
  const lookAlikes = live.map((value) => value.slice(0, -1) + (value.endsWith('A') ? 'B' : 'A'))
  const unknown = Array.from({ length: TOKENS }, () => generatePasscode())
  await report(unknown.slice(0, 50)) // warm-up: connections, prepared statements
  const rows = [
    ['1 000 look-alikes (no read)', await report(lookAlikes)],
    ['1 000 unknown well-formed values', await report(unknown)],
    ['1 000 live values (disable + email each)', await report(live)],
    ['the same 1 000 again (replay: reads only)', await report(live)],
  ] as const
  const version = (await pool.query<{ server_version: string }>('SHOW server_version')).rows[0]!.server_version
  console.log(`PostgreSQL ${version}, Node ${process.version}, ${mailer.messages.length} emails sent`)
  console.log('| report | answered in | true_positive | body |')
  console.log('|---|---:|---:|---:|')
  for (const [name, result] of rows)
    console.log(`| ${name} | ${result.ms.toFixed(0)} ms | ${result.truePositives} | ${(result.bytes / 1024).toFixed(0)} KiB |`)
  await pool.query(`DROP SCHEMA ${schema} CASCADE`)
  await auth.close()
} finally {
  await pool.end()
  await database.stop()
}
