import { randomUUID } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import type { AuditEntry } from '../../../src/core/audit'
import type { LeakReport, PasscodeStore } from '../../../src/ports/passcode-store'
import { NOW, accountPasscode, eventually, fakeHash, signed, subscribeReady, userPasscode, type StoreFixture, audited, caseRecords } from './fixtures'

const LEASE_MS = 60_000

const report = (overrides: Partial<LeakReport> & Pick<LeakReport, 'key' | 'hash'>): LeakReport => ({
  id: randomUUID(),
  kind: 'account',
  accountId: 'acc_1',
  action: 'disable',
  at: NOW,
  url: 'https://github.com/o/r/blob/main/.env',
  source: 'github',
  token: randomUUID(),
  claimedUntil: NOW + LEASE_MS,
  ...overrides,
})

const leakEntry = (target: AuditEntry['target']): AuditEntry => ({
  accountId: 'acc_1',
  at: NOW,
  actor: { type: 'system' },
  action: 'passcode.leak_reported',
  target,
  changes: { source: { before: null, after: 'github' } },
  requestId: null,
  clientAddress: null,
})

/** The leak methods, which a conforming store implements. */
function leaks(store: PasscodeStore) {
  const { reportLeak, listLeakMarks, claimLeakNotices, completeLeakNotice, releaseLeakNotice } = store
  if (!reportLeak || !listLeakMarks || !claimLeakNotices || !completeLeakNotice || !releaseLeakNotice)
    throw new Error('the store keeps no leak marks')
  return {
    report: reportLeak.bind(store),
    list: listLeakMarks.bind(store),
    claim: (now: number, limit = 100) => claimLeakNotices.call(store, { now, leaseMs: LEASE_MS, limit, token: randomUUID() }),
    complete: completeLeakNotice.bind(store),
    release: releaseLeakNotice.bind(store),
  }
}

const records = async (store: PasscodeStore) => caseRecords((await store.audit?.records('acc_1', { limit: 100 })) ?? [])

/** Three account passcodes created in acc_1, each reported leaked (one open mark each), a moment apart. */
async function threeReported(store: PasscodeStore) {
  const created = [accountPasscode(), accountPasscode(), accountPasscode()] as const
  for (const [i, record] of created.entries()) {
    await store.createAccountPasscode(record, 100, audited(record, 'passcode.created'))
    await leaks(store).report(report({ key: record.id, hash: record.hash, at: NOW - 10 + i }), audited('acc_1', 'passcode.leak_reported'))
  }
  return created
}

