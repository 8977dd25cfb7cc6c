/**
 * The periodic load of one instance, measured against the model of docs/capacity.md
 * ("Periodic load"): an instance on PostgreSQL (a listening `postgresStore`, the
 * fleet-wide limiter's `postgresRateLimitStore`, usage on) runs the expiry notifier and
 * serves steady traffic for a while; every statement it sends is counted by kind, and
 * each periodic kind's statements per second are printed next to the model's figure.
 *
 *   npx tsx bench/periodic-load.ts                      # DATABASE_URL, or a temporary cluster
 *   PERIODIC_SECONDS=120 npx tsx bench/periodic-load.ts
 *
 * Settings of the run (the model's inputs): notifier interval I = 2 s, batch b = 25,
 * d = 30 emails due per pass (30 passcodes that enter the window at each pass, so that
 * ⌊d/b⌋ + 1 = 2 claims and 2d = 60 reads and completions per pass); usage flush F = 5 s
 * with uses in every interval; 2 refused verifications per second (the limiter writes
 * one batch per failure at this rate: a flush waits 200 ms, and the next failure comes
 * 500 ms later) and its cleanup every 60 s.
 */
import pg from 'pg'
import { DAY_MS } from '../src/core/time'
import { createPasscodeAuth, startExpiryNotifier } from '../src/index'
import { memoryMailer } from '../src/memory'
import { migrate, postgresRateLimitStore, postgresStore } from '../src/stores/postgres/index'
import { postgresAvailability, startTestPostgres } from '../test/helpers/postgres'
import { ADMIN } from './fixtures'

const SECONDS = Number(process.env.PERIODIC_SECONDS ?? 60)
const INTERVAL_MS = 2_000
const BATCH = 25
const DUE = 30
const FLUSH_MS = 5_000
const FAILURES_PER_SECOND = 2
const HOUR_MS = 3_600_000

/** Which job a statement belongs to, by its text. */
function kindOf(text: string): string {
  if (text.includes('first_email AS')) return 'notifier: claim'
  if (text.includes('SET sent_at')) return 'notifier: complete'
  if (text.includes('DELETE FROM') && text.includes('.notifications')) return 'notifier: release'
  if (text.includes('last_used_at = e.at')) return 'usage flush'
  if (text.includes('rate_limit_failures') && text.includes('INSERT')) return 'limiter: write'
  if (text.includes('rate_limit_failures') && text.includes('DELETE')) return 'limiter: cleanup'
  if (text.includes('UNION ALL') && text.includes('user_passcodes')) return 'verification lookup'
  if (/FROM \S+\.account_passcodes WHERE account_id = \$1::text AND id = \$2::text/.test(text)) return 'notifier: read passcode'
  return 'other'
}

