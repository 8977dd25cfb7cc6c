import { describe, expect, it } from 'vitest'
import { NOW, accountPasscode, eventually, subscribeReady, userPasscode, type StoreFixture, audited } from './fixtures'
import type { Invalidation } from '../../../src/ports/passcode-store'

/** SPEC §5.48, §5.49, §5.51: the restrictions of a passcode, as every store keeps them. */
export function restrictionCases(fixture: () => StoreFixture): void {
  describe('restricted passcodes (SPEC 5.48, 5.49, 5.51)', () => {
    const restricted = {
      scopes: ['events:read', 'reports:read'],
      allowedAddresses: ['192.0.2.0/24', '2001:db8::/32'],
      metadata: { plan: 'gold', seats: [1, 2], nested: { ok: true, none: null }, text: 'é ☕ "quoted"' },
      tags: ['team/payments', 'prod'],
    }

    it('stores scopes, ranges, metadata and tags at create and reads them back by id, list and hash', async () => {
      const { store } = fixture()
      const record = accountPasscode(restricted)
      await store.createAccountPasscode(record, 100, audited(record, 'passcode.created'))
      expect(await store.getAccountPasscode('acc_1', record.id)).toEqual(record)
      expect(await store.listAccountPasscodes('acc_1')).toEqual([record])
      expect((await store.findCredentialByHash(record.hash))?.record).toMatchObject(restricted)
    })

    it('keeps an empty scope list (no scope) apart from every scope (null)', async () => {
      const { store } = fixture()
      const none = accountPasscode({ scopes: [] })
      await store.createAccountPasscode(none, 100, audited(none, 'passcode.created'))
      expect((await store.findCredentialByHash(none.hash))?.record).toMatchObject({ scopes: [] })
      const all = accountPasscode()
      await store.createAccountPasscode(all, 100, audited(all, 'passcode.created'))
      expect((await store.findCredentialByHash(all.hash))?.record).toMatchObject({ scopes: null })
    })

    it('changes each alone, leaves the others, and clears them', async () => {
      const { store } = fixture()
      const record = accountPasscode(restricted)
      await store.createAccountPasscode(record, 100, audited(record, 'passcode.created'))
      await store.updateAccountPasscode('acc_1', record.id, { scopes: ['events:read'], updatedAt: NOW + 1 }, audited('acc_1'))
      expect(await store.getAccountPasscode('acc_1', record.id)).toEqual({ ...record, scopes: ['events:read'], updatedAt: NOW + 1 })
      await store.updateAccountPasscode('acc_1', record.id, { name: 'Renamed', nameKey: 'renamed', updatedAt: NOW + 2 }, audited('acc_1'))
      expect(await store.getAccountPasscode('acc_1', record.id)).toMatchObject({ ...restricted, scopes: ['events:read'] })
      const cleared = await store.updateAccountPasscode(
        'acc_1',
        record.id,
        {
          scopes: null,
          allowedAddresses: [],
          metadata: null,
          tags: [],
          updatedAt: NOW + 3,
        },
        audited('acc_1'),
      )
      expect(cleared).toEqual({
        ok: true,
        record: { ...record, name: 'Renamed', nameKey: 'renamed', scopes: null, allowedAddresses: [], metadata: null, tags: [], updatedAt: NOW + 3 },
      })
      expect((await store.findCredentialByHash(record.hash))?.record).toMatchObject({ scopes: null, allowedAddresses: [], metadata: null })
    })

    it("keeps a user passcode's scopes and ranges through a grant, and a new grant replaces them", async () => {
      const { store } = fixture()
      const record = userPasscode({ scopes: ['events:read'], allowedAddresses: ['203.0.113.0/24'] })
      await store.grantUserPasscode(record, NOW, audited(record, 'user_passcode.granted'))
      expect(await store.getUserPasscode('acc_1', 'u_1')).toEqual(record)
      expect((await store.findCredentialByHash(record.hash))?.record).toMatchObject({ scopes: ['events:read'], allowedAddresses: ['203.0.113.0/24'] })
      await store.revokeUserPasscode('acc_1', 'u_1', NOW + 1, audited('acc_1', 'user_passcode.revoked'))
      const again = userPasscode({ grantedAt: NOW + 2 })
      await store.grantUserPasscode(again, NOW + 2, audited(again, 'user_passcode.granted'))
      expect(await store.getUserPasscode('acc_1', 'u_1')).toMatchObject({ scopes: null, allowedAddresses: [] })
    })

    it('tells every instance when scopes, ranges or metadata change, not for tags alone', async () => {
      const { store, peer } = fixture()
      const other = await peer()
      const record = accountPasscode()
      await store.createAccountPasscode(record, 100, audited(record, 'passcode.created'))
      const seen = await subscribeReady(other, store)
      const edit: Invalidation = { type: 'account_passcode', accountId: 'acc_1', passcodeId: record.id }
      await store.updateAccountPasscode('acc_1', record.id, { scopes: ['events:read'], updatedAt: NOW + 1 }, audited('acc_1'))
      await eventually(() => expect(seen).toContainEqual(edit), 5_000)
      seen.length = 0
      // Tags alone change nothing a verification reads: no invalidation (the next edit's is the first seen).
      await store.updateAccountPasscode('acc_1', record.id, { tags: ['prod'], updatedAt: NOW + 1 }, audited('acc_1'))
      await store.updateAccountPasscode('acc_1', record.id, { allowedAddresses: ['192.0.2.0/24'], updatedAt: NOW + 2 }, audited('acc_1'))
      await eventually(() => expect(seen).toContainEqual(edit), 5_000)
      // Published in order on one channel: had the tags' edit published, it would be here too.
      expect(seen.filter((invalidation) => invalidation.type === 'account_passcode')).toHaveLength(1)
      seen.length = 0
      await store.updateAccountPasscode('acc_1', record.id, { metadata: { plan: 'gold' }, updatedAt: NOW + 3 }, audited('acc_1'))
      await eventually(() => expect(seen).toContainEqual(edit), 5_000)
    })
  })
}
