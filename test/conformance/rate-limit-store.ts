import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { RateLimitStore } from '../../src/ports/rate-limit-store'

const SEED = Number(process.env.FC_SEED ?? 424242)

/** The sliding window by its definition: every failure ever recorded, none forgotten. */
export function modelRetryAfterMs(failures: readonly number[], limit: number, windowMs: number, now: number): number {
  const inWindow = failures.filter((at) => at > now - windowMs && at <= now).sort((a, b) => a - b)
  if (inWindow.length < limit) return 0
  return inWindow[inWindow.length - limit]! + windowMs - now
}

interface Step {
  readonly advanceMs: number
  readonly key: 0 | 1
  readonly fail: boolean
}

/** One rate-limit store under test, and how to let it go. */
export interface RateLimitStoreFixture {
  readonly store: RateLimitStore
  close(): Promise<void>
}

let run = 0

/**
 * What every {@link RateLimitStore} answers on one instance: the exact sliding window
 * of the port's contract. The memory store is the reference; a shared store passes the
 * same cases (its cross-instance behaviour is tested with it).
 *
 * @param numRuns - runs of the property (a store that writes to a database gets fewer)
 */
export function rateLimitStoreConformance(name: string, open: () => Promise<RateLimitStoreFixture>, numRuns = 500): void {
  describe(`${name}: the sliding window`, () => {
    it('answers exactly like the definition, at and around every window edge (fast-check)', async () => {
      const step = fc.record({
        // Many zero and exact-window steps, so instants meet the window edge exactly.
        advanceMs: fc.oneof(fc.constantFrom(0, 1, 999, 1000, 1001), fc.integer({ min: 0, max: 3000 })),
        key: fc.constantFrom<0 | 1>(0, 1),
        fail: fc.boolean(),
      })
      await fc.assert(
        fc.asyncProperty(fc.integer({ min: 1, max: 6 }), fc.array(step, { maxLength: 80 }), async (limit, steps: Step[]) => {
          const windowMs = 1000
          const { store, close } = await open()
          const keys = [`conformance-${++run}-k0`, `conformance-${run}-k1`] as const
          try {
            const failures: number[][] = [[], []]
            let now = 1_700_000_000_000
            for (const { advanceMs, key, fail } of steps) {
              now += advanceMs
              if (fail) {
                await store.recordFailure(keys[key], limit, windowMs, now)
                failures[key]!.push(now)
              }
              for (const k of [0, 1] as const) {
                expect(await store.retryAfterMs(keys[k], limit, windowMs, now)).toBe(modelRetryAfterMs(failures[k]!, limit, windowMs, now))
              }
            }
            // After the whole window has passed, nothing is limited any more.
            for (const k of [0, 1] as const) expect(await store.retryAfterMs(keys[k], limit, windowMs, now + windowMs)).toBe(0)
          } finally {
            await close()
          }
        }),
        { seed: SEED, numRuns },
      )
    })

    it('limits at the limit-th failure and frees the key exactly when the oldest counted one leaves', async () => {
      const { store, close } = await open()
      const key = `conformance-${++run}-k`
      const windowMs = 10_000
      await store.recordFailure(key, 3, windowMs, 1_000)
      await store.recordFailure(key, 3, windowMs, 2_000)
      expect(await store.retryAfterMs(key, 3, windowMs, 2_000)).toBe(0)
      await store.recordFailure(key, 3, windowMs, 3_000)
      expect(await store.retryAfterMs(key, 3, windowMs, 3_000)).toBe(8_000) // 1_000 leaves at 11_000
      expect(await store.retryAfterMs(key, 3, windowMs, 10_999)).toBe(1)
      expect(await store.retryAfterMs(key, 3, windowMs, 11_000)).toBe(0) // t = now − window is outside
      await close()
    })

    it('counts only the newest `limit` failures, however many there were', async () => {
      const { store, close } = await open()
      const key = `conformance-${++run}-k`
      for (let i = 0; i < 2_000; i++) await store.recordFailure(key, 4, 1e9, i)
      // Exactly the newest four count: the key frees when instant 1_996 leaves.
      expect(await store.retryAfterMs(key, 4, 1e9, 2_000)).toBe(1_996 + 1e9 - 2_000)
      await close()
    })
  })
}
