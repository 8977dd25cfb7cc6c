import { randomUUID } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import type { AuditEntry } from '../../../src/core/audit'
import type { AccountPolicy } from '../../../src/core/policy'
import type { PolicyNoticeRequest } from '../../../src/ports/account-policy-part'
import type { PasscodeStore } from '../../../src/ports/passcode-store'
import { NOW, signed, type StoreFixture, audited } from './fixtures'

const LEASE_MS = 60_000
const STRICT: AccountPolicy = { maxLifetimeDays: 90, requireExpiry: true, requireDescription: false }
const LOOSE: AccountPolicy = { maxLifetimeDays: null, requireExpiry: false, requireDescription: true }

/** The policy methods, which a conforming store implements (all or none). */
function policies(store: PasscodeStore) {
  const { getAccountPolicy, setAccountPolicy, claimPolicyNotices, completePolicyNotice, releasePolicyNotice } = store
  if (!getAccountPolicy || !setAccountPolicy || !claimPolicyNotices || !completePolicyNotice || !releasePolicyNotice) {
    throw new Error('the store keeps no account policies')
  }
  return {
    get: getAccountPolicy.bind(store),
    set: setAccountPolicy.bind(store),
    claim: (now: number, limit = 100, token = randomUUID()) => claimPolicyNotices.call(store, { now, leaseMs: LEASE_MS, limit, token }),
    complete: completePolicyNotice.bind(store),
    release: releasePolicyNotice.bind(store),
  }
}

const notice = (overrides: Partial<PolicyNoticeRequest> = {}): PolicyNoticeRequest => ({
  policy: STRICT,
  setAt: NOW,
  count: 3,
  token: randomUUID(),
  claimedUntil: NOW + LEASE_MS,
  ...overrides,
})

/** The record a policy change hands the store, with changes as a stale read saw them: the store writes its own. */
const changeEntry = (accountId = 'acc_1', at = NOW): AuditEntry => ({
  accountId,
  at,
  actor: { type: 'user', userId: 'u_admin', role: 'admin' },
  action: 'account.policy_changed',
  target: { type: 'account' },
  changes: { maxLifetimeDays: { before: 7, after: 8 } },
  requestId: null,
  clientAddress: null,
})

const sentEntry = (accountId: string, at: number): AuditEntry => ({
  accountId,
  at,
  actor: { type: 'system' },
  action: 'notification.sent',
  target: { type: 'account' },
  changes: { notification: { before: null, after: 'policy_violations' }, count: { before: null, after: 3 } },
  requestId: null,
  clientAddress: null,
})

const records = async (store: PasscodeStore, accountId = 'acc_1') => (await store.audit?.records(accountId, { limit: 100 })) ?? []

