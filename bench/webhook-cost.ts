/**
 * Webhooks' costs (SPEC §5.53), side by side in one run:
 * - a management write (a rename) in an account with one endpoint that receives every
 *   event (the write, its audit record and its event in one transaction) next to the same
 *   write in an account without an endpoint (the write and its record: the trigger finds
 *   no endpoint), in interleaved slices; the goal is at most 1.3× (issue 46). Measured on
 *   the outbox as migration 16 made it ("v16") and as the newest migration leaves it
 *   ("now"), each in a schema of its own on the same server, on PostgreSQL and on PGlite;
 * - deliveries per second from one instance to a receiver on 127.0.0.1 that answers 204:
 *   `auth.webhooks.dispatch()` passes until every queued delivery is sent (goal ≥ 500/s),
 *   with `batchSize` 500 and 64 in flight, then with the defaults (100, 50), on PostgreSQL.
 *
 *   npx tsx bench/webhook-cost.ts                 # DATABASE_URL, or a temporary cluster
 *   npx tsx bench/webhook-cost.ts --writes-only   # the first section only
 */
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { loadavg } from 'node:os'
import { PGlite } from '@electric-sql/pglite'
import pg from 'pg'
import { createPasscodeAuth } from '../src/index'
import { toDatabase } from '../src/stores/postgres/database'
import { applyMigrations } from '../src/stores/postgres/migrate'
import { MIGRATIONS } from '../src/stores/postgres/migrations'
import { migrate, postgresStore, type PostgresDatabase } from '../src/stores/postgres/index'
import { postgresAvailability, startTestPostgres } from '../test/helpers/postgres'
import { ADMIN } from './fixtures'
import { median } from './stats'

/** Renames per slice, and rounds (each one slice per kind) after two of warm-up. */
const SLICE = 50
const ROUNDS = 15
/** Deliveries queued for the throughput section. */
const DELIVERIES = 5_000
/** The outbox before its leaner trigger (version 17). */
const V16 = MIGRATIONS.filter((migration) => migration.version <= 16)

/**
 * Renames with their event and without, on the outbox of version 16 and on the newest, in
 * interleaved slices (the order turns each round); prints the medians and each outbox's
 * median ratio of its rounds.
 */
async function writeCost(label: string, db: PostgresDatabase): Promise<void> {
  const outboxes = [] as { name: string; schema: string; auth: ReturnType<typeof createPasscodeAuth>; ids: Record<'with' | 'without', string[]> }[]
  for (const name of ['v16', 'now']) {
    const schema = `bench_webhook_write_${name}_${process.pid}`
    if (name === 'v16') await applyMigrations(toDatabase(db), schema, V16)
    else await migrate(db, { schema })
    const auth = createPasscodeAuth({ store: postgresStore(db, { schema, listen: false }), webhooks: { allowPrivateAddresses: true } })
    // Nothing delivers here: the endpoint only makes the account's writes queue their events.
    await auth.webhooks.create(ADMIN, 'acc_hooked', { url: 'http://127.0.0.1:9/hooks', events: 'all' })
    const ids = { with: [] as string[], without: [] as string[] }
    for (const kind of ['with', 'without'] as const) {
      const account = kind === 'with' ? 'acc_hooked' : 'acc_plain'
      for (let i = 0; i < SLICE; i++) ids[kind].push((await auth.passcodes.create(ADMIN, account, { name: `P${i}`, expiry: 90 })).passcode.id)
    }
    outboxes.push({ name, schema, auth, ids })
  }
  const slices = outboxes.flatMap((outbox) => (['with', 'without'] as const).map((kind) => ({ outbox, kind })))
  let renames = 0
  const slice = async ({ outbox, kind }: (typeof slices)[number]): Promise<number> => {
    const account = kind === 'with' ? 'acc_hooked' : 'acc_plain'
    renames++
    const start = performance.now()
    for (const id of outbox.ids[kind]) await outbox.auth.passcodes.update(ADMIN, account, id, { name: `R${renames} ${id.slice(0, 8)}` })
    return (performance.now() - start) / SLICE
  }
  for (let warm = 0; warm < 2; warm++) for (const each of slices) await slice(each)
  const times = new Map(slices.map((each) => [each, [] as number[]]))
  const ratios = new Map(outboxes.map((outbox) => [outbox, [] as number[]]))
  for (let round = 0; round < ROUNDS; round++) {
    // Each slice takes each place in turn.
    const order = slices.map((_, i) => slices[(i + round) % slices.length]!)
    const ms = new Map<(typeof slices)[number], number>()
    for (const each of order) ms.set(each, await slice(each))
    for (const [each, value] of ms) times.get(each)!.push(value)
    for (const outbox of outboxes) {
      const of = (kind: 'with' | 'without') => ms.get(slices.find((each) => each.outbox === outbox && each.kind === kind)!)!
      ratios.get(outbox)!.push(of('with') / of('without'))
    }
  }
  for (const outbox of outboxes) {
    const of = (kind: 'with' | 'without') => median(times.get(slices.find((each) => each.outbox === outbox && each.kind === kind)!)!)
    console.log(
      `${label}, outbox ${outbox.name}: rename with its event ${of('with').toFixed(3)} ms, without ${of('without').toFixed(3)} ms, ratio ${median(ratios.get(outbox)!).toFixed(2)}× (goal ≤ 1.3×; median of ${ROUNDS} rounds of interleaved slices of ${SLICE})`,
    )
  }
  for (const outbox of outboxes) {
    await outbox.auth.close()
    await db.query(`DROP SCHEMA ${outbox.schema} CASCADE`)
  }
}

