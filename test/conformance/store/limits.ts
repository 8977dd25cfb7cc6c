import { describe, expect, it } from 'vitest'
import { DAY_MS } from '../../../src/core/time'
import type { StoredCredits } from '../../../src/core/limits'
import type { LimitsLeaseRequest, LimitsPart } from '../../../src/ports/limits-part'
import type { PasscodeStore } from '../../../src/ports/passcode-store'
import { NOW, accountPasscode, signed, userPasscode, type StoreFixture, audited } from './fixtures'

const credits = (remaining: number, extra: Partial<StoredCredits> = {}): StoredCredits => ({
  remaining,
  refill: null,
  epoch: `e-${remaining}-${Math.random()}`,
  setAt: NOW,
  ...extra,
})

const limitsOf = (store: PasscodeStore): LimitsPart => {
  if (store.leaseLimits === undefined) throw new Error('the store has no limits part')
  return store
}

const request = (key: string, ask: Partial<LimitsLeaseRequest> = {}): LimitsLeaseRequest => ({
  kind: 'account',
  accountId: 'acc_1',
  key,
  now: NOW,
  credits: 0,
  slots: 0,
  lowRatio: 0.1,
  notices: { token: 'token-1', claimedUntil: NOW + 60_000 },
  ...ask,
})

/** SPEC §5.50: the counters instances lease credits and window slots from, as every store keeps them. */
export function limitCases(fixture: () => StoreFixture): void {
  describe('limits and credits (SPEC 5.50)', () => {
    it('keeps the settings with the record, by id, list and hash, and an edit changes or removes them', async () => {
      const { store } = fixture()
      const record = accountPasscode({ rateLimit: { max: 10, windowSeconds: 60 }, credits: credits(100) })
      await store.createAccountPasscode(record, 100, audited(record, 'passcode.created'))
      expect(await store.getAccountPasscode('acc_1', record.id)).toEqual(record)
      expect((await store.findCredentialByHash(record.hash))?.record).toMatchObject({ rateLimit: record.rateLimit, credits: record.credits })
      const next = credits(5, { refill: { amount: 50, interval: 'month' } })
      await store.updateAccountPasscode('acc_1', record.id, { rateLimit: null, credits: next, updatedAt: NOW + 1 }, audited('acc_1'))
      const after = await store.getAccountPasscode('acc_1', record.id)
      expect(after?.credits).toEqual(next)
      expect(after?.rateLimit ?? null).toBeNull()
      const user = userPasscode({ rateLimit: { max: 3, windowSeconds: 1 }, credits: credits(7) })
      await store.grantUserPasscode(user, NOW, audited(user, 'user_passcode.granted'))
      expect((await store.findCredentialByHash(user.hash))?.record).toMatchObject({ rateLimit: user.rateLimit, credits: user.credits })
    })

    it('leases at most half of what is left, rounded up, never more than the balance in all', async () => {
      const { store } = fixture()
      const limits = limitsOf(store)
      const record = accountPasscode({ credits: credits(10) })
      await store.createAccountPasscode(record, 100, audited(record, 'passcode.created'))
      const granted: number[] = []
      for (let i = 0; i < 8; i++) granted.push((await limits.leaseLimits(request(record.id, { credits: 100 })))!.credits!.granted)
      expect(granted).toEqual([5, 3, 1, 1, 0, 0, 0, 0])
      expect(await limits.listCreditBalances('acc_1', NOW)).toEqual([{ kind: 'account', key: record.id, balance: 0 }])
    })

    it('makes the low and exhausted notices once per crossing, claimed by the lease that crossed', async () => {
      const { store } = fixture()
      const limits = limitsOf(store)
      const record = accountPasscode({ credits: credits(20) })
      await store.createAccountPasscode(record, 100, audited(record, 'passcode.created'))
      const first = await limits.leaseLimits(request(record.id, { credits: 18 }))
      expect(first?.credits).toMatchObject({ granted: 10, balance: 10 })
      expect(first?.notices).toEqual([])
      const low = await limits.leaseLimits(request(record.id, { credits: 9 }))
      expect(low?.credits).toMatchObject({ granted: 5, balance: 5 })
      expect(low?.notices).toEqual([])
      const crossing = await limits.leaseLimits(request(record.id, { credits: 3 }))
      expect(crossing?.credits).toMatchObject({ granted: 3, balance: 2 })
      expect(crossing?.notices).toMatchObject([
        { type: 'low', balance: 2, full: 20, nextRefillAt: null, name: record.name, hint: record.hint, token: 'token-1' },
      ])
      await limits.leaseLimits(request(record.id, { credits: 2 }))
      await limits.leaseLimits(request(record.id, { credits: 2 }))
      const none = await limits.leaseLimits(request(record.id, { credits: 2 }))
      expect(none?.credits?.granted).toBe(0)
      expect(none?.notices).toMatchObject([{ type: 'exhausted', balance: 0 }])
      expect((await limits.leaseLimits(request(record.id, { credits: 2 })))?.notices).toEqual([])
      // Claimed by the leases: none is due until their claims lapse; then both, oldest first, once.
      expect(await limits.claimCreditNotices({ now: NOW + 1, leaseMs: 1000, limit: 10, token: 'runner' })).toEqual([])
      const claims = await limits.claimCreditNotices({ now: NOW + 60_000, leaseMs: 1000, limit: 10, token: 'runner' })
      expect(claims.map((claim) => claim.type).sort()).toEqual(['exhausted', 'low'])
      expect(await limits.completeCreditNotice(claims[0]!, NOW + 60_001, audited(claims[0]!, 'notification.sent'))).toBe(true)
      expect(await limits.completeCreditNotice(claims[0]!, NOW + 60_002, audited(claims[0]!, 'notification.sent'))).toBe(false)
      await limits.releaseCreditNotice(claims[1]!)
      const again = await limits.claimCreditNotices({ now: NOW + 60_003, leaseMs: 1000, limit: 10, token: 'runner-2' })
      expect(again.map((claim) => claim.id)).toEqual([claims[1]!.id])
      expect(await limits.completeCreditNotice(again[0]!, NOW + 60_004, signed(auditOf(record.id)))).toBe(true)
    })

    it('refills at the start of each UTC interval, to the amount, and a new setting starts a new balance', async () => {
      const { store } = fixture()
      const limits = limitsOf(store)
      const setting = credits(4, { refill: { amount: 6, interval: 'day' } })
      const record = accountPasscode({ credits: setting })
      await store.createAccountPasscode(record, 100, audited(record, 'passcode.created'))
      const lease = await limits.leaseLimits(request(record.id, { credits: 100 }))
      expect(lease?.credits).toMatchObject({ granted: 2, balance: 2, epoch: setting.epoch, period: NOW })
      const tomorrow = NOW + DAY_MS + 5
      expect(await limits.listCreditBalances('acc_1', tomorrow)).toEqual([{ kind: 'account', key: record.id, balance: 6 }])
      const next = await limits.leaseLimits(request(record.id, { credits: 100, now: tomorrow }))
      expect(next?.credits).toMatchObject({ granted: 3, balance: 3, period: NOW + DAY_MS })
      // A return into the interval before is void; into the current one it counts.
      await limits.returnLimits([back(record.id, { credits: 2, epoch: setting.epoch, period: NOW })], tomorrow)
      await limits.returnLimits([back(record.id, { credits: 1, epoch: setting.epoch, period: NOW + DAY_MS })], tomorrow)
      expect(await limits.listCreditBalances('acc_1', tomorrow)).toEqual([{ kind: 'account', key: record.id, balance: 4 }])
      const fresh = credits(9)
      await store.updateAccountPasscode('acc_1', record.id, { credits: fresh, updatedAt: tomorrow }, audited('acc_1'))
      expect(await limits.listCreditBalances('acc_1', tomorrow)).toEqual([{ kind: 'account', key: record.id, balance: 9 }])
      await limits.returnLimits([back(record.id, { credits: 3, epoch: setting.epoch, period: NOW + DAY_MS })], tomorrow)
      expect((await limits.leaseLimits(request(record.id, { credits: 1, now: tomorrow })))?.credits).toMatchObject({ granted: 1, balance: 8 })
    })

    it('hands out window slots, at most half of what is left, and none of a window the counter has passed', async () => {
      const { store } = fixture()
      const limits = limitsOf(store)
      const user = userPasscode({ rateLimit: { max: 10, windowSeconds: 60 } })
      await store.grantUserPasscode(user, NOW, audited(user, 'user_passcode.granted'))
      const ask = (now: number, slots: number) => limits.leaseLimits(request('u_1', { kind: 'user', now, slots }))
      expect((await ask(NOW, 100))?.slots).toEqual({ granted: 5, windowStart: NOW, windowMs: 60_000 })
      expect((await ask(NOW + 10, 100))?.slots?.granted).toBe(3)
      await limits.returnLimits([back('u_1', { kind: 'user', slots: 2, windowStart: NOW, windowMs: 60_000 })], NOW + 20)
      expect((await ask(NOW + 30, 100))?.slots?.granted).toBe(2)
      expect((await ask(NOW + 60_000, 100))?.slots).toEqual({ granted: 5, windowStart: NOW + 60_000, windowMs: 60_000 })
      // An instance whose clock lags gets nothing of the window before.
      expect((await ask(NOW + 59_999, 100))?.slots).toEqual({ granted: 0, windowStart: NOW + 60_000, windowMs: 60_000 })
      expect((await ask(NOW, 0))?.credits).toBeNull()
    })

    it('answers null for a credential that does not exist', async () => {
      const { store } = fixture()
      expect(await limitsOf(store).leaseLimits(request('pc_none', { credits: 1 }))).toBeNull()
    })

    it('never hands out more than the balance to leases racing from several instances', async () => {
      const { store, peer } = fixture()
      const record = accountPasscode({ credits: credits(1000), rateLimit: { max: 500, windowSeconds: 86_400 } })
      await store.createAccountPasscode(record, 100, audited(record, 'passcode.created'))
      const stores = [limitsOf(store), limitsOf(await peer()), limitsOf(await peer())]
      let credited = 0
      let slotted = 0
      await Promise.all(
        stores.map(async (limits) => {
          for (let i = 0; i < 30; i++) {
            const lease = await limits.leaseLimits(request(record.id, { credits: 40, slots: 40 }))
            credited += lease!.credits!.granted
            slotted += lease!.slots!.granted
          }
        }),
      )
      const [left] = await stores[0]!.listCreditBalances('acc_1', NOW)
      expect(credited + left!.balance).toBe(1000)
      expect(slotted).toBeLessThanOrEqual(500)
    })
  })
}

const back = (key: string, part: Partial<Parameters<LimitsPart['returnLimits']>[0][number]>) => ({
  kind: 'account' as const,
  accountId: 'acc_1',
  key,
  credits: 0,
  epoch: '',
  period: 0,
  slots: 0,
  windowStart: 0,
  windowMs: 0,
  ...part,
})

const auditOf = (passcodeId: string) => ({
  accountId: 'acc_1',
  at: NOW + 60_004,
  actor: { type: 'system' as const },
  action: 'notification.sent' as const,
  target: { type: 'passcode' as const, id: passcodeId, name: 'Partner' },
  changes: { notification: { before: null, after: 'credits_low' } },
  requestId: null,
  clientAddress: null,
})