/** SPEC §5.52: an account's own policy, its audit record, and its one durable email. */
export function accountPolicyCases(fixture: () => StoreFixture): void {
  describe('account policies', () => {
    it('keeps an account its own policy, replaced whole, back to none; each change with its record of the rules as the store found them', async () => {
      const { store } = fixture()
      const api = policies(store)
      expect(await api.get('acc_1')).toBeNull()
      expect(await api.set('acc_1', STRICT, null, signed(changeEntry()))).toBeNull()
      expect(await api.get('acc_1')).toEqual(STRICT)
      expect(await api.get('acc_2')).toBeNull()
      expect(await api.set('acc_1', LOOSE, null, signed(changeEntry('acc_1', NOW + 1)))).toEqual(STRICT)
      expect(await api.get('acc_1')).toEqual(LOOSE)
      expect(await api.set('acc_1', null, null, signed(changeEntry('acc_1', NOW + 2)))).toEqual(LOOSE)
      expect(await api.get('acc_1')).toBeNull()

      const written = await records(store)
      expect(written.map((record) => [record.action, record.target, record.changes])).toEqual([
        [
          'account.policy_changed',
          { type: 'account' },
          {
            maxLifetimeDays: { before: null, after: 90 },
            requireExpiry: { before: null, after: true },
            requireDescription: { before: null, after: false },
          },
        ],
        [
          'account.policy_changed',
          { type: 'account' },
          {
            maxLifetimeDays: { before: 90, after: null },
            requireExpiry: { before: true, after: false },
            requireDescription: { before: false, after: true },
          },
        ],
        [
          'account.policy_changed',
          { type: 'account' },
          { requireExpiry: { before: false, after: null }, requireDescription: { before: true, after: null } },
        ],
      ])
      expect(await records(store, 'acc_2')).toEqual([])
    })

    it("holds the setter's claim on the email until it lapses, then gives it to the next pass; completed once, with its record", async () => {
      const { store } = fixture()
      const api = policies(store)
      const asked = notice()
      await api.set('acc_1', STRICT, asked, signed(changeEntry()))
      expect(await api.claim(NOW + LEASE_MS - 1)).toEqual([])

      const [claim, ...more] = await api.claim(NOW + LEASE_MS)
      expect(more).toEqual([])
      expect(claim).toEqual({ accountId: 'acc_1', policy: STRICT, count: 3, setAt: NOW, notifiedAt: null, token: claim!.token })
      // The setter's claim lapsed: its completion no longer holds.
      expect(await api.complete({ ...claim!, token: asked.token }, NOW + LEASE_MS, audited(claim!, 'notification.sent'))).toBe(false)
      expect(await api.claim(NOW + LEASE_MS)).toEqual([])
      expect(await api.complete(claim!, NOW + LEASE_MS + 1, signed(sentEntry('acc_1', NOW + LEASE_MS + 1)))).toBe(true)
      expect(await api.complete(claim!, NOW + LEASE_MS + 2, signed(sentEntry('acc_1', NOW + LEASE_MS + 2)))).toBe(false)
      expect(await api.claim(NOW + 10 * LEASE_MS)).toEqual([])
      expect((await records(store)).map((record) => record.action)).toEqual(['account.policy_changed', 'notification.sent'])
    })

    it('completes under the setter’s own claim, and a released claim is claimed again at once', async () => {
      const { store } = fixture()
      const api = policies(store)
      const asked = notice({ count: 1 })
      await api.set('acc_1', STRICT, asked, signed(changeEntry()))
      const held = { accountId: 'acc_1', policy: STRICT, count: 1, setAt: NOW, notifiedAt: null, token: asked.token }
      await api.release(held)
      const [again] = await api.claim(NOW)
      expect(again).toMatchObject({ accountId: 'acc_1', count: 1 })
      await api.release({ ...again!, token: randomUUID() }) // not the holder's: nothing happens
      expect(await api.claim(NOW)).toEqual([])
      expect(await api.complete(again!, NOW + 1, audited(again!, 'notification.sent'))).toBe(true)
      expect(await api.claim(NOW + 10 * LEASE_MS)).toEqual([])
    })

    it('keeps one email per account: a newer change replaces one not sent, a change without one drops it', async () => {
      const { store } = fixture()
      const api = policies(store)
      const first = notice({ claimedUntil: NOW })
      await api.set('acc_1', STRICT, first, signed(changeEntry()))
      await api.set('acc_1', LOOSE, notice({ policy: LOOSE, count: 5, setAt: NOW + 1, claimedUntil: NOW }), signed(changeEntry('acc_1', NOW + 1)))
      const claims = await api.claim(NOW + 2)
      expect(claims).toMatchObject([{ accountId: 'acc_1', policy: LOOSE, count: 5, setAt: NOW + 1 }])
      expect(await api.complete({ ...claims[0]!, token: first.token }, NOW + 2, audited(claims[0]!, 'notification.sent'))).toBe(false)
      await api.release(claims[0]!)

      await api.set('acc_1', null, null, signed(changeEntry('acc_1', NOW + 3)))
      expect(await api.claim(NOW + 4)).toEqual([])
      expect(await api.complete(claims[0]!, NOW + 4, audited(claims[0]!, 'notification.sent'))).toBe(false)

      // A sent email stays sent when the policy changes again without one.
      await api.set('acc_2', STRICT, notice({ claimedUntil: NOW }), signed(changeEntry('acc_2')))
      const [sent] = await api.claim(NOW + 5)
      expect(await api.complete(sent!, NOW + 5, audited(sent!, 'notification.sent'))).toBe(true)
      await api.set('acc_2', LOOSE, null, signed(changeEntry('acc_2', NOW + 6)))
      expect(await api.claim(NOW + 7)).toEqual([])
    })

    it('claims the oldest first, at most `limit`', async () => {
      const { store } = fixture()
      const api = policies(store)
      for (const [i, account] of ['acc_c', 'acc_a', 'acc_b'].entries()) {
        await api.set(account, STRICT, notice({ setAt: NOW - i, claimedUntil: NOW }), signed(changeEntry(account, NOW - i)))
      }
      expect((await api.claim(NOW, 2)).map((claim) => claim.accountId)).toEqual(['acc_b', 'acc_a'])
      expect((await api.claim(NOW, 2)).map((claim) => claim.accountId)).toEqual(['acc_c'])
    })

    it('gives each email to exactly one of 4 concurrent claimers', async () => {
      const { store, peer } = fixture()
      const accounts = Array.from({ length: 12 }, (_, i) => `acc_${i}`)
      for (const account of accounts) await policies(store).set(account, STRICT, notice({ claimedUntil: NOW }), signed(changeEntry(account)))
      const claimers = [store, await peer(), await peer(), await peer()]
      const claimed = (await Promise.all(claimers.map(async (claimer) => policies(claimer).claim(NOW, 5)))).flat()
      expect(claimed.map((claim) => claim.accountId).sort()).toEqual([...accounts].sort())
    })
  })
}