const availability = postgresAvailability()
if (!availability.available) {
  console.log(`skipped: ${availability.reason}`)
} else {
  const server = process.env.DATABASE_URL === undefined ? await startTestPostgres() : undefined
  const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL ?? server!.connectionString, max: 8, connectionTimeoutMillis: 10_000 })
  pool.on('error', () => {})
  let received = 0
  const receiver = createServer((request, response) => {
    request.resume()
    request.on('end', () => {
      received++
      response.writeHead(204).end()
    })
  })
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve))
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`
  try {
    const schema = `bench_webhooks_${process.pid}`
    await migrate(pool, { schema })
    const store = postgresStore(pool, { schema, listen: false })
    const auth = createPasscodeAuth({ store, webhooks: { allowPrivateAddresses: true, batchSize: 500, concurrency: 64 } })
    await auth.webhooks.create(ADMIN, 'acc_hooked', { url, events: 'all' })

    // --- a management write with its event, and without ---------------------------------
    await writeCost('PostgreSQL', pool)
    const lite = new PGlite()
    await writeCost('PGlite', lite)
    await lite.close()
    console.log(
      `load average (1, 5, 15 min): ${loadavg()
        .map((load) => load.toFixed(1))
        .join(', ')}`,
    )

    // --- deliveries per second from one instance --------------------------------------
    // Queue DELIVERIES test events, then time their sending.
    if (!process.argv.includes('--writes-only')) {
      const endpointId = (await auth.webhooks.list(ADMIN, 'acc_hooked'))[0]!.id
      const defaults = createPasscodeAuth({ store, webhooks: { allowPrivateAddresses: true } })
      for (const [dispatcher, settings] of [
        [auth, 'batch 500, 64 in flight'],
        [defaults, 'the defaults: batch 100, 50 in flight'],
      ] as const) {
        for (let i = 0; i < DELIVERIES; i++) await auth.webhooks.sendTest(ADMIN, 'acc_hooked', endpointId)
        received = 0
        const start = performance.now()
        const sent = await drain(dispatcher)
        const seconds = (performance.now() - start) / 1000
        console.log(
          `deliveries: ${sent} sent (${received} received) in ${seconds.toFixed(2)} s from one instance: ${(sent / seconds).toFixed(0)}/s (goal ≥ 500/s; ${settings}, receiver on 127.0.0.1)`,
        )
      }
      await defaults.close()
    }
    await pool.query(`DROP SCHEMA ${schema} CASCADE`)
  } finally {
    receiver.close()
    await pool.end()
    await server?.stop()
  }
}

/** Runs delivery passes until one finds nothing due; answers how many attempts succeeded. */
async function drain(auth: ReturnType<typeof createPasscodeAuth>): Promise<number> {
  let sent = 0
  for (;;) {
    const report = await auth.webhooks.dispatch()
    sent += report.succeeded
    if (!report.more && report.succeeded + report.retrying + report.failed === 0) return sent
  }
}
