import { describe, expect, it } from 'vitest'
import { toDatabase } from '../../src/stores/postgres/database'
import { migrate } from '../../src/stores/postgres/migrate'
import { postgresRateLimitStore, type PostgresRateLimitStore } from '../../src/stores/postgres/postgres-rate-limit-store'
import { eventually } from '../conformance/store/fixtures'
import { rateLimitStoreConformance } from '../conformance/rate-limit-store'
import { uniqueSchema } from './sql-fixture'
import type { SqlCaseConnections } from './sql-store-cases'

/** The fleet-wide limiter store: the port's cases on one instance, then what only a shared store does. */
export function rateLimitStoreCases(name: string, connections: SqlCaseConnections): void {
  let schema: string | undefined
  const migrated = async (): Promise<string> => {
    schema ??= uniqueSchema()
    await migrate(connections.main(), { schema })
    return schema
  }

  rateLimitStoreConformance(
    `postgresRateLimitStore on ${name}`,
    async () => {
      const store = postgresRateLimitStore(connections.main(), { ...connections.storeOptions, schema: await migrated() })
      return { store, close: () => store.close() }
    },
    40,
  )

  describe(`postgresRateLimitStore on ${name}: across instances`, () => {
    const open = async (options: { flushIntervalMs?: number } = {}) => {
      const shared = await migrated()
      const other = await connections.another()
      const stores: PostgresRateLimitStore[] = [
        postgresRateLimitStore(connections.main(), { ...connections.storeOptions, schema: shared, ...options }),
        postgresRateLimitStore(other.db, { ...connections.storeOptions, schema: shared, ...options }),
      ]
      await Promise.all(stores.map((store) => store.ready()))
      const rows = async (key: string) =>
        toDatabase(connections.main()).query(
          `SELECT instants::text AS instants, expires_at::text AS expires_at FROM ${shared}.rate_limit_failures WHERE key = $1`,
          [key],
        )
      return {
        stores,
        rows,
        async close() {
          await Promise.all(stores.map((store) => store.close()))
          await other.close()
        },
      }
    }

    it('limits a key on every instance once the sum of their failures reaches the limit', async () => {
      const { stores, close } = await open()
      const [a, b] = stores as [PostgresRateLimitStore, PostgresRateLimitStore]
      const key = `address:sum-${Date.now()}`
      const now = Date.now()
      for (let i = 0; i < 3; i++) a.recordFailure(key, 5, 60_000, now + i)
      b.recordFailure(key, 5, 60_000, now + 3)
      await Promise.all([a.flush(), b.flush()])
      expect(a.retryAfterMs(key, 5, 60_000, now + 4)).toBe(0)
      expect(b.retryAfterMs(key, 5, 60_000, now + 4)).toBe(0)
      b.recordFailure(key, 5, 60_000, now + 4)
      await b.flush()
      // The fifth failure, on b: a hears of it; both refuse until the first one leaves.
      expect(b.retryAfterMs(key, 5, 60_000, now + 5)).toBe(60_000 - 5)
      await eventually(() => expect(a.retryAfterMs(key, 5, 60_000, now + 5)).toBe(60_000 - 5), 5_000)
      expect(a.retryAfterMs(key, 5, 60_000, now + 60_000)).toBe(0)
      await close()
    })

    it('writes a batch per interval, keeps at most `limit` instants per key, and deletes rows whose window passed', async () => {
      const { stores, rows, close } = await open({ flushIntervalMs: 50 })
      const [a] = stores as [PostgresRateLimitStore]
      const now = Date.now()
      const key = `account:bounded-${now}`
      for (let i = 0; i < 100; i++) a.recordFailure(key, 3, 1_000, now + i)
      expect(await rows(key)).toEqual([]) // nothing written on the request
      await eventually(
        async () => expect(await rows(key)).toEqual([{ instants: `{${now + 97},${now + 98},${now + 99}}`, expires_at: String(now + 1_099) }]),
        5_000,
      )
      // A flush more than a minute later removes the rows whose window has passed.
      const later = `account:later-${now}`
      a.recordFailure(later, 3, 1_000, now + 120_000)
      await a.flush()
      expect(await rows(key)).toEqual([])
      expect(await rows(later)).toHaveLength(1)
      await close()
    })
  })
}