async function main(): Promise<void> {
  const availability = postgresAvailability()
  if (!availability.available) {
    console.log(`skipped: ${availability.reason}`)
    return
  }
  const server = await startTestPostgres()
  const schema = `periodic_${process.pid}`
  const pool = new pg.Pool({ connectionString: server.connectionString, max: 4, connectionTimeoutMillis: 10_000 })
  await migrate(pool, { schema })
  const counts = new Map<string, number>()
  let counting = false
  const count = (query: unknown): void => {
    if (!counting) return
    const text = typeof query === 'string' ? query : ((query as { text?: string }).text ?? '')
    const kind = kindOf(text)
    counts.set(kind, (counts.get(kind) ?? 0) + 1)
  }
  // Every statement of every connection (the pool's and the listening one) goes through here.
  const clientQuery = pg.Client.prototype.query as (...args: unknown[]) => unknown
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    count(args[0])
    return clientQuery.apply(this, args)
  } as typeof pg.Client.prototype.query

  const limiter = postgresRateLimitStore(pool, { schema })
  // The instance's traffic, on the real clock: verifications, usage, the limiter.
  const auth = createPasscodeAuth({
    store: postgresStore(pool, { schema }),
    usage: { flushIntervalMs: FLUSH_MS },
    rateLimit: { store: limiter, maxFailuresPerAddress: 10_000, maxFailuresPerAccount: 10_000 },
  })
  // Its notifier, on a clock that moves one hour per pass (same pool, same tables).
  let now = Date.now()
  const notifying = createPasscodeAuth({
    store: postgresStore(pool, { schema, listen: false }),
    clock: () => new Date(now),
    mailer: memoryMailer(),
    recipients: () => ['ops@example.com'],
    notifier: { batchSize: BATCH },
    usage: false,
  })
  const used = await auth.passcodes.create(ADMIN, 'acc_used', { name: 'Used', expiry: 'forever' })
  // Due batches, one per pass: batch k expires 30 days and k hours after the start, so
  // it enters the expiring-soon window once the clock passes k hours; the clock moves
  // one hour per pass, on the notifier's schedule.
  const passes = Math.ceil((SECONDS * 1_000) / INTERVAL_MS) + 2
  const startClock = now
  for (let pass = 0; pass < passes; pass += 1) {
    for (let i = 0; i < DUE; i += 1) {
      now = startClock + pass * HOUR_MS - DAY_MS
      await notifying.passcodes.create(ADMIN, `acc_due_${pass}`, { name: `D${i}`, expiry: 31 })
    }
  }
  now = startClock

  process.stderr.write(`${passes * DUE} due passcodes made; measuring for ${SECONDS} s\n`)
  let pass = 0
  counting = true
  const started = performance.now()
  const notifier = startExpiryNotifier(
    {
      notifyExpirations: async () => {
        now = startClock + pass * HOUR_MS + 1
        pass += 1
        return notifying.notifyExpirations()
      },
    },
    { intervalMs: INTERVAL_MS },
  )
  const traffic = setInterval(() => {
    void auth.authenticate({ accountId: 'acc_used', passcode: used.value, clientAddress: '192.0.2.1' })
  }, 100)
  // A well-formed value that matches no passcode: a refusal the limiter counts.
  const wrong = `${used.value.slice(0, -8)}${used.value.slice(-8).split('').reverse().join('')}`
  const failures = setInterval(() => {
    void auth.authenticate({ accountId: 'acc_used', passcode: wrong, clientAddress: '192.0.2.2' })
  }, 1_000 / FAILURES_PER_SECOND)
  await new Promise((resolve) => setTimeout(resolve, SECONDS * 1_000))
  clearInterval(traffic)
  clearInterval(failures)
  await notifier.stop()
  counting = false
  const elapsed = (performance.now() - started) / 1_000

  // The model's statements for this run: per pass ⌊d/b⌋ + 1 claims and d reads and
  // completions; one usage flush per F with uses in it; one limiter write per failure
  // (each failure's flush goes out before the next failure); one limiter cleanup at the
  // first write, then one per 60 s.
  const failuresSeen = Math.floor(elapsed * FAILURES_PER_SECOND)
  const model: [string, number][] = [
    ['notifier: claim', pass * (Math.floor(DUE / BATCH) + 1)],
    ['notifier: read passcode', pass * DUE],
    ['notifier: complete', pass * DUE],
    ['usage flush', Math.floor((elapsed * 1_000) / FLUSH_MS)],
    ['limiter: write', failuresSeen],
    ['limiter: cleanup', 1 + Math.floor(elapsed / 60)],
  ]
  const measured = (kind: string) => counts.get(kind) ?? 0
  console.log(
    `one instance, ${elapsed.toFixed(1)} s, ${pass} notifier passes (I = ${INTERVAL_MS / 1_000} s, b = ${BATCH}, d = ${DUE}), F = ${FLUSH_MS / 1_000} s, ${FAILURES_PER_SECOND} failures/s`,
  )
  console.log('| job | statements, measured | model | measured / model | per second, measured |')
  console.log('|---|---:|---:|---:|---:|')
  let periodic = 0
  let predicted = 0
  for (const [kind, expected] of model) {
    periodic += measured(kind)
    predicted += expected
    console.log(
      `| ${kind} | ${measured(kind)} | ${expected} | ${(measured(kind) / expected).toFixed(2)} | ${(measured(kind) / elapsed).toFixed(3)} |`,
    )
  }
  console.log(`| periodic, all | ${periodic} | ${predicted} | ${(periodic / predicted).toFixed(2)} | ${(periodic / elapsed).toFixed(2)} |`)
  for (const [kind, value] of counts)
    if (!model.some(([name]) => name === kind)) console.log(`(${kind}: ${value}, ${(value / elapsed).toFixed(2)}/s)`)
  await auth.close()
  await notifying.close()
  await limiter.close()
  await pool.query(`DROP SCHEMA ${schema} CASCADE`)
  await pool.end()
  await server.stop()
}

await main()
