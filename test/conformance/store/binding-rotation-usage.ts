import { describe, expect, it } from 'vitest'
import type { AccountPasscodeRecord } from '../../../src/core/passcode-records'
import type { CredentialMatch, Invalidation, UsageEntry } from '../../../src/ports/passcode-store'
import { NOW, accountPasscode, eventually, fakeHash, subscribeReady, userPasscode, type StoreFixture, audited } from './fixtures'

const MINUTE = 60_000

const accountRecord = (match: CredentialMatch | null): AccountPasscodeRecord | undefined => (match?.kind === 'account' ? match.record : undefined)

/** Partner binding, rotation with one previous hash, and batched usage (SPEC §5.25–5.27). */
export function bindingRotationUsageCases(fixture: () => StoreFixture): void {
  describe('partner binding', () => {
    it('stores a binding at create, changes and removes it by update, and the lookup carries it', async () => {
      const { store } = fixture()
      const record = accountPasscode({ partners: ['acme', 'globex'] })
      expect(await store.createAccountPasscode(record, 100, audited(record, 'passcode.created'))).toEqual({ ok: true, record })
      expect((await store.findCredentialByHash(record.hash))?.record).toEqual(record)

      const rebound = await store.updateAccountPasscode('acc_1', record.id, { partners: ['initech'], updatedAt: NOW + 1 }, audited('acc_1'))
      expect(rebound).toEqual({ ok: true, record: { ...record, partners: ['initech'], updatedAt: NOW + 1 } })
      const renamed = await store.updateAccountPasscode(
        'acc_1',
        record.id,
        { name: 'Renamed', nameKey: 'renamed', updatedAt: NOW + 2 },
        audited('acc_1'),
      )
      expect(renamed.ok && renamed.record.partners).toEqual(['initech'])
      const unbound = await store.updateAccountPasscode('acc_1', record.id, { partners: null, updatedAt: NOW + 3 }, audited('acc_1'))
      expect(unbound.ok && unbound.record.partners).toBeNull()
      expect(accountRecord(await store.findCredentialByHash(record.hash))?.partners).toBeNull()
      expect((await store.listAccountPasscodes('acc_1'))[0]?.partners).toBeNull()
    })
  })

  describe('rotation', () => {
    it('finds the passcode by its new hash and, during the overlap, by the previous one', async () => {
      const { store } = fixture()
      const record = accountPasscode({ partners: ['acme'] })
      await store.createAccountPasscode(record, 100, audited(record, 'passcode.created'))
      const next = fakeHash()
      const rotated = await store.rotateAccountPasscode(
        'acc_1',
        record.id,
        {
          hash: next,
          hint: 'psc_…Nw01',
          previousHashEndsAt: NOW + 60 * MINUTE,
          updatedAt: NOW + 1,
        },
        audited('acc_1', 'passcode.rotated'),
      )
      const expected = {
        ...record,
        hash: next,
        hint: 'psc_…Nw01',
        previousHash: record.hash,
        previousHashEndsAt: NOW + 60 * MINUTE,
        updatedAt: NOW + 1,
      }
      expect(rotated).toEqual(expected)
      expect(await store.findCredentialByHash(next)).toEqual({ kind: 'account', record: expected, acceptedPasscodes: 'account' })
      expect(await store.findCredentialByHash(record.hash)).toEqual({ kind: 'account', record: expected, acceptedPasscodes: 'account' })
      expect(await store.getAccountPasscode('acc_1', record.id)).toEqual(expected)
    })

    it('keeps one previous hash: rotating again during an overlap drops the oldest value', async () => {
      const { store } = fixture()
      const record = accountPasscode()
      await store.createAccountPasscode(record, 100, audited(record, 'passcode.created'))
      const second = fakeHash()
      const third = fakeHash()
      await store.rotateAccountPasscode(
        'acc_1',
        record.id,
        { hash: second, hint: 'psc_…Two2', previousHashEndsAt: NOW + MINUTE, updatedAt: NOW },
        audited('acc_1', 'passcode.rotated'),
      )
      const again = await store.rotateAccountPasscode(
        'acc_1',
        record.id,
        {
          hash: third,
          hint: 'psc_…Thr3',
          previousHashEndsAt: NOW + 2 * MINUTE,
          updatedAt: NOW,
        },
        audited('acc_1', 'passcode.rotated'),
      )
      expect(again).toMatchObject({ hash: third, previousHash: second, previousHashEndsAt: NOW + 2 * MINUTE })
      expect(await store.findCredentialByHash(record.hash)).toBeNull()
      expect(accountRecord(await store.findCredentialByHash(second))?.id).toBe(record.id)
      expect(accountRecord(await store.findCredentialByHash(third))?.id).toBe(record.id)
    })

    it('with no overlap, the previous value is gone at once', async () => {
      const { store } = fixture()
      const record = accountPasscode()
      await store.createAccountPasscode(record, 100, audited(record, 'passcode.created'))
      const next = fakeHash()
      const rotated = await store.rotateAccountPasscode(
        'acc_1',
        record.id,
        {
          hash: next,
          hint: 'psc_…Now0',
          previousHashEndsAt: null,
          updatedAt: NOW,
        },
        audited('acc_1', 'passcode.rotated'),
      )
      expect(rotated).toMatchObject({ hash: next, previousHash: null, previousHashEndsAt: null })
      expect(await store.findCredentialByHash(record.hash)).toBeNull()
      expect(accountRecord(await store.findCredentialByHash(next))?.id).toBe(record.id)
    })

    it('a delete during an overlap stops both values; another account cannot rotate it', async () => {
      const { store } = fixture()
      const record = accountPasscode()
      await store.createAccountPasscode(record, 100, audited(record, 'passcode.created'))
      const next = fakeHash()
      const rotation = { hash: next, hint: 'psc_…Del0', previousHashEndsAt: NOW + MINUTE, updatedAt: NOW }
      expect(await store.rotateAccountPasscode('acc_2', record.id, rotation, audited('acc_2', 'passcode.rotated'))).toBeNull()
      expect(await store.rotateAccountPasscode('acc_1', 'pc_missing', rotation, audited('acc_1', 'passcode.rotated'))).toBeNull()
      await store.rotateAccountPasscode('acc_1', record.id, rotation, audited('acc_1', 'passcode.rotated'))
      await store.deleteAccountPasscode('acc_1', record.id, audited('acc_1', 'passcode.deleted'))
      expect(await store.findCredentialByHash(record.hash)).toBeNull()
      expect(await store.findCredentialByHash(next)).toBeNull()
      // Both hashes are free again: a new passcode may not collide with leftovers.
      expect((await store.createAccountPasscode(accountPasscode({ hash: record.hash }), 100, audited('acc_1', 'passcode.created'))).ok).toBe(true)
    })

    it('a rotation and a binding change reach a subscriber of another instance', async () => {
      const { store, peer } = fixture()
      const other = await peer()
      const received = await subscribeReady(other, store)
      const record = accountPasscode()
      await store.createAccountPasscode(record, 100, audited(record, 'passcode.created'))
      const expected: Invalidation = { type: 'account_passcode', accountId: 'acc_1', passcodeId: record.id }
      await store.updateAccountPasscode('acc_1', record.id, { partners: ['acme'], updatedAt: NOW }, audited('acc_1'))
      await eventually(() => expect(received).toContainEqual(expected))
      received.length = 0
      await store.rotateAccountPasscode(
        'acc_1',
        record.id,
        { hash: fakeHash(), hint: 'psc_…Inv0', previousHashEndsAt: NOW, updatedAt: NOW },
        audited('acc_1', 'passcode.rotated'),
      )
      await eventually(() => expect(received).toContainEqual(expected))
    })
  })

  describe('usage', () => {
    it('records a batch for account and user passcodes, keeping the latest instant with its own partner', async () => {
      const { store } = fixture()
      const first = accountPasscode()
      const second = accountPasscode()
      await store.createAccountPasscode(first, 100, audited(first, 'passcode.created'))
      await store.createAccountPasscode(second, 100, audited(second, 'passcode.created'))
      await store.grantUserPasscode(userPasscode(), NOW, audited('acc_1', 'user_passcode.granted'))
      const batch: UsageEntry[] = [
        { kind: 'account', accountId: 'acc_1', passcodeId: first.id, at: NOW + 10, partner: 'acme' },
        { kind: 'account', accountId: 'acc_1', passcodeId: second.id, at: NOW + 20, partner: null },
        { kind: 'user', accountId: 'acc_1', userId: 'u_1', at: NOW + 30, partner: 'globex' },
      ]
      expect(await store.recordUsage(batch)).toBe(3)
      expect(await store.getAccountPasscode('acc_1', first.id)).toEqual({ ...first, lastUsedAt: NOW + 10, lastUsedPartner: 'acme' })
      expect(await store.getAccountPasscode('acc_1', second.id)).toMatchObject({ lastUsedAt: NOW + 20, lastUsedPartner: null })
      expect(await store.getUserPasscode('acc_1', 'u_1')).toMatchObject({ lastUsedAt: NOW + 30, lastUsedPartner: 'globex' })
      expect((await store.findCredentialByHash(first.hash))?.record).toMatchObject({ lastUsedAt: NOW + 10, lastUsedPartner: 'acme' })

      // SPEC §5.46: a later use without a partner (a protected route) clears the partner,
      // the pair is one request's; an older batch (another instance flushing late)
      // changes nothing.
      expect(
        await store.recordUsage([
          { kind: 'account', accountId: 'acc_1', passcodeId: first.id, at: NOW + 40, partner: null },
          { kind: 'account', accountId: 'acc_1', passcodeId: second.id, at: NOW + 5, partner: 'late' },
        ]),
      ).toBe(1)
      expect(await store.getAccountPasscode('acc_1', first.id)).toMatchObject({ lastUsedAt: NOW + 40, lastUsedPartner: null })
      expect(await store.getAccountPasscode('acc_1', second.id)).toMatchObject({ lastUsedAt: NOW + 20, lastUsedPartner: null })
    })

    it('skips passcodes deleted before the flush and entries of another account, without failing', async () => {
      const { store } = fixture()
      const kept = accountPasscode()
      const deleted = accountPasscode()
      await store.createAccountPasscode(kept, 100, audited(kept, 'passcode.created'))
      await store.createAccountPasscode(deleted, 100, audited(deleted, 'passcode.created'))
      await store.deleteAccountPasscode('acc_1', deleted.id, audited('acc_1', 'passcode.deleted'))
      const written = await store.recordUsage([
        { kind: 'account', accountId: 'acc_1', passcodeId: deleted.id, at: NOW + 1, partner: null },
        { kind: 'account', accountId: 'acc_2', passcodeId: kept.id, at: NOW + 1, partner: null },
        { kind: 'user', accountId: 'acc_1', userId: 'u_nobody', at: NOW + 1, partner: null },
        { kind: 'account', accountId: 'acc_1', passcodeId: kept.id, at: NOW + 2, partner: null },
      ])
      expect(written).toBe(1)
      expect(await store.listAccountPasscodes('acc_1')).toEqual([{ ...kept, lastUsedAt: NOW + 2 }])
      expect(await store.recordUsage([])).toBe(0)
    })

    it('publishes no invalidation: usage never empties a cache', async () => {
      const { store } = fixture()
      const received = await subscribeReady(store, store)
      const record = accountPasscode()
      await store.createAccountPasscode(record, 100, audited(record, 'passcode.created'))
      await store.recordUsage([{ kind: 'account', accountId: 'acc_1', passcodeId: record.id, at: NOW, partner: null }])
      // A later change does arrive, so the silence above is not a slow channel.
      await store.setAcceptedPasscodes('acc_1', 'account', audited('acc_1', 'account.accepted_passcodes_changed'))
      await eventually(() => expect(received).toContainEqual({ type: 'account', accountId: 'acc_1' }))
      expect(received).not.toContainEqual(expect.objectContaining({ type: 'account_passcode' }))
    })
  })
}
