import { randomBytes } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import type { Actor } from '../../../src/core/entities'
import { createPasscodeAuth, type PasscodeAuth } from '../../../src/service/create-passcode-auth'
import { NOW, type StoreFixture } from './fixtures'

const admin: Actor = { userId: 'u_admin', role: 'admin' }
const encryptionKeys = [{ id: 'k1', key: randomBytes(32) }]
const headersOf = (passcode: string) => ({ 'x-service-account-id': 'acc_1', 'x-service-passcode': passcode })

/** A clock the test moves, shared by the instances of a case. */
function testClock(start = NOW) {
  let ms = start
  return {
    now: () => new Date(ms),
    advance: (by: number) => (ms += by),
    get ms() {
      return ms
    },
  }
}

/**
 * SPEC §5.46 through the service and its batched flush (`usage`, §5.27), on the store
 * under test: the last use is the time and partner of the last request that
 * authenticated successfully; a refused request moves neither; a success with no
 * partner records none.
 */
export function lastUseCases(fixture: () => StoreFixture): void {
  describe('SPEC 5.46 last use is true', () => {
    it('a protected route clears the partner; refused requests (403 outside the binding, off the whitelist, disabled) move nothing and are still counted', async () => {
      const { store } = fixture()
      const clock = testClock()
      const instance = () => createPasscodeAuth({ store, partners: ['acme', 'globex'], clock: clock.now })
      const stored = async (id: string) => {
        const record = await store.getAccountPasscode('acc_1', id)
        return { at: record?.lastUsedAt, partner: record?.lastUsedPartner }
      }
      // Each step on an instance of its own, closed after it: every use goes through the store.
      const step = async (act: (auth: PasscodeAuth) => Promise<unknown>) => {
        const auth = instance()
        await act(auth)
        await auth.close()
      }
      const setup = instance()
      const { value, passcode } = await setup.passcodes.create(admin, 'acc_1', { name: 'Bound', expiry: 'forever', partners: ['acme'] })
      await setup.close()

      clock.advance(1_000)
      await step(async (auth) => expect((await auth.connect({ headers: headersOf(value), partner: 'acme' })).statusCode).toBe(200))
      expect(await stored(passcode.id)).toEqual({ at: clock.ms, partner: 'acme' })

      clock.advance(1_000)
      await step(async (auth) => expect((await auth.authenticate({ accountId: 'acc_1', passcode: value })).ok).toBe(true))
      const protectedAt = clock.ms
      expect(await stored(passcode.id)).toEqual({ at: protectedAt, partner: null })

      clock.advance(1_000)
      await step(async (auth) => {
        expect((await auth.connect({ headers: headersOf(value), partner: 'globex' })).statusCode).toBe(403)
        expect((await auth.connect({ headers: headersOf(value), partner: 'initech' })).statusCode).toBe(403)
      })
      expect(await stored(passcode.id)).toEqual({ at: protectedAt, partner: null })

      clock.advance(1_000)
      await step(async (auth) => {
        await auth.passcodes.disable(admin, 'acc_1', passcode.id)
        expect(await auth.connect({ headers: headersOf(value), partner: 'acme' })).toMatchObject({ statusCode: 400 })
        expect((await auth.authenticate({ accountId: 'acc_1', passcode: value })).ok).toBe(false)
      })
      expect(await stored(passcode.id)).toEqual({ at: protectedAt, partner: null })

      const auth = instance()
      const [day] = (await auth.passcodes.usage(admin, 'acc_1', passcode.id)).days
      expect(day).toMatchObject({ succeeded: 2, wrongPartner: 2, disabled: 2 })
      expect((await auth.passcodes.list(admin, 'acc_1'))[0]).toMatchObject({ lastUsedAt: new Date(protectedAt), lastUsedPartner: null })
      await auth.close()
    })

    it('two instances flushing in either order keep the pair of the later request: its time with its own partner, or none', async () => {
      const { store, peer } = fixture()
      const other = await peer()
      const clock = testClock()
      const first = createPasscodeAuth({ store, partners: ['acme'], clock: clock.now, encryptionKeys })
      const second = createPasscodeAuth({ store: other, partners: ['acme'], clock: clock.now, encryptionKeys })
      const [a, b] = [
        await first.passcodes.create(admin, 'acc_1', { name: 'A', expiry: 'forever' }),
        await first.passcodes.create(admin, 'acc_1', { name: 'B', expiry: 'forever' }),
      ]
      await first.accounts.setAcceptedPasscodes(admin, 'acc_1', 'both')
      await first.userPasscodes.grant(admin, 'acc_1', 'u_1', { validity: { type: 'infinite' } })
      const user = (await first.userPasscodes.reveal({ userId: 'u_1', role: 'member' }, 'acc_1')).value

      // A: a connect on the first instance, then a protected route on the second. B and the user passcode: the reverse.
      clock.advance(1_000)
      expect((await first.connect({ headers: headersOf(a.value), partner: 'acme' })).statusCode).toBe(200)
      expect((await second.authenticate({ accountId: 'acc_1', passcode: b.value })).ok).toBe(true)
      expect((await second.authenticate({ accountId: 'acc_1', passcode: user })).ok).toBe(true)
      const earlier = clock.ms
      clock.advance(1_000)
      expect((await second.authenticate({ accountId: 'acc_1', passcode: a.value })).ok).toBe(true)
      expect((await first.connect({ headers: headersOf(b.value), partner: 'acme' })).statusCode).toBe(200)
      expect((await first.connect({ headers: headersOf(user), partner: 'acme' })).statusCode).toBe(200)
      const later = clock.ms
      expect(later).toBeGreaterThan(earlier)
      // The instance with the later uses of B flushes first; the one with A's later use last.
      await first.close()
      await second.close()
      const account = async (id: string) => {
        const record = await store.getAccountPasscode('acc_1', id)
        return { at: record?.lastUsedAt, partner: record?.lastUsedPartner }
      }
      expect(await account(a.passcode.id)).toEqual({ at: later, partner: null })
      expect(await account(b.passcode.id)).toEqual({ at: later, partner: 'acme' })
      const userRecord = await store.getUserPasscode('acc_1', 'u_1')
      expect({ at: userRecord?.lastUsedAt, partner: userRecord?.lastUsedPartner }).toEqual({ at: later, partner: 'acme' })
    })
  })
}
