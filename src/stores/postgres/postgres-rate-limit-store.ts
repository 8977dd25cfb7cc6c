import { InvalidOptionsError } from '../../core/errors'
import { unrefTimer } from '../../core/time'
import { ownOptions } from '../../core/own-data'
import { FailureWindows } from '../../core/failure-windows'
import type { RateLimitStore } from '../../ports/rate-limit-store'
import { toDatabase } from './database'
import type { PostgresDatabase, Subscription } from './database-interface'
import { resolvePostgresOptions, type PostgresStoreOptions } from './options'
import { listenShared } from './shared-listen'
import { rateLimitStatements } from './rate-limit-statements'

/** Options of {@link postgresRateLimitStore}: the store's `schema`, `channel`, `listen` and `listenConnectionString`, and the batching. */
export interface PostgresRateLimitStoreOptions extends PostgresStoreOptions {
  /**
   * How long failures wait in this instance before one statement writes them all, in ms
   * (1 to 10 000). Until then other instances do not count them: the limit may be
   * exceeded by what the fleet fails in one interval plus the time a notification takes.
   * @default 200
   */
  readonly flushIntervalMs?: number
  /** Keys this instance keeps in memory (its own failures, and limits announced by others). @default 10000 */
  readonly maxKeys?: number
  /** Called when a flush or a cleanup fails (the failures of that batch are then not shared). */
  readonly onError?: (error: unknown) => void
}

/** The store {@link postgresRateLimitStore} returns. */
export interface PostgresRateLimitStore extends RateLimitStore {
  /** Synchronous from memory; a promise (the shared count, read) while the store cannot prove its `LISTEN` delivers (SPEC §5.32). */
  retryAfterMs(key: string, limit: number, windowMs: number, now: number): number | Promise<number>
  recordFailure(key: string, limit: number, windowMs: number, now: number): void
  /** Writes the failures still waiting now, rather than at the end of the interval. */
  flush(): Promise<void>
  /** Settles once limits announced by other instances are being heard. */
  ready(): Promise<void>
  /** Writes what is waiting, stops listening and the timers. */
  close(): Promise<void>
}

const CLEANUP_INTERVAL_MS = 60_000
/** Rows per statement of the cleanup: it loops until a statement deletes fewer. */
const CLEANUP_BATCH = 1_000
const FLUSH_AT_PENDING = 1_000

interface Pending {
  readonly key: string
  readonly at: number
  readonly limit: number
  readonly windowMs: number
}

function positiveInteger(option: string, value: unknown, fallback: number, max: number): number {
  if (value === undefined) return fallback
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > max) {
    throw new InvalidOptionsError(option, `must be a whole number from 1 to ${max}`)
  }
  return value
}

/** Reads an announcement from the channel; invalidations and anything else are not one. */
function parseAnnouncement(payload: string): { key: string; until: number } | undefined {
  let value: unknown
  try {
    value = JSON.parse(payload)
  } catch {
    return undefined
  }
  if (typeof value !== 'object' || value === null) return undefined
  const { type, key, until } = value as Record<string, unknown>
  return type === 'rate_limited' && typeof key === 'string' && typeof until === 'number' ? { key, until } : undefined
}

/**
 * A {@link RateLimitStore} that makes the brute-force limiter hold across a fleet, in
 * the PostgreSQL database of the passcodes (run {@link migrate} first). The check on
 * every request reads only this instance's memory: its own failures, counted exactly,
 * and the keys other instances announced as limited. Failures are written in batches,
 * one statement per `flushIntervalMs`, to the `rate_limit_failures` table, which keeps
 * per key only the newest `limit` instants inside the window; a key whose shared count
 * reaches its limit is announced on the store's `LISTEN/NOTIFY` channel, so every
 * instance refuses it from then on. A request that succeeds never touches the store.
 * Rows whose window has passed are deleted by a flush at most once a minute, and every
 * 5 minutes while idle. A database that fails only loses sharing: each instance still
 * counts its own failures. It listens on the connection the store and the partner
 * registry on the same pool share, and while that connection cannot prove it delivers
 * (SPEC §5.32) each check reads the key's shared count instead of relying on what was announced.
 *
 * @param db - a `pg` Pool or Client, or a PGlite instance (the one of `postgresStore`)
 * @param options - `schema`, `channel`, `listen` as for `postgresStore`; `flushIntervalMs` (@default 200), `maxKeys` (@default 10000), `onError`
 * @throws ConfigurationError for a `pg` Pool without `connectionTimeoutMillis`, as `postgresStore`
 * @example
 * ```ts
 * import { createPasscodeAuth } from 'passcode-auth'
 * import { migrate, postgresRateLimitStore, postgresStore } from 'passcode-auth/postgres'
 *
 * await migrate(pool)
 * const auth = createPasscodeAuth({
 *   store: postgresStore(pool),
 *   rateLimit: { store: postgresRateLimitStore(pool) },
 * })
 * ```
 */
