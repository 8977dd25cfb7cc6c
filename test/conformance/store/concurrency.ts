import { describe, expect, it } from 'vitest'
import type { CreateResult, PasscodeStore } from '../../../src/ports/passcode-store'
import { NOW, accountPasscode, userPasscode, type StoreFixture, audited } from './fixtures'

const CAP = 100
const CREATES = 300

/** Three instances over the same storage, as three processes with their own pools. */
async function threeInstances(fixture: StoreFixture): Promise<PasscodeStore[]> {
  return [fixture.store, await fixture.peer(), await fixture.peer()]
}

/**
 * At most this many calls of one instance in flight: a pg Pool's size (10 connections),
 * so the database sees the same 30 concurrent transactions as 300 calls at once would
 * give it, while the calls waiting for a connection wait here rather than in the pool.
 * A pool's statement deadline (5 s) counts from the ask for a connection, so 300 calls
 * queued in 3 pools would have to finish within 5 s of the first, which a loaded
 * machine (40 ms a create at load 10) does not give them.
 */
const IN_FLIGHT_PER_INSTANCE = 10

/** `calls` run on three instances (call i on instance i % 3), each instance keeping {@link IN_FLIGHT_PER_INSTANCE} in flight; results in call order. */
async function onThree<T>(stores: readonly PasscodeStore[], calls: number, call: (store: PasscodeStore, i: number) => Promise<T>): Promise<T[]> {
  const results: T[] = new Array<T>(calls)
  const lanes = stores.map(async (store, instance) => {
    const mine = Array.from({ length: calls }, (_, i) => i).filter((i) => i % stores.length === instance)
    let next = 0
    const worker = async () => {
      while (next < mine.length) {
        const i = mine[next++]!
        results[i] = await call(store, i)
      }
    }
    await Promise.all(Array.from({ length: IN_FLIGHT_PER_INSTANCE }, worker))
  })
  await Promise.all(lanes)
  return results
}

function tally(results: readonly CreateResult[]): Record<string, number> {
  const counts: Record<string, number> = {}
  for (const result of results) {
    const key = result.ok ? 'ok' : result.reason
    counts[key] = (counts[key] ?? 0) + 1
  }
  return counts
}

/** The cap and name uniqueness under concurrent writes from several instances. */
export function concurrencyCases(fixture: () => StoreFixture): void {
  describe('concurrency', () => {
    it(`keeps exactly ${CAP} passcodes under ${CREATES} concurrent creates spread across 3 instances`, async () => {
      const stores = await threeInstances(fixture())
      const results = await onThree(stores, CREATES, (store, i) =>
        store.createAccountPasscode(accountPasscode({ name: `Concurrent ${i}` }), CAP, audited('acc_1', 'passcode.created')),
      )
      expect(tally(results)).toEqual({ ok: CAP, cap_reached: CREATES - CAP })
      expect(await stores[1]!.listAccountPasscodes('acc_1')).toHaveLength(CAP)
    })

    it(`gives each name exactly one winner under ${CREATES} concurrent creates of 50 names across 3 instances`, async () => {
      const stores = await threeInstances(fixture())
      const spellings = (i: number) => [`Name ${i}`, `NAME ${i}`, ` name ${i} `, `nAmE ${i}`, `Name ${i}  `, `name ${i}`]
      const attempts = Array.from({ length: 50 }, (_, i) => spellings(i)).flat()
      const results = await onThree(stores, attempts.length, (store, i) =>
        store.createAccountPasscode(
          accountPasscode({ name: attempts[i]!, nameKey: attempts[i]!.trim().toLowerCase() }),
          CAP,
          audited('acc_1', 'passcode.created'),
        ),
      )
      expect(tally(results)).toEqual({ ok: 50, duplicate_name: CREATES - 50 })
      const winners = results.flatMap((result) => (result.ok ? [result.record.nameKey] : []))
      expect(new Set(winners).size).toBe(50)
      const stored = await stores[2]!.listAccountPasscodes('acc_1')
      expect(new Set(stored.map((record) => record.nameKey)).size).toBe(50)
    })

    it(`holds the cap and the names together: ${CREATES} creates of 150 names, each name twice`, async () => {
      const stores = await threeInstances(fixture())
      const results = await onThree(stores, CREATES, (store, i) => {
        const name = i % 2 === 0 ? `Pair ${i >> 1}` : `PAIR ${i >> 1}`
        return store.createAccountPasscode(accountPasscode({ name, nameKey: name.toLowerCase() }), CAP, audited('acc_1', 'passcode.created'))
      })
      const counts = tally(results)
      expect(counts.ok).toBe(CAP)
      expect((counts.cap_reached ?? 0) + (counts.duplicate_name ?? 0)).toBe(CREATES - CAP)
      const stored = await stores[0]!.listAccountPasscodes('acc_1')
      expect(stored).toHaveLength(CAP)
      expect(new Set(stored.map((record) => record.nameKey)).size).toBe(CAP)
    })

    it('lets exactly one of concurrent renames to the same name win', async () => {
      const stores = await threeInstances(fixture())
      const records = Array.from({ length: 12 }, () => accountPasscode())
      for (const record of records) await stores[0]!.createAccountPasscode(record, CAP, audited(record, 'passcode.created'))
      const results = await Promise.all(
        records.map((record, i) =>
          stores[i % 3]!.updateAccountPasscode('acc_1', record.id, { name: 'Shared', nameKey: 'shared', updatedAt: NOW }, audited('acc_1')),
        ),
      )
      expect(results.filter((result) => result.ok)).toHaveLength(1)
      expect(results.filter((result) => !result.ok && result.reason === 'duplicate_name')).toHaveLength(11)
    })

    it('lets exactly one of concurrent grants to the same user win', async () => {
      const stores = await threeInstances(fixture())
      const results = await Promise.all(
        Array.from({ length: 12 }, (_, i) => stores[i % 3]!.grantUserPasscode(userPasscode(), NOW, audited('acc_1', 'user_passcode.granted'))),
      )
      const winners = results.flatMap((result) => (result.ok ? [result.record] : []))
      expect(winners).toHaveLength(1)
      expect(await stores[1]!.getUserPasscode('acc_1', 'u_1')).toEqual(winners[0])
    })
  })
}
