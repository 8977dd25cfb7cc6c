import { describe, expect, it } from 'vitest'
import { DAY_MS } from '../../../src/core/time'
import type { Invalidation } from '../../../src/ports/passcode-store'
import { NOW, accountPasscode, eventually, fakeHash, subscribeReady, userPasscode, type StoreFixture, audited } from './fixtures'

/** Invalidations: every change to a credential reaches the subscribers of every instance. */
export function invalidationCases(fixture: () => StoreFixture): void {
  describe('invalidations', () => {
    it('every credential change reaches a subscriber of another instance within 1 second', async () => {
      const { store, peer } = fixture()
      const other = await peer()
      const received = await subscribeReady(other, store)
      const arrives = (invalidation: Invalidation) => eventually(() => expect(received).toContainEqual(invalidation), 1_000)

      const record = accountPasscode()
      await store.createAccountPasscode(record, 100, audited(record, 'passcode.created'))
      const passcode = { type: 'account_passcode', accountId: 'acc_1', passcodeId: record.id } as const
      await store.updateAccountPasscode('acc_1', record.id, { name: 'Renamed', nameKey: 'renamed', updatedAt: NOW }, audited('acc_1'))
      await arrives(passcode)
      received.length = 0
      await store.updateAccountPasscode('acc_1', record.id, { expiry: 1, expiresAt: NOW + DAY_MS, updatedAt: NOW }, audited('acc_1'))
      await arrives(passcode)
      received.length = 0
      await store.deleteAccountPasscode('acc_1', record.id, audited('acc_1', 'passcode.deleted'))
      await arrives(passcode)

      const user = { type: 'user_passcode', accountId: 'acc_1', userId: 'u_1' } as const
      await store.grantUserPasscode(userPasscode(), NOW, audited('acc_1', 'user_passcode.granted'))
      received.length = 0
      const fields = { hash: fakeHash(), ciphertext: 'fixture-ciphertext-r', hint: 'psc_…Rr11', grantedAt: NOW, expiresAt: NOW + DAY_MS }
      await store.resetUserPasscode('acc_1', 'u_1', fields, audited('acc_1', 'user_passcode.reset'))
      await arrives(user)
      received.length = 0
      await store.revokeUserPasscode('acc_1', 'u_1', NOW + 1, audited('acc_1', 'user_passcode.revoked'))
      await arrives(user)
      received.length = 0
      await store.grantUserPasscode(userPasscode(), NOW + 2, audited('acc_1', 'user_passcode.granted'))
      await arrives(user)

      await store.setAcceptedPasscodes('acc_1', 'both', audited('acc_1', 'account.accepted_passcodes_changed'))
      await arrives({ type: 'account', accountId: 'acc_1' })
    })

    it('carries nothing but the invalidation: no hash, no ciphertext', async () => {
      const { store } = fixture()
      const received = await subscribeReady(store, store)
      const record = accountPasscode()
      await store.createAccountPasscode(record, 100, audited(record, 'passcode.created'))
      await store.deleteAccountPasscode('acc_1', record.id, audited('acc_1', 'passcode.deleted'))
      await eventually(() => expect(received).toContainEqual({ type: 'account_passcode', accountId: 'acc_1', passcodeId: record.id }))
      for (const invalidation of received) expect(JSON.stringify(invalidation)).not.toContain(record.hash)
    })

    it('stops delivering to an unsubscribed listener, and survives a failing one', async () => {
      const { store, peer } = fixture()
      const other = await peer()
      const kept = await subscribeReady(other, store)
      const dropped: Invalidation[] = []
      const unsubscribe = other.subscribe!((invalidation) => dropped.push(invalidation))
      other.subscribe!(() => {
        throw new Error('listener failure')
      })
      unsubscribe()
      await store.setAcceptedPasscodes('acc_9', 'user', audited('acc_9', 'account.accepted_passcodes_changed'))
      await eventually(() => expect(kept).toContainEqual({ type: 'account', accountId: 'acc_9' }))
      expect(dropped).toEqual([])
      expect(await store.getAcceptedPasscodes('acc_9')).toBe('user')
    })
  })
}
