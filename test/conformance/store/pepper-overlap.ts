import { randomBytes } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import type { Actor } from '../../../src/core/entities'
import { createPasscodeAuth, type PasscodeAuth } from '../../../src/service/create-passcode-auth'
import type { PasscodeAuthOptions } from '../../../src/service/options'
import { NOW, type StoreFixture } from './fixtures'

const admin: Actor = { userId: 'u_admin', role: 'admin' }
const keys = [{ id: 'k1', key: randomBytes(32) }]
const MINUTE_MS = 60_000

/** A value and until when it is valid: `Infinity` for a current value, its overlap's end for a replaced one. */
interface Held {
  readonly label: string
  readonly value: string
  validUntil: number
}

/**
 * SPEC §5.47 with §5.34: the pepper report counts every hash a pepper still keys, the
 * previous value of a rotation in its overlap included, so that following the documented
 * rolling pepper change (docs/security.md, "Rotating the pepper"), with rotations in
 * their overlap at each step, refuses no value that is valid. A previous value is never
 * re-hashed (it stops at its overlap's end): it is counted under the pepper that keyed it
 * until then.
 */
export function pepperOverlapCases(fixture: () => StoreFixture): void {
  describe('SPEC 5.47 pepper changes cover rotations', () => {
    it('runs the whole documented rolling change with rotations in their overlap, two instances on each pair of adjacent steps, and refuses no valid value', async () => {
      const { store, peer } = fixture()
      const other = await peer()
      const stores = [store, other] as const
      let now = NOW
      const clock = () => new Date(now)
      const [old, fresh] = [randomBytes(32).toString('base64url'), randomBytes(32).toString('base64url')]
      const steps: readonly NonNullable<PasscodeAuthOptions['pepper']>[] = [
        old,
        { current: old, next: [fresh] },
        { current: fresh, previous: [old] },
        fresh,
      ]
      const instance = (on: 0 | 1, step: number) => createPasscodeAuth({ store: stores[on], pepper: steps[step]!, clock, encryptionKeys: keys })
      const held: Held[] = []
      const refused: string[] = []
      const verifyValid = async (instances: readonly PasscodeAuth[], label: string) => {
        for (const auth of instances) {
          for (const { value, validUntil, label: which } of held) {
            if (now >= validUntil) continue
            const outcome = await auth.authenticate({ accountId: 'acc_1', passcode: value })
            if (!outcome.ok) refused.push(`${label}: ${which} (${outcome.reason})`)
          }
        }
      }
      /** Rotates `which` with a 60-minute overlap: its value so far stays valid until then. */
      const rotate = async (auth: PasscodeAuth, which: Held, id: string) => {
        const rotated = await auth.passcodes.rotate(admin, 'acc_1', id, { overlapMinutes: 60 })
        held.push({ label: `${which.label}, replaced at ${now - NOW} ms`, value: which.value, validUntil: now + 60 * MINUTE_MS })
        ;(which as { value: string }).value = rotated.value
      }

      const first = instance(0, 0)
      const ids: string[] = []
      for (const name of ['A', 'B', 'C']) {
        const created = await first.passcodes.create(admin, 'acc_1', { name, expiry: 'forever' })
        ids.push(created.passcode.id)
        held.push({ label: name, value: created.value, validUntil: Number.POSITIVE_INFINITY })
      }
      const [a, b, c] = held as [Held, Held, Held]
      // Step 0: A rotated before the change starts; its old value is in its overlap through steps 1 and 2.
      await rotate(first, a, ids[0]!)
      await first.close()

      for (let step = 0; step < 2; step++) {
        now += MINUTE_MS
        const behind = instance(0, step)
        const ahead = instance(1, step + 1)
        // During the deploy from step 1 to 2, a rotation on each side: B behind, C ahead (both under the old pepper still).
        if (step === 1) {
          await rotate(behind, b, ids[1]!)
          await rotate(ahead, c, ids[2]!)
        }
        await verifyValid([behind, ahead], `steps ${step} and ${step + 1}`)
        await Promise.all([behind.close(), ahead.close()])
        const done = [instance(0, step + 1), instance(1, step + 1)]
        await verifyValid(done, `step ${step + 1}`)
        await Promise.all(done.map((auth) => auth.close()))
      }

      // Step 2 everywhere: wait while partners call, and ask the report before removing the old pepper.
      const checks: { at: number; older: number }[] = []
      for (;;) {
        const step2 = [instance(0, 2), instance(1, 2)]
        await verifyValid(step2, `step 2 at +${now - NOW} ms`)
        const report = await step2[0]!.pepperReport()
        await Promise.all(step2.map((auth) => auth.close()))
        checks.push({ at: now - NOW, older: report.older[0]! })
        expect(report.unknown).toBe(0)
        if (report.older[0] === 0) break
        // The report says the old pepper still keys something: only values in an overlap are left.
        expect(held.some((entry) => entry.validUntil !== Number.POSITIVE_INFINITY && now < entry.validUntil)).toBe(true)
        now += 10 * MINUTE_MS
      }

      // Step 3: the old pepper is gone, once the report said so.
      const behind = instance(0, 2)
      const ahead = instance(1, 3)
      await verifyValid([behind, ahead], 'steps 2 and 3')
      await Promise.all([behind.close(), ahead.close()])
      const last = [instance(0, 3), instance(1, 3)]
      await verifyValid(last, 'step 3')
      expect(refused).toEqual([])
      expect(await last[0]!.pepperReport()).toEqual({ current: 3, older: [], unknown: 0 })
      await Promise.all(last.map((auth) => auth.close()))
      // The three old values in their overlap held the old pepper, until the last overlap ended.
      expect(checks[0]!.older).toBe(3)
      const lastEnd = Math.max(...held.filter((entry) => entry.validUntil !== Number.POSITIVE_INFINITY).map((entry) => entry.validUntil))
      expect(checks.at(-1)!.at + NOW).toBeGreaterThanOrEqual(lastEnd)
    })

    it('counts a previous value in its overlap under the pepper that keyed it, not once its overlap ended; it is never re-hashed', async () => {
      const { store } = fixture()
      let now = NOW
      const clock = () => new Date(now)
      const [old, fresh] = [randomBytes(32).toString('base64url'), randomBytes(32).toString('base64url')]
      const before = createPasscodeAuth({ store, pepper: old, clock })
      const { value, passcode } = await before.passcodes.create(admin, 'acc_1', { name: 'Rotated', expiry: 'forever' })
      const rotated = await before.passcodes.rotate(admin, 'acc_1', passcode.id, { overlapMinutes: 30 })
      expect(await before.pepperReport()).toEqual({ current: 2, older: [], unknown: 0 })
      await before.close()

      const after = createPasscodeAuth({ store, pepper: { current: fresh, previous: [old] }, clock, cache: false })
      expect(await after.pepperReport()).toEqual({ current: 0, older: [2], unknown: 0 })
      // Both values verify; the current one moves to the new pepper, the previous one stays where it is.
      expect((await after.authenticate({ accountId: 'acc_1', passcode: rotated.value })).ok).toBe(true)
      expect((await after.authenticate({ accountId: 'acc_1', passcode: value })).ok).toBe(true)
      const settled = async () => {
        for (let i = 0; i < 100; i++) {
          const report = await after.pepperReport()
          if (report.current === 1) return report
          await new Promise((resolve) => setTimeout(resolve, 10))
        }
        return after.pepperReport()
      }
      expect(await settled()).toEqual({ current: 1, older: [1], unknown: 0 })
      expect((await after.authenticate({ accountId: 'acc_1', passcode: value })).ok).toBe(true)
      expect(await after.pepperReport()).toEqual({ current: 1, older: [1], unknown: 0 })
      // Its overlap over, the value no longer verifies and no longer keeps the old pepper.
      now += 30 * MINUTE_MS
      expect(await after.pepperReport()).toEqual({ current: 1, older: [0], unknown: 0 })
      expect((await after.authenticate({ accountId: 'acc_1', passcode: value })).ok).toBe(false)
      await after.close()
    })
  })
}
