/**
 * Store statements at steady state for a passcode with a rate limit and credits (SPEC
 * §5.50, issue 45: at most 10 per 1 000 requests per instance per passcode, on
 * PostgreSQL). One instance as a host runs it (`postgresStore` on a `pg.Pool`,
 * listening for invalidations, the verification cache and usage recording on), one
 * passcode with a rate limit and credits, `authenticate` called at a steady `rate` per
 * second. Every statement the pool's connections send is counted in the driver (each
 * connection's `query` wrapped as the pool makes it: no `pg_stat_statements` needed)
 * and named by its text. After a warm-up, the counts start again for `requests`
 * requests; the usage flush runs every `flushIntervalMs` (shorter than its 60 s default,
 * so that the window holds a few).
 *
 *   npx tsx bench/limit-statements.ts '{"connectionString":"postgres://…","rate":1000,"requests":20000}'
 */
import pg from 'pg'
import { createPasscodeAuth } from '../src/index'
import { migrate, postgresStore } from '../src/stores/postgres/index'
import { runAsChild } from './child'
import { ADMIN } from './fixtures'

/** Settings passed as JSON in argv[2]. */
export interface LimitStatementSettings {
  readonly connectionString: string
  /** Requests per second. @default 1000 */
  readonly rate?: number
  /** Requests counted, after the warm-up. @default 20000 */
  readonly requests?: number
  /** Requests before the count starts. @default 2000 */
  readonly warmUp?: number
  /** The usage recorder's flush interval. @default 5000 */
  readonly flushIntervalMs?: number
}

/** What one run counted. */
export interface LimitStatementReport {
  readonly settings: Required<Omit<LimitStatementSettings, 'connectionString'>>
  readonly requests: number
  readonly admitted: number
  readonly seconds: number
  /** Every statement sent while the counted requests ran. */
  readonly statements: number
  readonly perThousandRequests: number
  /** By kind (lease, usage flush, lookup, …). */
  readonly byKind: Record<string, number>
}

const SCHEMA = 'bench_limit_statements'

/** Names a statement by its text. */
function kindOf(text: string): string {
  if (text.includes('lease_limits')) return 'lease (lease_limits)'
  if (text.includes('limit_counters')) return 'return of a lease'
  if (text.includes('find_credential_by_hash') || text.includes('credential')) return 'credential lookup'
  if (text.includes('last_used_at = e.at')) return 'usage flush: last use'
  if (text.includes('usage_days')) return 'usage flush: daily counts'
  if (/pg_notify|LISTEN/i.test(text)) return 'invalidation listener'
  if (/^\s*(BEGIN|COMMIT|ROLLBACK)/i.test(text)) return 'transaction control'
  return `other: ${text.trim().replace(/\s+/g, ' ').slice(0, 60)}`
}

async function main(): Promise<LimitStatementReport> {
  const input = JSON.parse(process.argv[2] ?? '{}') as LimitStatementSettings
  const settings = { rate: 1_000, requests: 20_000, warmUp: 2_000, flushIntervalMs: 5_000, ...input }
  const byKind: Record<string, number> = {}
  let counting = false
  const pool = new pg.Pool({ connectionString: settings.connectionString, max: 4, connectionTimeoutMillis: 10_000 })
  pool.on('error', () => {})
  // Every statement of every connection the pool makes (pool.query goes through client.query).
  pool.on('connect', (client) => {
    const query = client.query.bind(client) as (...args: unknown[]) => unknown
    Object.assign(client, {
      query: (...args: unknown[]) => {
        const first = args[0]
        const text = typeof first === 'string' ? first : ((first as { text?: string } | undefined)?.text ?? '')
        if (counting) {
          const kind = kindOf(text)
          byKind[kind] = (byKind[kind] ?? 0) + 1
        }
        return query(...args)
      },
    })
  })
  await pool.query(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`)
  await migrate(pool, { schema: SCHEMA })
  const store = postgresStore(pool, { schema: SCHEMA })
  const auth = createPasscodeAuth({ store, usage: { flushIntervalMs: settings.flushIntervalMs } })
  const { value } = await auth.passcodes.create(ADMIN, 'acc_statements', {
    name: 'Metered',
    expiry: 365,
    rateLimit: { max: 1_000_000, windowSeconds: 60 },
    credits: { remaining: 1_000_000_000 },
  })
  const credential = { accountId: 'acc_statements', passcode: value }

  /** `count` calls at `rate` per second, in ticks of 10 ms; the number admitted. */
  async function paced(count: number): Promise<number> {
    const started = performance.now()
    const pending: Promise<boolean>[] = []
    for (let sent = 0; sent < count;) {
      const due = Math.min(count, Math.floor(((performance.now() - started) / 1000) * settings.rate) + 1)
      for (; sent < due; sent++) pending.push(auth.authenticate(credential).then((outcome) => outcome.ok))
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
    return (await Promise.all(pending)).filter(Boolean).length
  }

  try {
    await paced(settings.warmUp)
    counting = true
    const started = performance.now()
    const admitted = await paced(settings.requests)
    const seconds = (performance.now() - started) / 1000
    counting = false
    if (admitted !== settings.requests) throw new Error(`${settings.requests - admitted} of ${settings.requests} requests refused`)
    const statements = Object.values(byKind).reduce((sum, n) => sum + n, 0)
    return {
      settings: { rate: settings.rate, requests: settings.requests, warmUp: settings.warmUp, flushIntervalMs: settings.flushIntervalMs },
      requests: settings.requests,
      admitted,
      seconds,
      statements,
      perThousandRequests: (statements * 1000) / settings.requests,
      byKind,
    }
  } finally {
    await auth.close()
    await store.close()
    await pool.query(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`).catch(() => {})
    await pool.end()
  }
}

runAsChild(main)