/** SPEC §5.42: the leak mark, its one winner under concurrent reports, and its email's claim. */
export function leakMarkCases(fixture: () => StoreFixture): void {
  describe('leak marks', () => {
    it('disables an account passcode with its mark and its audit record in one write; a second report changes nothing', async () => {
      const { store } = fixture()
      const api = leaks(store)
      const record = accountPasscode()
      await store.createAccountPasscode(record, 100, audited(record, 'passcode.created'))
      const first = report({ key: record.id, hash: record.hash })
      const mark = await api.report(first, signed(leakEntry({ type: 'passcode', id: record.id, name: record.name })))
      expect(mark).toEqual({
        id: first.id,
        kind: 'account',
        accountId: 'acc_1',
        key: record.id,
        reportedAt: NOW,
        url: 'https://github.com/o/r/blob/main/.env',
        source: 'github',
        action: 'disabled',
        name: record.name,
        hint: record.hint,
        notifiedAt: null,
      })
      expect(await store.getAccountPasscode('acc_1', record.id)).toEqual({ ...record, disabledAt: NOW, updatedAt: NOW, valueLeaked: true })
      expect(await api.list('acc_1')).toEqual([mark])
      expect(await api.list('acc_2')).toEqual([])

      const after = await store.getAccountPasscode('acc_1', record.id)
      expect(await api.report(report({ key: record.id, hash: record.hash, at: NOW + 5 }), signed(leakEntry({ type: 'account' })))).toBeNull()
      expect(await store.getAccountPasscode('acc_1', record.id)).toEqual(after)
      expect((await records(store)).map((entry) => entry.action)).toEqual(['passcode.leak_reported'])
    })

    it('keeps an earlier disable instant, and acts on no passcode whose hash is neither its current nor its previous one', async () => {
      const { store } = fixture()
      const api = leaks(store)
      const disabled = accountPasscode({ disabledAt: NOW - 10 })
      await store.createAccountPasscode(disabled, 100, audited(disabled, 'passcode.created'))
      expect(await api.report(report({ key: disabled.id, hash: disabled.hash }), audited('acc_1', 'passcode.leak_reported'))).toMatchObject({
        action: 'disabled',
      })
      expect(await store.getAccountPasscode('acc_1', disabled.id)).toEqual({ ...disabled, valueLeaked: true })

      const other = accountPasscode()
      await store.createAccountPasscode(other, 100, audited(other, 'passcode.created'))
      expect(await api.report(report({ key: other.id, hash: fakeHash() }), audited('acc_1', 'passcode.leak_reported'))).toBeNull()
      expect(await api.report(report({ key: 'no-such-id', hash: other.hash }), audited('acc_1', 'passcode.leak_reported'))).toBeNull()
      expect(await api.report(report({ key: other.id, hash: other.hash, accountId: 'acc_2' }), audited('acc_2', 'passcode.leak_reported'))).toBeNull()
      await store.rotateAccountPasscode(
        'acc_1',
        other.id,
        { hash: fakeHash(), hint: 'psc_…New1', previousHashEndsAt: NOW + 60_000, updatedAt: NOW },
        audited('acc_1', 'passcode.rotated'),
      )
      expect(await api.report(report({ key: other.id, hash: other.hash }), audited('acc_1', 'passcode.leak_reported'))).toMatchObject({
        action: 'disabled',
      })
      // Its previous value leaked, not its current one (SPEC §5.45).
      expect(await store.getAccountPasscode('acc_1', other.id)).toMatchObject({ disabledAt: NOW })
      expect((await store.getAccountPasscode('acc_1', other.id))?.valueLeaked ?? false).toBe(false)
    })

    it('closes the mark when an admin enables, rotates or deletes the passcode, and not on another edit', async () => {
      const { store } = fixture()
      const api = leaks(store)
      const [a, b, c] = await threeReported(store)
      await store.updateAccountPasscode(
        'acc_1',
        a.id,
        { name: 'Renamed', nameKey: 'renamed', description: 'x', updatedAt: NOW + 1 },
        audited('acc_1'),
      )
      await store.updateAccountPasscode('acc_1', a.id, { disabledAt: NOW + 2, updatedAt: NOW + 2 }, audited('acc_1'))
      expect((await api.list('acc_1')).map((mark) => mark.key)).toEqual([a.id, b.id, c.id])
      await store.updateAccountPasscode('acc_1', a.id, { disabledAt: null, updatedAt: NOW + 3 }, audited('acc_1'))
      await store.rotateAccountPasscode(
        'acc_1',
        b.id,
        { hash: fakeHash(), hint: 'psc_…New1', previousHashEndsAt: null, updatedAt: NOW + 3 },
        audited('acc_1', 'passcode.rotated'),
      )
      expect((await api.list('acc_1')).map((mark) => mark.key)).toEqual([c.id])
      await store.deleteAccountPasscode('acc_1', c.id, audited('acc_1', 'passcode.deleted'))
      expect(await api.list('acc_1')).toEqual([])
      // Closed, the mark no longer stops a new report: the enabled passcode is disabled and marked again.
      expect(await api.report(report({ key: a.id, hash: a.hash, at: NOW + 4 }), audited('acc_1', 'passcode.leak_reported'))).toMatchObject({
        key: a.id,
        reportedAt: NOW + 4,
      })
      expect((await store.getAccountPasscode('acc_1', a.id))?.disabledAt).toBe(NOW + 4)
    })

    it("records the target's name and the disable as the row had them, not as the report's earlier lookup saw them", async () => {
      const { store } = fixture()
      const api = leaks(store)
      const renamed = accountPasscode({ name: 'Before' })
      const enabled = accountPasscode({ name: 'Enabled' })
      const gone = accountPasscode({ name: 'Gone' })
      for (const record of [renamed, enabled, gone]) await store.createAccountPasscode(record, 100, audited(record, 'passcode.created'))
      // After the report's lookup, the passcodes were renamed and one disabled.
      await store.updateAccountPasscode('acc_1', renamed.id, { name: 'After', nameKey: 'after', disabledAt: NOW, updatedAt: NOW }, audited('acc_1'))
      await store.updateAccountPasscode('acc_1', gone.id, { name: 'Gone later', nameKey: 'gone later', updatedAt: NOW }, audited('acc_1'))
      const disabled = { disabled: { before: false, after: true } }
      const stale = (record: typeof renamed, changes = {}) =>
        signed({
          ...leakEntry({ type: 'passcode', id: record.id, name: record.name }),
          changes: { ...leakEntry({ type: 'account' }).changes, ...changes },
        })
      expect(await api.report(report({ key: renamed.id, hash: renamed.hash }), stale(renamed, disabled))).not.toBeNull()
      expect(await api.report(report({ key: enabled.id, hash: enabled.hash }), stale(enabled))).not.toBeNull()
      expect(await api.report(report({ key: gone.id, hash: gone.hash, action: 'delete' }), stale(gone, disabled))).not.toBeNull()

      const [first, second, third] = await records(store)
      expect(first!.target).toEqual({ type: 'passcode', id: renamed.id, name: 'After' })
      expect(first!.changes).toEqual({ source: { before: null, after: 'github' } })
      expect(second!.changes).toEqual({ source: { before: null, after: 'github' }, ...disabled })
      expect(third!.target).toEqual({ type: 'passcode', id: gone.id, name: 'Gone later' })
      expect(third!.changes).toEqual({ source: { before: null, after: 'github' } })
    })

    it('closes the mark on an enable, a rotation and a delete that carry their audit records, as the service writes them', async () => {
      const { store } = fixture()
      const api = leaks(store)
      const [a, b, c] = await threeReported(store)
      const edit = (action: AuditEntry['action'], record: typeof a) =>
        signed({
          ...leakEntry({ type: 'passcode', id: record.id, name: record.name }),
          actor: { type: 'user', userId: 'u_admin', role: 'admin' },
          action,
          changes: {},
        })
      await store.updateAccountPasscode('acc_1', a.id, { description: 'kept open', updatedAt: NOW + 1 }, edit('passcode.updated', a))
      expect(await api.list('acc_1')).toHaveLength(3)
      await store.updateAccountPasscode('acc_1', a.id, { disabledAt: null, updatedAt: NOW + 2 }, edit('passcode.enabled', a))
      const rotation = { hash: fakeHash(), hint: 'psc_…New1', previousHashEndsAt: null, updatedAt: NOW + 3 }
      await store.rotateAccountPasscode('acc_1', b.id, rotation, edit('passcode.rotated', b))
      expect((await api.list('acc_1')).map((mark) => mark.key)).toEqual([c.id])
      await store.deleteAccountPasscode('acc_1', c.id, edit('passcode.deleted', c))
      expect(await api.list('acc_1')).toEqual([])
      expect((await records(store)).map((entry) => entry.action)).toEqual([
        'passcode.updated',
        'passcode.enabled',
        'passcode.rotated',
        'passcode.deleted',
      ])
    })

    it("deletes with action 'delete' (a closed mark whose email still goes); a second report finds nothing", async () => {
      const { store } = fixture()
      const api = leaks(store)
      const record = accountPasscode()
      await store.createAccountPasscode(record, 100, audited(record, 'passcode.created'))
      const mark = await api.report(
        report({ key: record.id, hash: record.hash, action: 'delete', claimedUntil: NOW }),
        audited('acc_1', 'passcode.leak_reported'),
      )
      expect(mark).toMatchObject({ action: 'deleted', name: record.name, hint: record.hint })
      expect(await store.getAccountPasscode('acc_1', record.id)).toBeNull()
      expect(await store.findCredentialByHash(record.hash)).toBeNull()
      expect(await api.list('acc_1')).toEqual([])
      expect(await api.report(report({ key: record.id, hash: record.hash, action: 'delete' }), audited('acc_1', 'passcode.leak_reported'))).toBeNull()
      expect(await api.claim(NOW)).toMatchObject([{ id: mark!.id, action: 'deleted' }])
    })

    it('revokes a user passcode with an open mark, closed by a new grant or a reset', async () => {
      const { store } = fixture()
      const api = leaks(store)
      const granted = userPasscode()
      await store.grantUserPasscode(granted, NOW, audited(granted, 'user_passcode.granted'))
      const mark = await api.report(
        report({ kind: 'user', action: 'revoke', key: 'u_1', hash: granted.hash }),
        signed(leakEntry({ type: 'user', id: 'u_1' })),
      )
      expect(mark).toMatchObject({ kind: 'user', key: 'u_1', action: 'revoked', name: null, hint: null })
      expect(await store.getUserPasscode('acc_1', 'u_1')).toMatchObject({ revokedAt: NOW })
      expect(
        await api.report(report({ kind: 'user', action: 'revoke', key: 'u_1', hash: granted.hash }), audited('acc_1', 'passcode.leak_reported')),
      ).toBeNull()
      expect(await api.list('acc_1')).toEqual([mark])
      const again = userPasscode()
      await store.grantUserPasscode(again, NOW + 1, audited(again, 'user_passcode.granted'))
      expect(await api.list('acc_1')).toEqual([])

      await api.report(
        report({ kind: 'user', action: 'revoke', key: 'u_1', hash: again.hash, at: NOW + 2 }),
        audited('acc_1', 'passcode.leak_reported'),
      )
      expect(await api.list('acc_1')).toHaveLength(1)
      const third = userPasscode()
      await store.grantUserPasscode(third, NOW + 3, audited(third, 'user_passcode.granted'))
      await api.report(
        report({ kind: 'user', action: 'revoke', key: 'u_1', hash: third.hash, at: NOW + 4 }),
        audited('acc_1', 'passcode.leak_reported'),
      )
      expect((await records(store)).map((entry) => entry.action)).toEqual(['passcode.leak_reported'])
    })

    it('publishes the change to another instance within 1 second', async () => {
      const { store, peer } = fixture()
      const other = await peer()
      const received = await subscribeReady(other, store)
      const record = accountPasscode()
      await store.createAccountPasscode(record, 100, audited(record, 'passcode.created'))
      await leaks(store).report(report({ key: record.id, hash: record.hash }), audited('acc_1', 'passcode.leak_reported'))
      await eventually(() => expect(received).toContainEqual({ type: 'account_passcode', accountId: 'acc_1', passcodeId: record.id }), 1_000)
    })

    it('lets exactly one of 12 concurrent reports of one passcode on 3 instances act, with one mark and one record', async () => {
      const { store, peer } = fixture()
      const stores = [store, await peer(), await peer()]
      const record = accountPasscode()
      const user = userPasscode()
      await store.createAccountPasscode(record, 100, audited(record, 'passcode.created'))
      await store.grantUserPasscode(user, NOW, audited(user, 'user_passcode.granted'))
      const results = await Promise.all(
        Array.from({ length: 24 }, (_, i) =>
          leaks(stores[i % 3]!).report(
            i % 2 === 0
              ? report({ key: record.id, hash: record.hash, at: NOW + i })
              : report({ kind: 'user', action: 'revoke', key: 'u_1', hash: user.hash, at: NOW + i }),
            signed(leakEntry({ type: 'account' })),
          ),
        ),
      )
      const marks = results.filter((mark) => mark !== null)
      expect(marks.map((mark) => mark.kind).sort()).toEqual(['account', 'user'])
      expect(await leaks(store).list('acc_1')).toHaveLength(2)
      expect(await records(store)).toHaveLength(2)
      expect(await leaks(store).claim(NOW + LEASE_MS + 100)).toHaveLength(2)
    })

    it('claims an unsent email once its reporter’s claim lapses, never twice at once, and completes or releases it', async () => {
      const { store, peer } = fixture()
      const api = leaks(store)
      const other = leaks(await peer())
      const record = accountPasscode()
      await store.createAccountPasscode(record, 100, audited(record, 'passcode.created'))
      const mark = await api.report(report({ key: record.id, hash: record.hash }), audited('acc_1', 'passcode.leak_reported'))
      // The reporter holds the claim while it sends.
      expect(await api.claim(NOW + LEASE_MS - 1)).toEqual([])
      const [claims, others] = await Promise.all([api.claim(NOW + LEASE_MS), other.claim(NOW + LEASE_MS)])
      expect([...claims, ...others].map((claim) => claim.id)).toEqual([mark!.id])
      const claim = [...claims, ...others][0]!
      await api.release(claim)
      const [again] = await other.claim(NOW + LEASE_MS)
      expect(again).toMatchObject({ id: mark!.id, notifiedAt: null })
      expect(await api.complete(claim, NOW + LEASE_MS, signed(leakEntry({ type: 'account' })))).toBe(false)
      const sent = signed({ ...leakEntry({ type: 'account' }), action: 'notification.sent' as const })
      expect(await other.complete(again!, NOW + LEASE_MS + 1, sent)).toBe(true)
      expect(await other.complete(again!, NOW + LEASE_MS + 2, audited(again!, 'notification.sent'))).toBe(false)
      expect(await api.claim(NOW + 10 * LEASE_MS)).toEqual([])
      expect(await api.list('acc_1')).toEqual([{ ...mark, notifiedAt: NOW + LEASE_MS + 1 }])
      expect((await records(store)).map((entry) => entry.action)).toEqual(['notification.sent'])
    })
  })
}
