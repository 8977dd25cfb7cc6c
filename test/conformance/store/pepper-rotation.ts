import { randomBytes } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import type { Actor } from '../../../src/core/entities'
import { createPasscodeHasher, pepperId } from '../../../src/core/hashing'
import { createPasscodeAuth } from '../../../src/service/create-passcode-auth'
import { eventually, type StoreFixture } from './fixtures'

const admin: Actor = { userId: 'u_admin', role: 'admin' }
const keys = [{ id: 'k1', key: randomBytes(32) }]

/** SPEC §5.28 through the service: a pepper list, re-hashing on verify, the report. */
export function pepperRotationCases(fixture: () => StoreFixture): void {
  describe('SPEC 5.28 pepper rotation', () => {
    it('adds a pepper to a deployment that ran without one: [new, null] verifies old passcodes and re-hashes them', async () => {
      const { store } = fixture()
      const before = createPasscodeAuth({ store, encryptionKeys: keys })
      const { value } = await before.passcodes.create(admin, 'acc_1', { name: 'Old', expiry: 90 })
      await before.userPasscodes.grant(admin, 'acc_1', 'u_1', { validity: { type: 'infinite' } })
      await before.accounts.setAcceptedPasscodes(admin, 'acc_1', 'both')
      const userValue = (await before.userPasscodes.reveal({ userId: 'u_1', role: 'member' }, 'acc_1')).value
      await before.close()

      const pepper = randomBytes(32).toString('base64url')
      // A pepper alone would break every existing passcode: the reason for the list.
      const replaced = createPasscodeAuth({ store, pepper, cache: false })
      expect(await replaced.authenticate({ accountId: 'acc_1', passcode: value })).toMatchObject({ ok: false, statusCode: 400 })

      const rotating = createPasscodeAuth({ store, pepper: [pepper, null], cache: false, encryptionKeys: keys })
      expect(await rotating.pepperReport()).toEqual({ current: 0, older: [2], unknown: 0 })
      expect((await rotating.authenticate({ accountId: 'acc_1', passcode: value })).ok).toBe(true)
      expect((await rotating.authenticate({ accountId: 'acc_1', passcode: userValue })).ok).toBe(true)
      // Re-hashed under the new pepper, in the background of those requests.
      await eventually(async () => expect(await rotating.pepperReport()).toEqual({ current: 2, older: [0], unknown: 0 }))
      const stored = await store.findCredentialByHash(createPasscodeHasher(pepper)(value))
      expect(stored?.record).toMatchObject({ pepperId: pepperId(pepper) })
      expect(await store.findCredentialByHash(createPasscodeHasher()(value))).toBeNull()
      // Now the old "pepper" can go.
      expect((await replaced.authenticate({ accountId: 'acc_1', passcode: value })).ok).toBe(true)
      expect((await replaced.authenticate({ accountId: 'acc_1', passcode: userValue })).ok).toBe(true)
      // New passcodes are keyed by the first pepper of the list.
      const { value: fresh } = await rotating.passcodes.create(admin, 'acc_1', { name: 'New', expiry: 90 })
      expect((await replaced.authenticate({ accountId: 'acc_1', passcode: fresh })).ok).toBe(true)
      await Promise.all([replaced.close(), rotating.close()])
    })

    it('rotates from one pepper to the next; wrong passcodes stay wrong under every pepper', async () => {
      const { store } = fixture()
      const [first, second] = [randomBytes(32), randomBytes(32)]
      const old = createPasscodeAuth({ store, pepper: first })
      const { value } = await old.passcodes.create(admin, 'acc_1', { name: 'A', expiry: 90 })
      const next = createPasscodeAuth({ store, pepper: [second, first], cache: false })
      expect(await next.pepperReport()).toEqual({ current: 0, older: [1], unknown: 0 })
      expect(await next.authenticate({ accountId: 'acc_1', passcode: `${value.slice(0, -8)}AAAAAAAA` })).toMatchObject({ ok: false })
      expect(await next.authenticate({ accountId: 'acc_2', passcode: value })).toMatchObject({ ok: false, reason: 'wrong_account' })
      expect((await next.authenticate({ accountId: 'acc_1', passcode: value })).ok).toBe(true)
      await eventually(async () => expect(await next.pepperReport()).toEqual({ current: 1, older: [0], unknown: 0 }))
      expect((await createPasscodeAuth({ store, pepper: second }).authenticate({ accountId: 'acc_1', passcode: value })).ok).toBe(true)
      await Promise.all([old.close(), next.close()])
    })
  })
}
