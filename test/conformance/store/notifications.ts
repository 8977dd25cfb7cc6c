import { describe, expect, it } from 'vitest'
import { DAY_MS } from '../../../src/core/time'
import type { NotificationClaim } from '../../../src/ports/passcode-store'
import { NOW, WINDOW_MS, accountPasscode, claimKey, claimRequest, type StoreFixture, audited } from './fixtures'

const LEASE_MS = 60_000

/** Notification claims: what is due, leases, completion, release, and concurrent runners. */
export function notificationCases(fixture: () => StoreFixture): void {
  describe('notification claims', () => {
    it('claims exactly the due notifications, with the passcode details', async () => {
      const { store } = fixture()
      const soon = accountPasscode({ expiresAt: NOW + 10 * DAY_MS })
      const edge = accountPasscode({ expiresAt: NOW + WINDOW_MS })
      const past = accountPasscode({ expiresAt: NOW - DAY_MS })
      const exact = accountPasscode({ expiresAt: NOW })
      const far = accountPasscode({ expiresAt: NOW + WINDOW_MS + 1 })
      const forever = accountPasscode({ expiry: 'forever', expiresAt: null })
      for (const record of [soon, edge, past, exact, far, forever])
        await store.createAccountPasscode(record, 100, audited(record, 'passcode.created'))
      const request = claimRequest(NOW)
      const claims = await store.claimNotifications(request)
      const expected = [
        [soon, 'expiring_soon'],
        [edge, 'expiring_soon'],
        [past, 'expired'],
        [exact, 'expired'],
      ] as const
      expect(claims).toHaveLength(expected.length)
      for (const [record, kind] of expected) {
        expect(claims).toContainEqual({
          passcodeId: record.id,
          accountId: record.accountId,
          name: record.name,
          hint: record.hint,
          kind,
          expiresAt: record.expiresAt!,
          token: request.token,
        } satisfies NotificationClaim)
      }
    })

    it('does not hand out a claim under a live lease, nor a sent one ever again', async () => {
      const { store } = fixture()
      await store.createAccountPasscode(accountPasscode({ expiresAt: NOW + DAY_MS }), 100, audited('acc_1', 'passcode.created'))
      const [claim] = await store.claimNotifications(claimRequest(NOW))
      expect(await store.claimNotifications(claimRequest(NOW + LEASE_MS - 1))).toEqual([])
      expect(await store.completeNotification(claim!, NOW + 1, audited(claim!, 'notification.sent'))).toBe(true)
      expect(await store.claimNotifications(claimRequest(NOW + LEASE_MS + 1))).toEqual([])
    })

    it('hands out the expired email after the expiring-soon one', async () => {
      const { store } = fixture()
      const record = accountPasscode({ expiresAt: NOW + DAY_MS })
      await store.createAccountPasscode(record, 100, audited(record, 'passcode.created'))
      const [soon] = await store.claimNotifications(claimRequest(NOW))
      await store.completeNotification(soon!, NOW, audited(soon!, 'notification.sent'))
      const [expired, ...rest] = await store.claimNotifications(claimRequest(NOW + DAY_MS))
      expect(rest).toEqual([])
      expect(expired).toMatchObject({ passcodeId: record.id, kind: 'expired', expiresAt: NOW + DAY_MS })
    })

    it('respects the limit and hands out the rest on the next calls', async () => {
      const { store } = fixture()
      for (let i = 0; i < 5; i++)
        await store.createAccountPasscode(accountPasscode({ expiresAt: NOW + i }), 100, audited('acc_1', 'passcode.created'))
      const batches = []
      for (let i = 0; i < 4; i++) batches.push(await store.claimNotifications(claimRequest(NOW, { limit: 2 })))
      expect(batches.map((batch) => batch.length)).toEqual([2, 2, 1, 0])
      expect(new Set(batches.flat().map(claimKey)).size).toBe(5)
    })

    it('hands a released claim out again at once; a release with another token does nothing', async () => {
      const { store } = fixture()
      await store.createAccountPasscode(accountPasscode({ expiresAt: NOW + DAY_MS }), 100, audited('acc_1', 'passcode.created'))
      const [claim] = await store.claimNotifications(claimRequest(NOW))
      await store.releaseNotification({ ...claim!, token: 'someone-else' })
      expect(await store.claimNotifications(claimRequest(NOW))).toEqual([])
      await store.releaseNotification(claim!)
      const [again] = await store.claimNotifications(claimRequest(NOW + 1))
      expect(claimKey(again!)).toBe(claimKey(claim!))
      expect(await store.completeNotification(claim!, NOW, audited(claim!, 'notification.sent'))).toBe(false)
      expect(await store.completeNotification(again!, NOW, audited(again!, 'notification.sent'))).toBe(true)
    })

    it("takes over a claim whose lease lapsed (a crashed runner's); the old holder cannot complete it", async () => {
      const { store } = fixture()
      await store.createAccountPasscode(accountPasscode({ expiresAt: NOW + DAY_MS }), 100, audited('acc_1', 'passcode.created'))
      const [crashed] = await store.claimNotifications(claimRequest(NOW, { leaseMs: 1_000 }))
      expect(await store.claimNotifications(claimRequest(NOW + 999))).toEqual([])
      const [retry] = await store.claimNotifications(claimRequest(NOW + 1_000))
      expect(retry).toBeDefined()
      expect(claimKey(retry!)).toBe(claimKey(crashed!))
      expect(retry!.token).not.toBe(crashed!.token)
      expect(await store.completeNotification(crashed!, NOW + 1_001, audited(crashed!, 'notification.sent'))).toBe(false)
      expect(await store.completeNotification(retry!, NOW + 1_001, audited(retry!, 'notification.sent'))).toBe(true)
      expect(await store.completeNotification(retry!, NOW + 1_002, audited(retry!, 'notification.sent'))).toBe(false)
    })

    it('re-arms the notifications when an edit moves the expiry', async () => {
      const { store } = fixture()
      const record = accountPasscode({ expiresAt: NOW + DAY_MS })
      await store.createAccountPasscode(record, 100, audited(record, 'passcode.created'))
      const [first] = await store.claimNotifications(claimRequest(NOW))
      await store.completeNotification(first!, NOW, audited(first!, 'notification.sent'))
      await store.updateAccountPasscode('acc_1', record.id, { expiry: 20, expiresAt: NOW + 20 * DAY_MS, updatedAt: NOW }, audited('acc_1'))
      const [second] = await store.claimNotifications(claimRequest(NOW + 1))
      expect(second).toMatchObject({ passcodeId: record.id, kind: 'expiring_soon', expiresAt: NOW + 20 * DAY_MS })
    })

    it('moving the expiry back to an instant already notified for sends nothing again; the rest stays due', async () => {
      const { store } = fixture()
      const record = accountPasscode({ expiresAt: NOW + DAY_MS })
      await store.createAccountPasscode(record, 100, audited(record, 'passcode.created'))
      const [soon] = await store.claimNotifications(claimRequest(NOW))
      expect(await store.completeNotification(soon!, NOW, audited(soon!, 'notification.sent'))).toBe(true)
      await store.updateAccountPasscode('acc_1', record.id, { expiry: 20, expiresAt: NOW + 20 * DAY_MS, updatedAt: NOW }, audited('acc_1'))
      await store.updateAccountPasscode('acc_1', record.id, { expiry: 1, expiresAt: NOW + DAY_MS, updatedAt: NOW }, audited('acc_1'))
      expect(await store.claimNotifications(claimRequest(NOW + 1))).toEqual([])
      const [expired, ...rest] = await store.claimNotifications(claimRequest(NOW + DAY_MS))
      expect(rest).toEqual([])
      expect(expired).toMatchObject({ passcodeId: record.id, kind: 'expired', expiresAt: NOW + DAY_MS })
    })

    it('a limited claim reaches past notifications sent or under a live lease to the due ones after them', async () => {
      const { store } = fixture()
      const records = [0, 1, 2, 3, 4].map((i) => accountPasscode({ expiresAt: NOW - DAY_MS + i }))
      for (const record of records) await store.createAccountPasscode(record, 100, audited(record, 'passcode.created'))
      const sent = await store.claimNotifications(claimRequest(NOW, { limit: 2 }))
      for (const claim of sent) expect(await store.completeNotification(claim, NOW, audited(claim, 'notification.sent'))).toBe(true)
      const leased = await store.claimNotifications(claimRequest(NOW, { limit: 2 }))
      const [last, ...none] = await store.claimNotifications(claimRequest(NOW + 1, { limit: 1 }))
      expect(none).toEqual([])
      expect(last?.passcodeId).toBe(records[4]!.id)
      expect([...sent, ...leased].map((claim) => claim.passcodeId).sort()).toEqual(
        records
          .slice(0, 4)
          .map((record) => record.id)
          .sort(),
      )
    })

    it('drops pending claims of a deleted passcode', async () => {
      const { store } = fixture()
      const record = accountPasscode({ expiresAt: NOW - 1 })
      await store.createAccountPasscode(record, 100, audited(record, 'passcode.created'))
      const [claim] = await store.claimNotifications(claimRequest(NOW))
      await store.deleteAccountPasscode('acc_1', record.id, audited('acc_1', 'passcode.deleted'))
      expect(await store.completeNotification(claim!, NOW, audited(claim!, 'notification.sent'))).toBe(false)
      expect(await store.claimNotifications(claimRequest(NOW + LEASE_MS * 2))).toEqual([])
    })

    it('gives each notification to exactly one of 4 concurrent claimers', async () => {
      const { store, peer } = fixture()
      const total = 40
      for (let i = 0; i < total; i++) {
        await store.createAccountPasscode(
          accountPasscode({ accountId: `acc_${i % 4}`, expiresAt: NOW + (i % 2 === 0 ? -DAY_MS : DAY_MS) }),
          100,
          audited(`acc_${i % 4}`, 'passcode.created'),
        )
      }
      const claimers = [store, await peer(), await peer(), await peer()]
      const claimed = await Promise.all(
        claimers.map(async (claimer) => {
          const mine: NotificationClaim[] = []
          for (;;) {
            const batch = await claimer.claimNotifications(claimRequest(NOW, { limit: 3 }))
            if (batch.length === 0) return mine
            mine.push(...batch)
          }
        }),
      )
      const all = claimed.flat()
      expect(all).toHaveLength(total)
      expect(new Set(all.map(claimKey)).size).toBe(total)
      expect(await store.claimNotifications(claimRequest(NOW))).toEqual([])
      const completed = await Promise.all(
        all.map((claim, i) => claimers[i % 4]!.completeNotification(claim, NOW, audited(claim, 'notification.sent'))),
      )
      expect(completed.every(Boolean)).toBe(true)
    })
  })
}
