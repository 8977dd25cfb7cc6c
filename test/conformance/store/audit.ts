import { describe, expect, it } from 'vitest'
import type { AuditAction, AuditEntry, AuditRecord } from '../../../src/core/audit'
import { GENESIS_HASH } from '../../../src/core/audit'
import { verifyAuditChain } from '../../../src/core/audit-chain'
import { vouchAuditPage } from '../../../src/core/audit-page'
import type { AuditAppend } from '../../../src/ports/audit-log'
import type { PasscodeStore } from '../../../src/ports/passcode-store'
import { createPasscodeAuth } from '../../../src/service/create-passcode-auth'
import { manualClock, TEST_KEY } from '../../helpers/service'
import { recordingSender } from '../../service/webhook-fixtures'
import { AUDIT_KEYS, NOW, WINDOW_MS, accountPasscode, fakeHash, signed, userPasscode, type StoreFixture, audited, caseRecords } from './fixtures'

/** An entry of `action`, signed as the service hands it to a store. */
const entry = (action: AuditAction, overrides: Partial<AuditEntry> = {}): AuditAppend =>
  signed({
    accountId: 'acc_1',
    at: NOW,
    actor: { type: 'user', userId: 'u_admin', role: 'admin' },
    action,
    target: { type: 'account' },
    changes: {},
    requestId: null,
    clientAddress: null,
    ...overrides,
  })

const log = (store: PasscodeStore) => {
  if (store.audit === undefined) throw new Error('the store keeps no audit trail')
  return store.audit
}

/** Every row of the account, oldest first. */
async function rows(store: PasscodeStore, accountId = 'acc_1'): Promise<AuditRecord[]> {
  return log(store).records(accountId, { limit: 10_000 })
}

/** The rows of the account the case's own writes made, oldest first (the setup's left out). */
async function chain(store: PasscodeStore, accountId = 'acc_1'): Promise<AuditRecord[]> {
  return caseRecords(await rows(store, accountId))
}

async function verify(store: PasscodeStore, accountId = 'acc_1') {
  const records = await rows(store, accountId)
  const ends = await log(store).ends(accountId)
  return verifyAuditChain(
    (async function* () {
      yield* records
    })(),
    { ends, keys: AUDIT_KEYS },
  )
}

/** The sequences of a page of `list`, newest first, once it is vouched for. */
async function page(store: PasscodeStore, accountId: string, query: Parameters<NonNullable<PasscodeStore['audit']>['list']>[1]) {
  const listing = await log(store).list(accountId, query)
  // A page read without a filter is also held to having every sequence it spans.
  const { limit, after, ...filters } = query
  expect(vouchAuditPage(listing, AUDIT_KEYS, Object.keys(filters).length === 0 ? { after, limit } : undefined)).toBeUndefined()
  return listing.records.map((record) => record.sequence)
}

