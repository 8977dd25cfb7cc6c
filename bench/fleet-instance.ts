/**
 * Child process of bench/fleet.ts: one service instance of a fleet sharing one
 * PostgreSQL, as a host runs it (its own `pg.Pool`, `postgresStore` listening for
 * invalidations, the verification cache on), driven over IPC. It counts the store's
 * verification reads, answers load requests with a paced stream of `authenticate`
 * calls, and reports when each invalidation reaches it.
 */
import pg from 'pg'
import { createPasscodeAuth, type PasscodeStore } from '../src/index'
import { postgresStore } from '../src/stores/postgres/index'

/** Messages from the orchestrator. */
export type ToInstance =
  | { readonly type: 'start'; readonly connectionString: string; readonly schema: string; readonly ttlMs: number; readonly poolSize: number }
  | { readonly type: 'credentials'; readonly credentials: readonly { accountId: string; passcode: string }[] }
  | { readonly type: 'load'; readonly ratePerSecond: number; readonly seconds: number }
  | { readonly type: 'check'; readonly accountId: string; readonly passcode: string }
  | { readonly type: 'stop' }

/** Messages to the orchestrator. */
export type FromInstance =
  | { readonly type: 'ready' }
  | {
      readonly type: 'loaded'
      readonly requests: number
      readonly reads: number
      readonly refused: number
      /** Refusals by reason: with valid credentials only, 503 and 504 (the store too slow under load). */
      readonly reasons: Record<string, number>
      readonly cpuMicros: number
      readonly lateMs: number
    }
  | { readonly type: 'checked'; readonly statusCode: number }
  | { readonly type: 'invalidation'; readonly at: number }
  | { readonly type: 'error'; readonly message: string }

const send = (message: FromInstance) => process.send?.(message)
/** Wall-clock ms with sub-ms precision, comparable across processes of this machine. */
const wallNow = () => performance.timeOrigin + performance.now()

let pool: pg.Pool | undefined
let auth: ReturnType<typeof createPasscodeAuth> | undefined
let store: ReturnType<typeof postgresStore> | undefined
let reads = 0
let credentials: readonly { accountId: string; passcode: string }[] = []

async function start(message: Extract<ToInstance, { type: 'start' }>): Promise<void> {
  pool = new pg.Pool({ connectionString: message.connectionString, max: message.poolSize, connectionTimeoutMillis: 10_000 })
  pool.on('error', () => {})
  store = postgresStore(pool, { schema: message.schema })
  const inner = store
  const counting: PasscodeStore = {
    ...inner,
    findCredentialByHash(hash) {
      reads++
      return inner.findCredentialByHash(hash)
    },
  }
  auth = createPasscodeAuth({ store: counting, cache: { ttlMs: message.ttlMs, maxEntries: 100_000 } })
  store.subscribe(() => send({ type: 'invalidation', at: wallNow() }))
  await store.ready()
  send({ type: 'ready' })
}

/** `ratePerSecond` calls spread evenly over `seconds`, each for a credential drawn uniformly. */
async function load(message: Extract<ToInstance, { type: 'load' }>): Promise<void> {
  const service = auth!
  const total = Math.round(message.ratePerSecond * message.seconds)
  const intervalMs = 1000 / message.ratePerSecond
  const readsBefore = reads
  const cpuBefore = process.cpuUsage()
  const started = performance.now()
  let refused = 0
  const reasons: Record<string, number> = {}
  let lateMs = 0
  const pending: Promise<void>[] = []
  for (let i = 0; i < total; i++) {
    const due = started + i * intervalMs
    const wait = due - performance.now()
    if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait))
    else lateMs = Math.max(lateMs, -wait)
    const credential = credentials[Math.floor(Math.random() * credentials.length)]!
    pending.push(
      service.authenticate(credential).then((outcome) => {
        if (outcome.ok) return
        refused++
        reasons[outcome.reason] = (reasons[outcome.reason] ?? 0) + 1
      }),
    )
  }
  await Promise.all(pending)
  const cpu = process.cpuUsage(cpuBefore)
  send({ type: 'loaded', requests: total, reads: reads - readsBefore, refused, reasons, cpuMicros: cpu.user + cpu.system, lateMs })
}

process.on('message', (message: ToInstance) => {
  const run = async () => {
    if (message.type === 'start') await start(message)
    else if (message.type === 'credentials') credentials = message.credentials
    else if (message.type === 'load') await load(message)
    else if (message.type === 'check') {
      const outcome = await auth!.authenticate({ accountId: message.accountId, passcode: message.passcode })
      send({ type: 'checked', statusCode: outcome.ok ? 200 : outcome.statusCode })
    } else {
      await auth?.close()
      await store?.close()
      await pool?.end()
      process.exit(0)
    }
  }
  run().catch((error: unknown) => send({ type: 'error', message: error instanceof Error ? (error.stack ?? error.message) : String(error) }))
})
