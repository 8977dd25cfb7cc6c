import { randomBytes } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import type { Actor } from '../../../src/core/entities'
import { createPasscodeAuth } from '../../../src/service/create-passcode-auth'
import { eventually, subscribeReady, type StoreFixture } from './fixtures'

const admin: Actor = { userId: 'u_admin', role: 'admin' }

/** The store behind the service: what a host sees through `createPasscodeAuth`. */
export function endToEndCases(fixture: () => StoreFixture): void {
  describe('through createPasscodeAuth', () => {
    it('create → authenticate → delete → authenticate fails', async () => {
      const { store } = fixture()
      const auth = createPasscodeAuth({ store, partners: ['acme'] })
      const { passcode, value } = await auth.passcodes.create(admin, 'acc_1', { name: 'Acme', expiry: 90 })
      expect(await auth.authenticate({ accountId: 'acc_1', passcode: value })).toEqual({
        ok: true,
        principal: { accountId: 'acc_1', kind: 'account', passcodeId: passcode.id, passcodeName: 'Acme' },
      })
      expect((await auth.connect({ headers: { 'x-service-account-id': 'acc_1', 'x-service-passcode': value }, partner: 'acme' })).statusCode).toBe(
        200,
      )
      await auth.passcodes.delete(admin, 'acc_1', passcode.id)
      expect(await auth.authenticate({ accountId: 'acc_1', passcode: value })).toMatchObject({ ok: false, statusCode: 400 })
      await auth.close()
    })

    it('a delete on one instance stops a cached passcode on another within 1 second', async () => {
      const { store, peer } = fixture()
      const other = await peer()
      await subscribeReady(other, store)
      const first = createPasscodeAuth({ store, cache: { ttlMs: 60_000 } })
      const second = createPasscodeAuth({ store: other, cache: { ttlMs: 60_000 } })
      const { passcode, value } = await first.passcodes.create(admin, 'acc_1', { name: 'Cached', expiry: 30 })
      expect((await second.authenticate({ accountId: 'acc_1', passcode: value })).ok).toBe(true)
      await first.passcodes.delete(admin, 'acc_1', passcode.id)
      await eventually(async () => expect((await second.authenticate({ accountId: 'acc_1', passcode: value })).ok).toBe(false), 1_000)
      await Promise.all([first.close(), second.close()])
    })

    it('grant → reveal → authenticate as the user → revoke → authenticate fails', async () => {
      const { store } = fixture()
      const auth = createPasscodeAuth({ store, encryptionKeys: [{ id: 'test-key', key: randomBytes(32) }] })
      const user: Actor = { userId: 'u_7', role: 'member' }
      // 90 days: outside the last 30, so the outcome carries no Sunset header (SPEC §5.7).
      await auth.userPasscodes.grant(admin, 'acc_1', 'u_7', { validity: { type: 'finite', days: 90 } })
      await auth.accounts.setAcceptedPasscodes(admin, 'acc_1', 'user')
      const { value } = await auth.userPasscodes.reveal(user, 'acc_1')
      expect(await auth.authenticate({ accountId: 'acc_1', passcode: value })).toEqual({
        ok: true,
        principal: { accountId: 'acc_1', kind: 'user', userId: 'u_7' },
      })
      await auth.userPasscodes.revoke(admin, 'acc_1', 'u_7')
      expect(await auth.authenticate({ accountId: 'acc_1', passcode: value })).toMatchObject({ ok: false, statusCode: 400 })
      await auth.close()
    })
  })
}