/** The audit trail (SPEC §5.40): records with their change only, one chain per account, pages, pruning. */
export function auditCases(fixture: () => StoreFixture): void {
  describe('audit trail', () => {
    it("appends a write's record with its change, and none when the write changes nothing", async () => {
      const { store } = fixture()
      const record = accountPasscode()
      const other = accountPasscode({ name: record.name })
      expect((await store.createAccountPasscode(record, 100, entry('passcode.created'))).ok).toBe(true)
      expect((await store.createAccountPasscode(other, 100, entry('passcode.created'))).ok).toBe(false)
      expect((await store.createAccountPasscode(accountPasscode(), 1, entry('passcode.created'))).ok).toBe(false)
      expect(
        (await store.updateAccountPasscode('acc_1', record.id, { name: 'Renamed', nameKey: 'renamed', updatedAt: NOW }, entry('passcode.updated')))
          .ok,
      ).toBe(true)
      expect(
        (await store.updateAccountPasscode('acc_1', 'pc_missing', { name: 'X', nameKey: 'x', updatedAt: NOW }, entry('passcode.updated'))).ok,
      ).toBe(false)
      expect(
        await store.rotateAccountPasscode(
          'acc_1',
          record.id,
          { hash: fakeHash(), hint: 'psc_…Cd34', previousHashEndsAt: null, updatedAt: NOW },
          entry('passcode.rotated'),
        ),
      ).not.toBeNull()
      expect(
        await store.rotateAccountPasscode(
          'acc_2',
          record.id,
          { hash: fakeHash(), hint: 'psc_…Cd34', previousHashEndsAt: null, updatedAt: NOW },
          entry('passcode.rotated'),
        ),
      ).toBeNull()
      await store.grantUserPasscode(userPasscode(), NOW, entry('user_passcode.granted'))
      expect((await store.grantUserPasscode(userPasscode(), NOW, entry('user_passcode.granted'))).ok).toBe(false)
      const { hash, ciphertext, hint, grantedAt, expiresAt } = userPasscode()
      expect(
        await store.resetUserPasscode('acc_1', 'u_1', { hash, ciphertext, hint, grantedAt, expiresAt }, entry('user_passcode.reset')),
      ).not.toBeNull()
      expect(await store.revokeUserPasscode('acc_1', 'u_1', NOW, entry('user_passcode.revoked'))).not.toBeNull()
      expect(await store.revokeUserPasscode('acc_1', 'u_1', NOW, entry('user_passcode.revoked'))).toBeNull()
      expect(
        await store.resetUserPasscode('acc_1', 'u_1', { hash: fakeHash(), ciphertext, hint, grantedAt, expiresAt }, entry('user_passcode.reset')),
      ).toBeNull()
      await store.setAcceptedPasscodes('acc_1', 'both', entry('account.accepted_passcodes_changed'))
      await log(store).append(entry('user_passcode.revealed'))
      expect(await store.deleteAccountPasscode('acc_1', record.id, entry('passcode.deleted'))).not.toBeNull()
      expect(await store.deleteAccountPasscode('acc_1', record.id, entry('passcode.deleted'))).toBeNull()

      const records = await chain(store)
      expect(records.map((r) => r.action)).toEqual([
        'passcode.created',
        'passcode.updated',
        'passcode.rotated',
        'user_passcode.granted',
        'user_passcode.reset',
        'user_passcode.revoked',
        'account.accepted_passcodes_changed',
        'user_passcode.revealed',
        'passcode.deleted',
      ])
      expect(records.map((r) => r.sequence)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9])
      expect(await verify(store)).toMatchObject({ ok: true, records: 9, head: { sequence: 9, hash: records[8]!.hash } })
    })

    it("records an edit of a passcode's restrictions (SPEC 5.48-5.51) from the row, as every store shows them", async () => {
      const { store } = fixture()
      const record = accountPasscode({ name: 'One' })
      await store.createAccountPasscode(record, 100, audited(record, 'passcode.created'))
      const target = { type: 'passcode' as const, id: record.id, name: 'One' }
      const metadata = { plan: 'gold', note: 'é "q"', nested: { seats: [1, 2] } }
      const restrict = { scopes: ['events:read'], allowedAddresses: ['192.0.2.0/24'], metadata, tags: ['prod'], updatedAt: NOW + 1 }
      expect((await store.updateAccountPasscode('acc_1', record.id, restrict, entry('passcode.updated', { target }))).ok).toBe(true)
      const clear = { scopes: null, allowedAddresses: [], metadata: null, tags: [], updatedAt: NOW + 2 }
      expect((await store.updateAccountPasscode('acc_1', record.id, clear, entry('passcode.updated', { target }))).ok).toBe(true)
      const [restricted, cleared] = await chain(store)
      expect(restricted!.changes).toEqual({
        scopes: { before: null, after: ['events:read'] },
        allowedAddresses: { before: null, after: ['192.0.2.0/24'] },
        metadata: { before: null, after: JSON.stringify(metadata) },
        tags: { before: null, after: ['prod'] },
      })
      expect(cleared!.changes).toEqual({
        scopes: { before: ['events:read'], after: null },
        allowedAddresses: { before: ['192.0.2.0/24'], after: null },
        metadata: { before: JSON.stringify(metadata), after: null },
        tags: { before: ['prod'], after: null },
      })
      expect(await verify(store)).toMatchObject({ ok: true, records: 3 }) // the create’s record first
    })

    it("records an edit's changed fields and target name from the row it changed, not from the entry's earlier read", async () => {
      const { store } = fixture()
      const record = accountPasscode({ name: 'One', partners: ['acme'] })
      await store.createAccountPasscode(record, 100, audited(record, 'passcode.created'))
      // Changed since the caller read it: the entry's before is stale.
      await store.updateAccountPasscode(
        'acc_1',
        record.id,
        { name: 'Two', nameKey: 'two', description: 'Line 1\nLine 2', updatedAt: NOW },
        audited('acc_1'),
      )
      // Text outside ASCII, quotes, control characters and a line separator, in every store alike.
      const name = 'Zürich 🚀 "sync"\u2028\\\t\u0001'
      const stale = entry('passcode.updated', {
        target: { type: 'passcode', id: record.id, name: 'One' },
        changes: { name: { before: 'One', after: name }, reason: { before: null, after: 'kept as given' } },
      })
      const patch = { name, nameKey: 'zürich', partners: ['acme', 'ümlaut "co"'], updatedAt: NOW + 1 }
      expect((await store.updateAccountPasscode('acc_1', record.id, patch, stale)).ok).toBe(true)
      const disabled = entry('passcode.disabled', { target: { type: 'passcode', id: record.id, name: 'One' }, changes: {} })
      expect((await store.updateAccountPasscode('acc_1', record.id, { disabledAt: NOW, updatedAt: NOW + 2 }, disabled)).ok).toBe(true)
      await store.updateAccountPasscode('acc_1', record.id, { description: '', updatedAt: NOW + 3 }, entry('passcode.updated'))

      const [edit, disable, cleared] = await chain(store)
      expect(edit!.target).toEqual({ type: 'passcode', id: record.id, name })
      expect(edit!.changes).toEqual({
        name: { before: 'Two', after: name },
        partners: { before: ['acme'], after: ['acme', 'ümlaut "co"'] },
        reason: { before: null, after: 'kept as given' },
      })
      expect(disable).toMatchObject({ target: { name }, changes: { disabled: { before: false, after: true } } })
      expect(Object.keys(disable!.changes)).toEqual(['disabled'])
      // A target that is not the passcode is kept as given.
      expect(cleared).toMatchObject({ target: { type: 'account' }, changes: { description: { before: 'Line 1\nLine 2', after: null } } })
      expect(await verify(store)).toMatchObject({ ok: true, records: 5 }) // after the setup’s create and edit
    })

    it("records a rotation's end before and after, even both none, and the row's name in any text, as every store does", async () => {
      const { store } = fixture()
      // Text outside ASCII, quotes, control characters and a line separator, in every store alike.
      const name = 'Zürich 🚀 "sync"\u2028\\\t\u0001'
      const record = accountPasscode({ name, nameKey: 'zürich' })
      await store.createAccountPasscode(record, 100, audited(record, 'passcode.created'))
      const stale = { type: 'passcode', id: record.id, name: 'Stale' } as const
      const first = { hash: fakeHash(), hint: 'psc_…Ab12', previousHashEndsAt: null, updatedAt: NOW }
      expect(await store.rotateAccountPasscode('acc_1', record.id, first, entry('passcode.rotated', { target: stale }))).not.toBeNull()
      const second = { hash: fakeHash(), hint: 'psc_…Cd34', previousHashEndsAt: NOW + 60_000, updatedAt: NOW + 1 }
      const other = entry('passcode.rotated', { changes: { reason: { before: null, after: 'kept "as" given' } } })
      expect(await store.rotateAccountPasscode('acc_1', record.id, second, other)).not.toBeNull()

      const [none, overlap] = await chain(store)
      expect(none).toMatchObject({
        target: { type: 'passcode', id: record.id, name },
        changes: { previousValueEndsAt: { before: null, after: null } },
      })
      expect(Object.keys(none!.changes)).toEqual(['previousValueEndsAt'])
      // A target that is not the passcode is kept as given, with the entry's other changes.
      expect(overlap!.target).toEqual({ type: 'account' })
      expect(overlap!.changes).toEqual({
        previousValueEndsAt: { before: null, after: NOW + 60_000 },
        reason: { before: null, after: 'kept "as" given' },
      })
      expect(await verify(store)).toMatchObject({ ok: true, records: 3 }) // the create’s record first
    })

    it("records a rotation's, a delete's and a reset's before and target name from the row, not from the entry's earlier read", async () => {
      const { store } = fixture()
      const record = accountPasscode({ name: 'One', partners: ['acme'], description: 'Nightly' })
      await store.createAccountPasscode(record, 100, audited(record, 'passcode.created'))
      await store.rotateAccountPasscode(
        'acc_1',
        record.id,
        { hash: fakeHash(), hint: 'psc_…Ab12', previousHashEndsAt: NOW + 60_000, updatedAt: NOW },
        audited('acc_1', 'passcode.rotated'),
      )
      await store.updateAccountPasscode('acc_1', record.id, { name: 'Two', nameKey: 'two', updatedAt: NOW }, audited('acc_1'))
      // Made before the rotation and the rename: stale.
      const target = { type: 'passcode', id: record.id, name: 'One' } as const
      const rotated = entry('passcode.rotated', {
        target,
        changes: { previousValueEndsAt: { before: null, after: NOW + 5 }, reason: { before: null, after: 'kept as given' } },
      })
      const rotation = { hash: fakeHash(), hint: 'psc_…Cd34', previousHashEndsAt: null, updatedAt: NOW + 1 }
      expect(await store.rotateAccountPasscode('acc_1', record.id, rotation, rotated)).not.toBeNull()
      const deleted = entry('passcode.deleted', { target, changes: { name: { before: 'One', after: null } } })
      expect(await store.deleteAccountPasscode('acc_1', record.id, deleted)).not.toBeNull()
      await store.grantUserPasscode(userPasscode({ expiresAt: NOW + 1000 }), NOW, audited('acc_1', 'user_passcode.granted'))
      const { hash, ciphertext, hint, grantedAt } = userPasscode()
      await store.resetUserPasscode(
        'acc_1',
        'u_1',
        { hash: fakeHash(), ciphertext, hint, grantedAt, expiresAt: NOW + 2000 },
        audited('acc_1', 'user_passcode.reset'),
      )
      const reset = entry('user_passcode.reset', {
        target: { type: 'user', id: 'u_1' },
        changes: { expiresAt: { before: NOW + 1000, after: NOW + 3000 } },
      })
      expect(await store.resetUserPasscode('acc_1', 'u_1', { hash, ciphertext, hint, grantedAt, expiresAt: NOW + 3000 }, reset)).not.toBeNull()

      const [rotation2, removal, resetRecord] = await chain(store)
      expect(rotation2!.target).toEqual({ type: 'passcode', id: record.id, name: 'Two' })
      expect(rotation2!.changes).toEqual({
        previousValueEndsAt: { before: NOW + 60_000, after: null },
        reason: { before: null, after: 'kept as given' },
      })
      expect(removal!.target).toEqual({ type: 'passcode', id: record.id, name: 'Two' })
      expect(removal!.changes).toEqual({
        name: { before: 'Two', after: null },
        expiry: { before: record.expiry, after: null },
        expiresAt: { before: record.expiresAt, after: null },
        partners: { before: ['acme'], after: null },
        description: { before: 'Nightly', after: null },
      })
      expect(resetRecord).toMatchObject({ target: { type: 'user', id: 'u_1' }, changes: { expiresAt: { before: NOW + 2000, after: NOW + 3000 } } })
      expect(await verify(store)).toMatchObject({ ok: true, records: 8 }) // after the setup’s create, rotation, rename, grant and reset
    })

    it("records an accepted passcodes change's before from the stored setting, not from the entry's earlier read", async () => {
      const { store } = fixture()
      await store.setAcceptedPasscodes('acc_1', 'both', audited('acc_1', 'account.accepted_passcodes_changed'))
      const stale = entry('account.accepted_passcodes_changed', { changes: { acceptedPasscodes: { before: 'account', after: 'user' } } })
      await store.setAcceptedPasscodes('acc_1', 'user', stale)
      await store.setAcceptedPasscodes('acc_2', 'both', signed({ ...stale.entry, accountId: 'acc_2' }))
      expect((await chain(store)).map((record) => record.changes)).toEqual([{ acceptedPasscodes: { before: 'both', after: 'user' } }])
      expect((await chain(store, 'acc_2')).map((record) => record.changes)).toEqual([{ acceptedPasscodes: { before: 'account', after: 'both' } }])
      expect(await store.getAcceptedPasscodes('acc_1')).toBe('user')
    })

    it('refuses an entry that cannot be encoded, even in the fields a store reads from the row, and changes nothing', async () => {
      const { store } = fixture()
      const record = accountPasscode()
      await store.createAccountPasscode(record, 100, audited(record, 'passcode.created'))
      const bad = { before: null, after: 1.5 }
      const rotation = { hash: fakeHash(), hint: 'psc_…Cd34', previousHashEndsAt: null, updatedAt: NOW }
      await expect(
        store.rotateAccountPasscode('acc_1', record.id, rotation, entry('passcode.rotated', { changes: { previousValueEndsAt: bad } })),
      ).rejects.toThrow()
      const patch = { name: 'Renamed', nameKey: 'renamed', updatedAt: NOW }
      await expect(store.updateAccountPasscode('acc_1', record.id, patch, entry('passcode.updated', { changes: { name: bad } }))).rejects.toThrow()
      expect(await store.getAccountPasscode('acc_1', record.id)).toMatchObject({ name: record.name, hash: record.hash })
      expect(await chain(store)).toEqual([])
    })

    it('records a notification sent with its completion, and none for a lost claim', async () => {
      const { store } = fixture()
      await store.createAccountPasscode(accountPasscode({ expiresAt: NOW + 1000 }), 100, audited('acc_1', 'passcode.created'))
      const [claim] = await store.claimNotifications({ now: NOW, windowMs: WINDOW_MS, leaseMs: 60_000, limit: 10, token: 'token-a' })
      const sent = entry('notification.sent', { actor: { type: 'system' } })
      expect(await store.completeNotification({ ...claim!, token: 'someone-else' }, NOW, sent)).toBe(false)
      expect(await store.completeNotification(claim!, NOW, sent)).toBe(true)
      expect(await store.completeNotification(claim!, NOW, sent)).toBe(false)
      expect((await chain(store)).map((r) => [r.action, r.actor.type])).toEqual([['notification.sent', 'system']])
    })

    it('writes neither the change nor the record when the record cannot be stored', async () => {
      const { store } = fixture()
      const record = accountPasscode()
      const unencodable = entry('passcode.created', { changes: { expiresAt: { before: null, after: 1.5 } } })
      await expect(store.createAccountPasscode(record, 100, unencodable)).rejects.toThrow()
      expect(await store.getAccountPasscode('acc_1', record.id)).toBeNull()
      await store.createAccountPasscode(record, 100, audited(record, 'passcode.created'))
      await expect(store.deleteAccountPasscode('acc_1', record.id, unencodable)).rejects.toThrow()
      expect(await store.getAccountPasscode('acc_1', record.id)).not.toBeNull()
      expect(await chain(store)).toEqual([])
    })

    it('keeps one chain per account under concurrent appends from two instances', async () => {
      const { store, peer } = fixture()
      const other = await peer()
      await Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          log(i % 2 === 0 ? store : other).append(entry('user_passcode.revealed', { at: NOW + i, accountId: i % 4 < 2 ? 'acc_1' : 'acc_2' })),
        ),
      )
      for (const accountId of ['acc_1', 'acc_2']) {
        const records = await chain(store, accountId)
        expect(records.map((r) => r.sequence)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1))
        expect(await verify(store, accountId)).toMatchObject({ ok: true, records: 20 })
      }
    })

    it('reads pages newest first below a bound, filtered by action, target and time, with what vouches for them', async () => {
      const { store } = fixture()
      for (let i = 0; i < 6; i++) {
        await log(store).append(
          entry(i % 2 === 0 ? 'passcode.created' : 'passcode.rotated', {
            at: NOW + i * 1000,
            target: { type: 'passcode', id: `pc_${i % 3}`, name: `P${i}` },
          }),
        )
      }
      await log(store).append(entry('passcode.created', { accountId: 'acc_2' }))
      expect(await page(store, 'acc_1', { limit: 4 })).toEqual([6, 5, 4, 3])
      expect(await page(store, 'acc_1', { limit: 4, after: 3 })).toEqual([2, 1])
      expect(await page(store, 'acc_1', { limit: 10, actions: ['passcode.rotated'] })).toEqual([6, 4, 2])
      expect(await page(store, 'acc_1', { limit: 10, targetId: 'pc_1' })).toEqual([5, 2])
      expect(await page(store, 'acc_1', { limit: 10, from: NOW + 1000, to: NOW + 3000 })).toEqual([3, 2])
      expect(await page(store, 'acc_2', { limit: 10 })).toEqual([1])
      const listing = await log(store).list('acc_1', { limit: 2, actions: ['passcode.created'] })
      const rows = await chain(store)
      expect(listing).toMatchObject({ stray: null, head: rows[5], first: rows[0], pruned: null })
      expect(listing.ends).toEqual({ start: { sequence: 0, hash: '0'.repeat(64) }, head: { sequence: 6, hash: rows[5]!.hash } })
      expect(await log(store).list('acc_none', { limit: 10 })).toEqual({
        ends: null,
        records: [],
        stray: null,
        head: null,
        first: null,
        pruned: null,
      })
      // Every row from a sequence on, inclusive.
      expect((await log(store).records('acc_1', { from: 3, limit: 2 })).map((record) => record.sequence)).toEqual([3, 4])
      expect(await log(store).ends('acc_none')).toBeNull()
    })

    it('stores each record whole: encoding version 2, the key id, the target id, signed under the key', async () => {
      const { store } = fixture()
      await log(store).append(entry('user_passcode.revealed', { target: { type: 'user', id: 'u_7' } }))
      await log(store).append(entry('account.accepted_passcodes_changed'))
      const [user, account] = await chain(store)
      expect(user).toMatchObject({ sequence: 1, version: 2, keyId: 'conformance', targetId: 'u_7', previousHash: '0'.repeat(64) })
      expect(account).toMatchObject({ sequence: 2, targetId: null, previousHash: user!.hash })
      for (const record of [user!, account!]) expect(AUDIT_KEYS.expectedHash(record)).toBe(record.hash)
    })

    it('filters by the user who acted, in either role, never the system', async () => {
      const { store } = fixture()
      await log(store).append(entry('passcode.created', { actor: { type: 'user', userId: 'u_ana', role: 'admin' } }))
      await log(store).append(entry('passcode.created', { actor: { type: 'user', userId: 'u_bo', role: 'admin' } }))
      await log(store).append(entry('user_passcode.revealed', { actor: { type: 'user', userId: 'u_ana', role: 'member' } }))
      await log(store).append(entry('notification.sent', { actor: { type: 'system' } }))
      // A user ID that JSON must escape is matched as it was written.
      await log(store).append(entry('passcode.created', { actor: { type: 'user', userId: 'u_"quoted"\\', role: 'admin' } }))
      await log(store).append(entry('passcode.created', { accountId: 'acc_2', actor: { type: 'user', userId: 'u_ana', role: 'admin' } }))
      expect(await page(store, 'acc_1', { limit: 10, actorUserId: 'u_ana' })).toEqual([3, 1])
      expect(await page(store, 'acc_1', { limit: 10, actorUserId: 'u_"quoted"\\' })).toEqual([5])
      expect(await page(store, 'acc_1', { limit: 10, actorUserId: 'u_ana', actions: ['passcode.created'] })).toEqual([1])
      expect(await page(store, 'acc_1', { limit: 10, actorUserId: 'system' })).toEqual([])
    })

    it('prunes the records older than the cut-off, moves the chain start past them and appends a record that says so', async () => {
      const { store } = fixture()
      // Text outside ASCII, quotes and a line separator hash the same in every store.
      const target = { type: 'passcode', id: 'pc_1', name: 'Zürich 🚀 "sync"\u2028\\' } as const
      for (let i = 0; i < 5; i++) await log(store).append(entry('user_passcode.revealed', { at: NOW + i, target }))
      await log(store).append(entry('user_passcode.revealed', { accountId: 'acc_2', at: NOW + 10 }))
      const before = await chain(store)
      const prune = (cutOff: number, at: number) => log(store).prune(cutOff, { at, signer: AUDIT_KEYS.signer })
      expect(await prune(NOW + 2, NOW + 100)).toBe(2)
      const kept = await chain(store)
      expect(kept.map((r) => r.sequence)).toEqual([3, 4, 5, 6])
      expect(kept[3]).toMatchObject({
        sequence: 6,
        at: NOW + 100,
        action: 'audit.pruned',
        actor: { type: 'system' },
        target: { type: 'account' },
        changes: {
          removed: { before: null, after: 2 },
          through: { before: 0, after: 2 },
          lastHash: { before: '0'.repeat(64), after: before[1]!.hash },
        },
        previousHash: before[4]!.hash,
      })
      expect(await log(store).ends('acc_1')).toEqual({ start: { sequence: 2, hash: before[1]!.hash }, head: { sequence: 6, hash: kept[3]!.hash } })
      expect(await verify(store)).toMatchObject({ ok: true, records: 4, unkeyed: 0 })
      const listing = await log(store).list('acc_1', { limit: 10 })
      expect(listing).toMatchObject({ first: kept[0], head: kept[3], pruned: kept[3], stray: null })
      expect(vouchAuditPage(listing, AUDIT_KEYS, { after: undefined, limit: 10 })).toBeUndefined()
      expect(await prune(NOW + 2, NOW + 200)).toBe(0)
      await log(store).append(entry('user_passcode.revealed', { at: NOW + 20 }))
      expect(await verify(store)).toMatchObject({ ok: true, records: 5, head: { sequence: 7 } })
      expect(await verify(store, 'acc_2')).toMatchObject({ ok: true, records: 1 })
      // Everything old goes (acc_2's record too), the prune record of before included: the new one accounts for the start.
      expect(await prune(NOW + 150, NOW + 300)).toBe(6)
      expect((await chain(store)).map((r) => [r.sequence, r.action])).toEqual([[8, 'audit.pruned']])
      expect(await verify(store)).toMatchObject({ ok: true, records: 1, head: { sequence: 8 } })
      expect(await verify(store, 'acc_2')).toMatchObject({ ok: true, records: 1, head: { sequence: 2 } })
    })

    it('SPEC 5.44: a chain lost whole (no head row, no row) is a break while the account keeps what a write made, and an empty chain otherwise', async () => {
      const { store } = fixture()
      const clock = manualClock(NOW)
      const admin = { userId: 'u_admin', role: 'admin' } as const
      const options = { clock, encryptionKeys: [{ id: 'k1', key: TEST_KEY }], webhooks: { sender: recordingSender(() => clock.ms).sender } }
      const auth = createPasscodeAuth({ store, ...options })
      // One account per kind of data only an audited write makes; the user passcode revoked (its row stays).
      await auth.passcodes.create(admin, 'acc_passcode', { name: 'One', expiry: 30 })
      await auth.userPasscodes.grant(admin, 'acc_user', 'u_1', { validity: { type: 'finite', days: 30 } })
      await auth.userPasscodes.revoke(admin, 'acc_user', 'u_1')
      await auth.accounts.setAcceptedPasscodes(admin, 'acc_setting', 'both')
      await auth.accounts.setPolicy(admin, 'acc_policy', { maxLifetimeDays: 90, requireExpiry: true, requireDescription: false })
      await auth.webhooks.create(admin, 'acc_webhook', { url: 'https://hooks.example.com/in', events: 'all' })
      const accounts = ['acc_passcode', 'acc_user', 'acc_setting', 'acc_policy', 'acc_webhook']
      for (const account of accounts) expect(await auth.audit.verify(account)).toMatchObject({ ok: true })

      // The same store, its audit log read as after every row and the head row of each account were deleted.
      const audit = log(store)
      const lost = createPasscodeAuth({ store: { ...store, audit: { ...audit, ends: async () => null, records: async () => [] } }, ...options })
      for (const account of accounts) {
        expect(await lost.audit.verify(account)).toEqual({ ok: false, at: 1, reason: 'head_missing' })
        await expect(async () => {
          for await (const _line of lost.audit.export(admin, account)) throw new Error('a line of a lost chain')
        }).rejects.toMatchObject({ code: 'ERR_AUDIT_BROKEN' })
      }
      // An account no write ever touched has an empty chain; an anchor past it still says the tail went.
      const empty = { ok: true, records: 0, unkeyed: 0, head: { sequence: 0, hash: GENESIS_HASH } }
      expect(await lost.audit.verify('acc_never')).toEqual(empty)
      expect(await auth.audit.verify('acc_never')).toEqual(empty)
      expect(await lost.audit.verify('acc_never', { anchor: { sequence: 3, hash: 'a'.repeat(64) } })).toEqual({
        ok: false,
        at: 1,
        reason: 'tail_removed',
      })
      await Promise.all([auth.close(), lost.close()])
    })
  })
}
