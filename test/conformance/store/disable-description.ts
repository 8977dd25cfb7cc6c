import { describe, expect, it } from 'vitest'
import { DAY_MS } from '../../../src/core/time'
import { NOW, accountPasscode, claimRequest, eventually, subscribeReady, type StoreFixture, audited } from './fixtures'

/** SPEC §5.38 (disable without delete) and §5.39 (description), as every store keeps them. */
export function disableDescriptionCases(fixture: () => StoreFixture): void {
  describe('disabled state and description', () => {
    it('stores both at create and reads them back by id, list and hash', async () => {
      const { store } = fixture()
      const description = 'Nightly export to Acme\nOwner: data team ☕ 😀'
      const record = accountPasscode({ description, disabledAt: NOW })
      await store.createAccountPasscode(record, 100, audited(record, 'passcode.created'))
      expect(await store.getAccountPasscode('acc_1', record.id)).toMatchObject({ description, disabledAt: NOW })
      expect(await store.listAccountPasscodes('acc_1')).toMatchObject([{ id: record.id, description, disabledAt: NOW }])
      expect((await store.findCredentialByHash(record.hash))?.record).toMatchObject({ description, disabledAt: NOW })
      const plain = accountPasscode()
      await store.createAccountPasscode(plain, 100, audited(plain, 'passcode.created'))
      expect(await store.getAccountPasscode('acc_1', plain.id)).toMatchObject({ description: '', disabledAt: null })
    })

    it('keeps 500 characters of any script, astral ones included', async () => {
      const { store } = fixture()
      const description = `${'😀'.repeat(250)}${'é'.repeat(249)}\n`
      const record = accountPasscode({ description })
      await store.createAccountPasscode(record, 100, audited(record, 'passcode.created'))
      expect((await store.getAccountPasscode('acc_1', record.id))?.description).toBe(description)
    })

    it('disables and enables through an edit that keeps the hash, name, binding and expiry', async () => {
      const { store } = fixture()
      const record = accountPasscode({ partners: ['acme'], description: 'kept' })
      await store.createAccountPasscode(record, 100, audited(record, 'passcode.created'))
      const disabled = await store.updateAccountPasscode('acc_1', record.id, { disabledAt: NOW + 5, updatedAt: NOW + 5 }, audited('acc_1'))
      expect(disabled).toEqual({ ok: true, record: { ...record, disabledAt: NOW + 5, updatedAt: NOW + 5 } })
      expect((await store.findCredentialByHash(record.hash))?.record).toMatchObject({ disabledAt: NOW + 5 })
      const enabled = await store.updateAccountPasscode('acc_1', record.id, { disabledAt: null, updatedAt: NOW + 6 }, audited('acc_1'))
      expect(enabled).toEqual({ ok: true, record: { ...record, disabledAt: null, updatedAt: NOW + 6 } })
    })

    it('changes the description alone, and leaves it alone when a patch does not name it', async () => {
      const { store } = fixture()
      const record = accountPasscode({ description: 'first' })
      await store.createAccountPasscode(record, 100, audited(record, 'passcode.created'))
      await store.updateAccountPasscode('acc_1', record.id, { description: 'second\nline', updatedAt: NOW + 1 }, audited('acc_1'))
      expect(await store.getAccountPasscode('acc_1', record.id)).toEqual({ ...record, description: 'second\nline', updatedAt: NOW + 1 })
      await store.updateAccountPasscode(
        'acc_1',
        record.id,
        { name: 'Renamed', nameKey: 'renamed', disabledAt: NOW, updatedAt: NOW + 2 },
        audited('acc_1'),
      )
      expect((await store.getAccountPasscode('acc_1', record.id))?.description).toBe('second\nline')
      await store.updateAccountPasscode('acc_1', record.id, { description: '', updatedAt: NOW + 3 }, audited('acc_1'))
      expect(await store.getAccountPasscode('acc_1', record.id)).toMatchObject({ description: '', disabledAt: NOW })
    })

    it('counts a disabled passcode toward the cap', async () => {
      const { store } = fixture()
      const first = accountPasscode()
      await store.createAccountPasscode(first, 2, audited(first, 'passcode.created'))
      await store.createAccountPasscode(accountPasscode(), 2, audited('acc_1', 'passcode.created'))
      await store.updateAccountPasscode('acc_1', first.id, { disabledAt: NOW, updatedAt: NOW }, audited('acc_1'))
      expect(await store.createAccountPasscode(accountPasscode(), 2, audited('acc_1', 'passcode.created'))).toEqual({
        ok: false,
        reason: 'cap_reached',
      })
    })

    it('claims no notification of a disabled passcode, and claims it again once enabled', async () => {
      const { store } = fixture()
      const record = accountPasscode({ expiresAt: NOW + DAY_MS })
      await store.createAccountPasscode(record, 100, audited(record, 'passcode.created'))
      await store.updateAccountPasscode('acc_1', record.id, { disabledAt: NOW, updatedAt: NOW }, audited('acc_1'))
      expect(await store.claimNotifications(claimRequest(NOW))).toEqual([])
      expect(await store.claimNotifications(claimRequest(NOW + 2 * DAY_MS))).toEqual([])
      await store.updateAccountPasscode('acc_1', record.id, { disabledAt: null, updatedAt: NOW }, audited('acc_1'))
      expect(await store.claimNotifications(claimRequest(NOW))).toMatchObject([{ passcodeId: record.id, kind: 'expiring_soon' }])
    })

    it('publishes a disable and an enable to another instance within 1 second', async () => {
      const { store, peer } = fixture()
      const other = await peer()
      const received = await subscribeReady(other, store)
      const record = accountPasscode()
      await store.createAccountPasscode(record, 100, audited(record, 'passcode.created'))
      const invalidation = { type: 'account_passcode', accountId: 'acc_1', passcodeId: record.id } as const
      await store.updateAccountPasscode('acc_1', record.id, { disabledAt: NOW, updatedAt: NOW }, audited('acc_1'))
      await eventually(() => expect(received).toContainEqual(invalidation), 1_000)
      received.length = 0
      await store.updateAccountPasscode('acc_1', record.id, { disabledAt: null, updatedAt: NOW }, audited('acc_1'))
      await eventually(() => expect(received).toContainEqual(invalidation), 1_000)
    })
  })
}
