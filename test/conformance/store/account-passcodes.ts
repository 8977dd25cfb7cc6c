import { describe, expect, it } from 'vitest'
import type { AccountPasscodeRecord } from '../../../src/core/passcode-records'
import { DAY_MS } from '../../../src/core/time'
import { NOW, accountPasscode, type StoreFixture, audited } from './fixtures'

/** Create, update, delete, get and list of account passcodes, and the cap and name rules. */
export function accountPasscodeCases(fixture: () => StoreFixture): void {
  describe('account passcodes', () => {
    it('creates a passcode and reads it back by id, list and hash', async () => {
      const { store } = fixture()
      const record = accountPasscode()
      expect(await store.createAccountPasscode(record, 100, audited(record, 'passcode.created'))).toEqual({ ok: true, record })
      expect(await store.getAccountPasscode('acc_1', record.id)).toEqual(record)
      expect(await store.listAccountPasscodes('acc_1')).toEqual([record])
      expect(await store.findCredentialByHash(record.hash)).toEqual({ kind: 'account', record, acceptedPasscodes: 'account' })
    })

    it('keeps a forever passcode without an expiry instant', async () => {
      const { store } = fixture()
      const record = accountPasscode({ expiry: 'forever', expiresAt: null })
      await store.createAccountPasscode(record, 100, audited(record, 'passcode.created'))
      expect(await store.getAccountPasscode('acc_1', record.id)).toEqual(record)
    })

    it('refuses a name already used in the account, compared case-insensitively', async () => {
      const { store } = fixture()
      await store.createAccountPasscode(accountPasscode({ name: 'Partner A' }), 100, audited('acc_1', 'passcode.created'))
      const again = accountPasscode({ name: 'PARTNER a', nameKey: 'partner a' })
      expect(await store.createAccountPasscode(again, 100, audited(again, 'passcode.created'))).toEqual({ ok: false, reason: 'duplicate_name' })
      const elsewhere = accountPasscode({ name: 'Partner A', accountId: 'acc_2' })
      expect((await store.createAccountPasscode(elsewhere, 100, audited(elsewhere, 'passcode.created'))).ok).toBe(true)
      expect(await store.listAccountPasscodes('acc_1')).toHaveLength(1)
      expect(await store.findCredentialByHash(again.hash)).toBeNull()
    })

    it('refuses a create at the cap, counting expired passcodes; a delete frees a slot', async () => {
      const { store } = fixture()
      const expired = accountPasscode({ expiresAt: NOW - DAY_MS })
      await store.createAccountPasscode(expired, 3, audited(expired, 'passcode.created'))
      await store.createAccountPasscode(accountPasscode(), 3, audited('acc_1', 'passcode.created'))
      await store.createAccountPasscode(accountPasscode(), 3, audited('acc_1', 'passcode.created'))
      expect(await store.createAccountPasscode(accountPasscode(), 3, audited('acc_1', 'passcode.created'))).toEqual({
        ok: false,
        reason: 'cap_reached',
      })
      expect((await store.createAccountPasscode(accountPasscode({ accountId: 'acc_2' }), 3, audited('acc_2', 'passcode.created'))).ok).toBe(true)
      await store.deleteAccountPasscode('acc_1', expired.id, audited('acc_1', 'passcode.deleted'))
      expect((await store.createAccountPasscode(accountPasscode(), 3, audited('acc_1', 'passcode.created'))).ok).toBe(true)
      expect(await store.listAccountPasscodes('acc_1')).toHaveLength(3)
    })

    it('reports a taken name before a reached cap', async () => {
      const { store } = fixture()
      await store.createAccountPasscode(accountPasscode({ name: 'Only' }), 1, audited('acc_1', 'passcode.created'))
      expect(await store.createAccountPasscode(accountPasscode({ name: 'only' }), 1, audited('acc_1', 'passcode.created'))).toEqual({
        ok: false,
        reason: 'duplicate_name',
      })
      expect(await store.createAccountPasscode(accountPasscode({ name: 'Other' }), 1, audited('acc_1', 'passcode.created'))).toEqual({
        ok: false,
        reason: 'cap_reached',
      })
    })

    it('updates the name and the expiry and keeps everything else', async () => {
      const { store } = fixture()
      const record = accountPasscode({ name: 'Before' })
      await store.createAccountPasscode(record, 100, audited(record, 'passcode.created'))
      const renamed = await store.updateAccountPasscode('acc_1', record.id, { name: 'After', nameKey: 'after', updatedAt: NOW + 5 }, audited('acc_1'))
      const expected: AccountPasscodeRecord = { ...record, name: 'After', nameKey: 'after', updatedAt: NOW + 5 }
      expect(renamed).toEqual({ ok: true, record: expected })
      const forever = await store.updateAccountPasscode(
        'acc_1',
        record.id,
        { expiry: 'forever', expiresAt: null, updatedAt: NOW + 6 },
        audited('acc_1'),
      )
      expect(forever).toEqual({ ok: true, record: { ...expected, expiry: 'forever', expiresAt: null, updatedAt: NOW + 6 } })
      const days = await store.updateAccountPasscode(
        'acc_1',
        record.id,
        { expiry: 7, expiresAt: NOW + 7 * DAY_MS, updatedAt: NOW + 7 },
        audited('acc_1'),
      )
      const final = { ...expected, expiry: 7, expiresAt: NOW + 7 * DAY_MS, updatedAt: NOW + 7 }
      expect(days).toEqual({ ok: true, record: final })
      expect(await store.getAccountPasscode('acc_1', record.id)).toEqual(final)
      expect(await store.findCredentialByHash(record.hash)).toMatchObject({ record: final })
    })

    it('refuses a rename to a name taken in the account; a new case of its own name is fine', async () => {
      const { store } = fixture()
      const a = accountPasscode({ name: 'Alpha' })
      const b = accountPasscode({ name: 'Beta' })
      await store.createAccountPasscode(a, 100, audited(a, 'passcode.created'))
      await store.createAccountPasscode(b, 100, audited(b, 'passcode.created'))
      const clash = await store.updateAccountPasscode('acc_1', b.id, { name: 'ALPHA', nameKey: 'alpha', updatedAt: NOW }, audited('acc_1'))
      expect(clash).toEqual({ ok: false, reason: 'duplicate_name' })
      expect(await store.getAccountPasscode('acc_1', b.id)).toEqual(b)
      const own = await store.updateAccountPasscode('acc_1', b.id, { name: 'BETA', nameKey: 'beta', updatedAt: NOW }, audited('acc_1'))
      expect(own).toMatchObject({ ok: true, record: { name: 'BETA' } })
    })

    it('does not find, update or delete a passcode through another account', async () => {
      const { store } = fixture()
      const record = accountPasscode()
      await store.createAccountPasscode(record, 100, audited(record, 'passcode.created'))
      expect(await store.getAccountPasscode('acc_2', record.id)).toBeNull()
      expect(await store.updateAccountPasscode('acc_2', record.id, { name: 'X', nameKey: 'x', updatedAt: NOW }, audited('acc_2'))).toEqual({
        ok: false,
        reason: 'not_found',
      })
      expect(await store.updateAccountPasscode('acc_1', 'no-such-id', { updatedAt: NOW }, audited('acc_1'))).toEqual({
        ok: false,
        reason: 'not_found',
      })
      expect(await store.deleteAccountPasscode('acc_2', record.id, audited('acc_2', 'passcode.deleted'))).toBeNull()
      expect(await store.getAccountPasscode('acc_1', record.id)).toEqual(record)
    })

    it('deletes a passcode at once: gone from get, list and the hash lookup', async () => {
      const { store } = fixture()
      const record = accountPasscode()
      const kept = accountPasscode()
      await store.createAccountPasscode(record, 100, audited(record, 'passcode.created'))
      await store.createAccountPasscode(kept, 100, audited(kept, 'passcode.created'))
      expect(await store.deleteAccountPasscode('acc_1', record.id, audited('acc_1', 'passcode.deleted'))).toEqual(record)
      expect(await store.getAccountPasscode('acc_1', record.id)).toBeNull()
      expect(await store.listAccountPasscodes('acc_1')).toEqual([kept])
      expect(await store.findCredentialByHash(record.hash)).toBeNull()
      expect(await store.deleteAccountPasscode('acc_1', record.id, audited('acc_1', 'passcode.deleted'))).toBeNull()
    })

    it("lists only the account's passcodes, oldest first", async () => {
      const { store } = fixture()
      const later = accountPasscode({ createdAt: NOW + 2_000 })
      const earlier = accountPasscode({ createdAt: NOW + 1_000 })
      await store.createAccountPasscode(later, 100, audited(later, 'passcode.created'))
      await store.createAccountPasscode(accountPasscode({ accountId: 'acc_2' }), 100, audited('acc_2', 'passcode.created'))
      await store.createAccountPasscode(earlier, 100, audited(earlier, 'passcode.created'))
      expect(await store.listAccountPasscodes('acc_1')).toEqual([earlier, later])
      expect(await store.listAccountPasscodes('acc_none')).toEqual([])
    })

    it('hands out copies: changing a returned record changes nothing stored', async () => {
      const { store } = fixture()
      const record = accountPasscode()
      const created = await store.createAccountPasscode({ ...record }, 100, audited(record, 'passcode.created'))
      if (!created.ok) throw new Error('create failed')
      ;(created.record as { name: string }).name = 'mutated'
      const read = await store.getAccountPasscode('acc_1', record.id)
      ;(read as { hash: string }).hash = 'mutated'
      expect(await store.getAccountPasscode('acc_1', record.id)).toEqual(record)
    })
  })
}
