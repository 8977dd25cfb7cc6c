/**
 * Webhooks' costs (SPEC §5.53), side by side in one run, on a PostgreSQL server:
 * - a management write (a rename) in an account with one endpoint that receives every
 *   event (the write, its audit record and its event in one transaction) next to the same
 *   write in an account without an endpoint (the write and its record: the trigger finds
 *   no endpoint), in interleaved slices; the goal is at most 1.3× (issue 46);
 * - deliveries per second from one instance to a receiver on 127.0.0.1 that answers 204:
 *   `auth.webhooks.dispatch()` passes until every queued delivery is sent (goal ≥ 500/s).
 *
 *   npx tsx bench/webhook-cost.ts          # DATABASE_URL, or a temporary cluster
 */
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import pg from 'pg'
import { createPasscodeAuth } from '../src/index'
import { migrate, postgresStore } from '../src/stores/postgres/index'
import { postgresAvailability, startTestPostgres } from '../test/helpers/postgres'
import { ADMIN } from './fixtures'
import { median } from './stats'

/** Renames per slice, and slices per kind after two of warm-up. */
const SLICE = 50
const ROUNDS = 15
/** Deliveries queued for the throughput section. */
const DELIVERIES = 5_000

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

    // --- a management write with its event, and without -------------------------------
    const ids: Record<'with' | 'without', string[]> = { with: [], without: [] }
    for (const kind of ['with', 'without'] as const) {
      const account = kind === 'with' ? 'acc_hooked' : 'acc_plain'
      for (let i = 0; i < SLICE; i++) ids[kind].push((await auth.passcodes.create(ADMIN, account, { name: `P${i}`, expiry: 90 })).passcode.id)
    }
    let renames = 0
    const slice = async (kind: 'with' | 'without'): Promise<number> => {
      const account = kind === 'with' ? 'acc_hooked' : 'acc_plain'
      renames++
      const start = performance.now()
      for (const id of ids[kind]) await auth.passcodes.update(ADMIN, account, id, { name: `R${renames} ${id.slice(0, 8)}` })
      return (performance.now() - start) / SLICE
    }
    for (let warm = 0; warm < 2; warm++) for (const kind of ['with', 'without'] as const) await slice(kind)
    const times = { with: [] as number[], without: [] as number[] }
    const ratios: number[] = []
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? (['with', 'without'] as const) : (['without', 'with'] as const)
      const ms = { with: 0, without: 0 }
      for (const kind of order) ms[kind] = await slice(kind)
      times.with.push(ms.with)
      times.without.push(ms.without)
      ratios.push(ms.with / ms.without)
    }
    console.log(
      `rename with its event: ${median(times.with).toFixed(3)} ms, without: ${median(times.without).toFixed(3)} ms, ratio ${median(ratios).toFixed(2)}× (goal ≤ 1.3×; median of ${ROUNDS} interleaved slices of ${SLICE})`,
    )

    // --- deliveries per second from one instance --------------------------------------
    // Send what the section above queued first, then queue DELIVERIES test events and time their sending.
    await drain(auth)
    const endpointId = (await auth.webhooks.list(ADMIN, 'acc_hooked'))[0]!.id
    for (let i = 0; i < DELIVERIES; i++) await auth.webhooks.sendTest(ADMIN, 'acc_hooked', endpointId)
    received = 0
    const start = performance.now()
    const sent = await drain(auth)
    const seconds = (performance.now() - start) / 1000
    console.log(
      `deliveries: ${sent} sent (${received} received) in ${seconds.toFixed(2)} s from one instance: ${(sent / seconds).toFixed(0)}/s (goal ≥ 500/s; batch 500, 64 in flight, receiver on 127.0.0.1)`,
    )
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