export function postgresRateLimitStore(db: PostgresDatabase, options: PostgresRateLimitStoreOptions = {}): PostgresRateLimitStore {
  // Own properties only: a polluted Object.prototype sets no option (core/own-data.ts).
  const { flushIntervalMs: flushOption, maxKeys: keysOption, onError, ...storeOptions } = ownOptions(options)
  const { schema, channel, listen, listenConnectionString, proofIntervalMs } = resolvePostgresOptions(storeOptions)
  const flushIntervalMs = positiveInteger('flushIntervalMs', flushOption, 200, 10_000)
  const maxKeys = positiveInteger('maxKeys', keysOption, 10_000, 10_000_000)
  if (onError !== undefined && typeof onError !== 'function') throw new InvalidOptionsError('onError', 'must be a function')
  const database = toDatabase(db)
  const sql = rateLimitStatements(schema)
  const own = new FailureWindows(maxKeys)
  // Key → the instant it stops being limited, as announced (this instance's flushes included).
  const announced = new Map<string, number>()
  let pending: Pending[] = []
  let timer: ReturnType<typeof setTimeout> | undefined
  let chain: Promise<void> = Promise.resolve()
  let lastCleanup = 0
  let closed = false

  const report = (error: unknown): void => {
    try {
      onError?.(error)
    } catch {
      // The host's callback must not break the limiter.
    }
  }

  const announce = (key: string, until: number): void => {
    const known = announced.get(key)
    if (known !== undefined && known >= until) return
    announced.delete(key)
    if (announced.size >= maxKeys) {
      const oldest = announced.keys().next()
      if (oldest.done !== true) announced.delete(oldest.value)
    }
    announced.set(key, until)
  }

  // While the LISTEN cannot prove it delivers (SPEC §5.32), announcements may be missed:
  // each check then reads the shared count instead of trusting what was heard.
  let proven = true
  const subscription: Subscription | undefined = listen
    ? listenShared(
        database,
        channel,
        {
          onPayload(payload) {
            const announcement = parseAnnouncement(payload)
            if (announcement !== undefined) announce(announcement.key, announcement.until)
          },
          onProof(state) {
            proven = state.proven
          },
        },
        { connectionString: listenConnectionString, proofIntervalMs },
      )
    : undefined

  const sharedWait = async (key: string, limit: number, windowMs: number, now: number, wait: number): Promise<number> => {
    try {
      const [row] = await database.query(sql.limitedUntil.text, sql.limitedUntil.values({ key, limit, windowMs, now }))
      const until = row?.until === null || row?.until === undefined ? 0 : Number(row.until)
      return Math.max(wait, until - now)
    } catch (error) {
      report(error)
      return wait
    }
  }

  const cleanup = async (now: number): Promise<void> => {
    lastCleanup = now
    for (;;) {
      const [row] = await database.query(sql.deleteExpired.text, sql.deleteExpired.values({ now, limit: CLEANUP_BATCH }))
      if (Number(row?.deleted ?? 0) < CLEANUP_BATCH) break
    }
  }

  const write = async (): Promise<void> => {
    clearTimeout(timer)
    timer = undefined
    const batch = pending
    pending = []
    if (batch.length === 0) return
    const now = Math.max(...batch.map((failure) => failure.at))
    try {
      const rows = await database.query(
        sql.recordFailures.text,
        sql.recordFailures.values({
          keys: batch.map((failure) => failure.key),
          instants: batch.map((failure) => failure.at),
          limits: batch.map((failure) => failure.limit),
          windows: batch.map((failure) => failure.windowMs),
          now,
          channel,
        }),
      )
      for (const row of rows) if (row.until !== null) announce(String(row.key), Number(row.until))
      if (now - lastCleanup >= CLEANUP_INTERVAL_MS) await cleanup(now)
    } catch (error) {
      report(error)
    }
  }

  const flush = (): Promise<void> => {
    chain = chain.then(write)
    return chain
  }

  // While idle, expired rows still go: one DELETE every 5 minutes, not per request.
  const idleCleanup = setInterval(() => {
    if (Date.now() - lastCleanup >= CLEANUP_INTERVAL_MS) cleanup(Date.now()).catch(report)
  }, 5 * CLEANUP_INTERVAL_MS)
  unrefTimer(idleCleanup)

  return {
    retryAfterMs(key, limit, windowMs, now) {
      let wait = own.retryAfterMs(key, limit, windowMs, now)
      const until = announced.get(key)
      if (until !== undefined && until <= now) announced.delete(key)
      else if (until !== undefined) wait = Math.max(wait, until - now)
      return proven || subscription === undefined ? wait : sharedWait(key, limit, windowMs, now, wait)
    },
    recordFailure(key, limit, windowMs, now) {
      own.recordFailure(key, limit, windowMs, now)
      if (closed) return
      pending.push({ key, at: now, limit, windowMs })
      if (pending.length >= FLUSH_AT_PENDING) void flush()
      else if (timer === undefined) {
        timer = setTimeout(() => void flush(), flushIntervalMs)
        unrefTimer(timer)
      }
    },
    flush,
    ready: () => subscription?.ready ?? Promise.resolve(),
    async close() {
      if (closed) return
      closed = true
      clearInterval(idleCleanup)
      await flush()
      await subscription?.stop().catch(() => undefined)
    },
  }
}
