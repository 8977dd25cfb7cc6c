import { describe, expect, it } from 'vitest'
import { DAY_MS } from '../../../src/core/time'
import { NOW, fakeHash, userPasscode, type StoreFixture, audited } from './fixtures'

/** Grant, reset, revoke and get of user passcodes, and the account setting. */
export function userPasscodeCases(fixture: () => StoreFixture): void {
  describe('user passcodes', () => {
    it('grants a user passcode and finds it by hash with the account setting', async () => {
      const { store } = fixture()
      const record = userPasscode({ validity: { type: 'infinite' } })
      expect(await store.grantUserPasscode(record, NOW, audited(record, 'user_passcode.granted'))).toEqual({ ok: true, record })
      expect(await store.getUserPasscode('acc_1', 'u_1')).toEqual(record)
      expect(await store.findCredentialByHash(record.hash)).toEqual({ kind: 'user', record, acceptedPasscodes: 'account' })
      await store.setAcceptedPasscodes('acc_1', 'both', audited('acc_1', 'account.accepted_passcodes_changed'))
      expect(await store.findCredentialByHash(record.hash)).toEqual({ kind: 'user', record, acceptedPasscodes: 'both' })
    })

    it('refuses a second grant while the first is live; replaces a revoked one', async () => {
      const { store } = fixture()
      const first = userPasscode()
      await store.grantUserPasscode(first, NOW, audited(first, 'user_passcode.granted'))
      expect(await store.grantUserPasscode(userPasscode(), NOW + 1, audited('acc_1', 'user_passcode.granted'))).toEqual({
        ok: false,
        reason: 'already_granted',
      })
      await store.revokeUserPasscode('acc_1', 'u_1', NOW + 2, audited('acc_1', 'user_passcode.revoked'))
      const second = userPasscode({ grantedAt: NOW + 3 })
      expect(await store.grantUserPasscode(second, NOW + 3, audited(second, 'user_passcode.granted'))).toEqual({ ok: true, record: second })
      expect(await store.getUserPasscode('acc_1', 'u_1')).toEqual(second)
      expect(await store.findCredentialByHash(first.hash)).toBeNull()
      expect(await store.findCredentialByHash(second.hash)).toMatchObject({ kind: 'user', record: second })
    })

    it('replaces an expired user passcode, and only once it has expired', async () => {
      const { store } = fixture()
      const first = userPasscode({ expiresAt: NOW + DAY_MS })
      await store.grantUserPasscode(first, NOW, audited(first, 'user_passcode.granted'))
      expect(await store.grantUserPasscode(userPasscode(), NOW + DAY_MS - 1, audited('acc_1', 'user_passcode.granted'))).toEqual({
        ok: false,
        reason: 'already_granted',
      })
      const second = userPasscode({ grantedAt: NOW + DAY_MS })
      expect(await store.grantUserPasscode(second, NOW + DAY_MS, audited(second, 'user_passcode.granted'))).toEqual({ ok: true, record: second })
      expect(await store.findCredentialByHash(first.hash)).toBeNull()
    })

    it('resets the value of a live passcode and keeps its validity; the old hash stops matching', async () => {
      const { store } = fixture()
      const record = userPasscode({ validity: { type: 'finite', days: 10 } })
      await store.grantUserPasscode(record, NOW, audited(record, 'user_passcode.granted'))
      const fields = {
        hash: fakeHash(),
        ciphertext: 'fixture-ciphertext-reset',
        hint: 'psc_…Zz99',
        grantedAt: NOW + 5,
        expiresAt: NOW + 5 + 10 * DAY_MS,
      }
      const reset = await store.resetUserPasscode('acc_1', 'u_1', fields, audited('acc_1', 'user_passcode.reset'))
      expect(reset).toEqual({ ...record, ...fields })
      expect(await store.findCredentialByHash(record.hash)).toBeNull()
      expect(await store.findCredentialByHash(fields.hash)).toEqual({ kind: 'user', record: reset, acceptedPasscodes: 'account' })
      expect(await store.getUserPasscode('acc_1', 'u_1')).toEqual(reset)
    })

    it('resets an expired but unrevoked passcode', async () => {
      const { store } = fixture()
      await store.grantUserPasscode(userPasscode({ expiresAt: NOW - 1 }), NOW - DAY_MS, audited('acc_1', 'user_passcode.granted'))
      const fields = { hash: fakeHash(), ciphertext: 'fixture-ciphertext-reset', hint: 'psc_…Yy88', grantedAt: NOW, expiresAt: NOW + DAY_MS }
      expect(await store.resetUserPasscode('acc_1', 'u_1', fields, audited('acc_1', 'user_passcode.reset'))).toMatchObject(fields)
    })

    it('revokes: the record stays, marked revoked, and is still found by hash', async () => {
      const { store } = fixture()
      const record = userPasscode()
      await store.grantUserPasscode(record, NOW, audited(record, 'user_passcode.granted'))
      const revoked = await store.revokeUserPasscode('acc_1', 'u_1', NOW + 9, audited('acc_1', 'user_passcode.revoked'))
      expect(revoked).toEqual({ ...record, revokedAt: NOW + 9 })
      expect(await store.getUserPasscode('acc_1', 'u_1')).toEqual(revoked)
      expect(await store.findCredentialByHash(record.hash)).toEqual({ kind: 'user', record: revoked, acceptedPasscodes: 'account' })
    })

    it('reset and revoke answer null for a missing or revoked passcode', async () => {
      const { store } = fixture()
      const fields = { hash: fakeHash(), ciphertext: 'fixture-ciphertext-x', hint: 'psc_…Xx77', grantedAt: NOW, expiresAt: NOW + DAY_MS }
      expect(await store.resetUserPasscode('acc_1', 'nobody', fields, audited('acc_1', 'user_passcode.reset'))).toBeNull()
      expect(await store.revokeUserPasscode('acc_1', 'nobody', NOW, audited('acc_1', 'user_passcode.revoked'))).toBeNull()
      expect(await store.getUserPasscode('acc_1', 'nobody')).toBeNull()
      await store.grantUserPasscode(userPasscode(), NOW, audited('acc_1', 'user_passcode.granted'))
      await store.revokeUserPasscode('acc_1', 'u_1', NOW + 1, audited('acc_1', 'user_passcode.revoked'))
      expect(await store.revokeUserPasscode('acc_1', 'u_1', NOW + 2, audited('acc_1', 'user_passcode.revoked'))).toBeNull()
      expect(await store.resetUserPasscode('acc_1', 'u_1', fields, audited('acc_1', 'user_passcode.reset'))).toBeNull()
      expect(await store.findCredentialByHash(fields.hash)).toBeNull()
    })

    it("lists an account's user passcodes by user ID, revoked and expired ones included, and no other account's", async () => {
      const { store } = fixture()
      expect(await store.listUserPasscodes('acc_1')).toEqual([])
      const zed = userPasscode({ userId: 'u_zed' })
      const amy = userPasscode({ userId: 'u_amy', expiresAt: NOW + 1 })
      const Bob = userPasscode({ userId: 'u_Bob' })
      for (const record of [zed, amy, Bob]) await store.grantUserPasscode(record, NOW, audited(record, 'user_passcode.granted'))
      await store.grantUserPasscode(userPasscode({ accountId: 'acc_2', userId: 'u_amy' }), NOW, audited('acc_2', 'user_passcode.granted'))
      const revoked = await store.revokeUserPasscode('acc_1', 'u_zed', NOW + 2, audited('acc_1', 'user_passcode.revoked'))
      // Code-point order: upper case sorts before lower case, the same in every store.
      expect(await store.listUserPasscodes('acc_1')).toEqual([Bob, amy, revoked])
      expect((await store.listUserPasscodes('acc_2')).map((record) => record.userId)).toEqual(['u_amy'])
    })

    it('keeps the same user ID in two accounts apart', async () => {
      const { store } = fixture()
      const one = userPasscode({ accountId: 'acc_1' })
      const two = userPasscode({ accountId: 'acc_2' })
      await store.grantUserPasscode(one, NOW, audited(one, 'user_passcode.granted'))
      expect(await store.grantUserPasscode(two, NOW, audited(two, 'user_passcode.granted'))).toEqual({ ok: true, record: two })
      await store.revokeUserPasscode('acc_2', 'u_1', NOW + 1, audited('acc_2', 'user_passcode.revoked'))
      expect(await store.getUserPasscode('acc_1', 'u_1')).toEqual(one)
    })
  })

  describe('accepted passcodes setting', () => {
    it("defaults to 'account' and is kept per account", async () => {
      const { store } = fixture()
      expect(await store.getAcceptedPasscodes('acc_1')).toBe('account')
      for (const value of ['user', 'both', 'account'] as const) {
        await store.setAcceptedPasscodes('acc_1', value, audited('acc_1', 'account.accepted_passcodes_changed'))
        expect(await store.getAcceptedPasscodes('acc_1')).toBe(value)
      }
      await store.setAcceptedPasscodes('acc_2', 'user', audited('acc_2', 'account.accepted_passcodes_changed'))
      expect(await store.getAcceptedPasscodes('acc_1')).toBe('account')
      expect(await store.getAcceptedPasscodes('acc_2')).toBe('user')
    })
  })
}
