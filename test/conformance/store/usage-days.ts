import { describe, expect, it } from 'vitest'
import type { Actor } from '../../../src/core/entities'
import type { UsageCount } from '../../../src/ports/passcode-store'
import { createPasscodeAuth } from '../../../src/service/create-passcode-auth'
import type { StoreFixture } from './fixtures'

const admin: Actor = { userId: 'u_admin', role: 'admin' }
const count = (overrides: Partial<UsageCount> = {}): UsageCount => ({
  kind: 'account',
  accountId: 'acc_1',
  key: 'pc_1',
  day: '2030-01-01',
  partner: '',
  outcome: 'succeeded',
  n: 1,
  ...overrides,
})
const headersOf = (value: string) => ({ 'x-service-account-id': 'acc_1', 'x-service-passcode': value })

/** Usage over time (SPEC §5.41): daily counts that add up across instances, read by day, pruned in batches. */
export function usageDaysCases(fixture: () => StoreFixture): void {
  describe('SPEC 5.41 usage over time', () => {
    it('adds counts to the stored ones, per credential, day, partner and outcome', async () => {
      const { store, peer } = fixture()
      const other = await peer()
      await store.recordUsageCounts!([count({ n: 3 }), count({ outcome: 'expired', n: 2 }), count({ partner: 'acme', n: 4 })])
      await Promise.all([
        store.recordUsageCounts!([count({ n: 5 }), count({ day: '2030-01-02', n: 1 })]),
        other.recordUsageCounts!([count({ n: 7 }), count({ partner: 'acme', n: 1 })]),
      ])
      // Another credential, kind or account is counted apart.
      await store.recordUsageCounts!([count({ key: 'pc_2', n: 9 }), count({ kind: 'user', n: 9 }), count({ accountId: 'acc_2', n: 9 })])
      await store.recordUsageCounts!([])
      expect(await store.listUsageCounts!({ kind: 'account', accountId: 'acc_1', key: 'pc_1', from: '2030-01-01' })).toEqual([
        { day: '2030-01-01', partner: '', outcome: 'expired', n: 2 },
        { day: '2030-01-01', partner: '', outcome: 'succeeded', n: 15 },
        { day: '2030-01-01', partner: 'acme', outcome: 'succeeded', n: 5 },
        { day: '2030-01-02', partner: '', outcome: 'succeeded', n: 1 },
      ])
      expect(await store.listUsageCounts!({ kind: 'account', accountId: 'acc_1', key: 'pc_1', from: '2030-01-02' })).toEqual([
        { day: '2030-01-02', partner: '', outcome: 'succeeded', n: 1 },
      ])
    })

    it('prunes days before a day, at most `limit` rows a call', async () => {
      const { store } = fixture()
      const old = Array.from({ length: 25 }, (_, i) => count({ partner: `p${i}`, day: '2029-12-30' }))
      await store.recordUsageCounts!([...old, count({ day: '2029-12-31' }), count({ day: '2030-01-01' })])
      expect(await store.pruneUsageCounts!('2029-12-31', 10)).toBe(10)
      expect(await store.pruneUsageCounts!('2029-12-31', 10)).toBe(10)
      expect(await store.pruneUsageCounts!('2029-12-31', 10)).toBe(5)
      expect(await store.pruneUsageCounts!('2029-12-31', 10)).toBe(0)
      const left = await store.listUsageCounts!({ kind: 'account', accountId: 'acc_1', key: 'pc_1', from: '2000-01-01' })
      expect(left.map((row) => row.day)).toEqual(['2029-12-31', '2030-01-01'])
    })

    it('two instances count every request they answered, and close() loses none', async () => {
      const { store, peer } = fixture()
      const other = await peer()
      const first = createPasscodeAuth({ store, partners: ['acme', 'beta'] })
      const second = createPasscodeAuth({ store: other, partners: ['acme', 'beta'] })
      const bound = await first.passcodes.create(admin, 'acc_1', { name: 'Bound', expiry: 30, partners: ['acme'] })
      const off = await first.passcodes.create(admin, 'acc_1', { name: 'Off', expiry: 30 })
      await first.passcodes.disable(admin, 'acc_1', off.passcode.id)
      const sent = { succeeded: 0, connected: 0, wrongPartner: 0, disabled: 0 }
      for (const [auth, rounds] of [
        [first, 6],
        [second, 4],
      ] as const) {
        for (let i = 0; i < rounds; i++) {
          expect((await auth.authenticate({ accountId: 'acc_1', passcode: bound.value })).ok).toBe(true)
          sent.succeeded++
          expect((await auth.connect({ headers: headersOf(bound.value), partner: 'acme' })).statusCode).toBe(200)
          sent.connected++
          expect((await auth.connect({ headers: headersOf(bound.value), partner: 'beta' })).statusCode).toBe(403)
          sent.wrongPartner++
          expect((await auth.authenticate({ accountId: 'acc_1', passcode: off.value })).ok).toBe(false)
          sent.disabled++
        }
      }
      await Promise.all([first.close(), second.close()])
      const [day] = (await first.passcodes.usage(admin, 'acc_1', bound.passcode.id)).days
      expect(day).toMatchObject({
        succeeded: sent.succeeded + sent.connected,
        wrongPartner: sent.wrongPartner,
        partners: [
          { partner: 'acme', succeeded: sent.connected, wrongPartner: 0 },
          { partner: 'beta', succeeded: 0, wrongPartner: sent.wrongPartner },
        ],
      })
      const [offDay] = (await first.passcodes.usage(admin, 'acc_1', off.passcode.id)).days
      expect(offDay).toMatchObject({ succeeded: 0, disabled: sent.disabled })
    })
  })
}
