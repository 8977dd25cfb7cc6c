import { randomUUID } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import type { AuditEntry } from '../../../src/core/audit'
import { NOW, accountPasscode, fakeHash, signed, type StoreFixture, audited } from './fixtures'

const MINUTE_MS = 60_000

const rotatedEntry = (id: string): AuditEntry => ({
  accountId: 'acc_1',
  at: NOW,
  actor: { type: 'user', userId: 'u_admin', role: 'admin' },
  action: 'passcode.rotated',
  target: { type: 'passcode', id, name: 'ignored: the row names it' },
  changes: { previousValueEndsAt: { before: null, after: NOW + 60 * MINUTE_MS } },
  requestId: null,
  clientAddress: null,
})

/**
 * SPEC §5.45 in the store: a rotation of a passcode with an open leak mark keeps no
 * previous value, whatever overlap it is asked for (the service refuses one before; this
 * holds when a leak is reported between its check and the write), and closes the mark.
 */
export function leakedRotationCases(fixture: () => StoreFixture): void {
  describe('SPEC 5.45 a leaked value gets no overlap', () => {
    it('a rotation asked for an overlap keeps no previous value of a passcode with an open leak mark, and its record shows none', async () => {
      const { store } = fixture()
      const leaked = accountPasscode()
      const clean = accountPasscode()
      await store.createAccountPasscode(leaked, 100, audited(leaked, 'passcode.created'))
      await store.createAccountPasscode(clean, 100, audited(clean, 'passcode.created'))
      const report = {
        id: randomUUID(),
        kind: 'account',
        accountId: 'acc_1',
        key: leaked.id,
        hash: leaked.hash,
        action: 'disable',
        at: NOW,
        url: null,
        source: 'github',
        token: randomUUID(),
        claimedUntil: NOW + MINUTE_MS,
      } as const
      const mark = await store.reportLeak!(report, audited(report, 'passcode.leak_reported'))
      expect(mark).not.toBeNull()

      const rotation = () => ({ hash: fakeHash(), hint: 'psc_…New1', previousHashEndsAt: NOW + 60 * MINUTE_MS, updatedAt: NOW + 1 })
      const rotate = (id: string) => store.rotateAccountPasscode('acc_1', id, rotation(), signed(rotatedEntry(id)))
      const rotated = await rotate(leaked.id)
      expect(rotated).toMatchObject({ previousHash: null, previousHashEndsAt: null })
      expect(await store.findCredentialByHash(leaked.hash)).toBeNull()
      expect(await store.listLeakMarks!('acc_1')).toEqual([])
      // A passcode without a mark keeps its previous value as asked.
      expect(await rotate(clean.id)).toMatchObject({ previousHash: clean.hash, previousHashEndsAt: NOW + 60 * MINUTE_MS })
      const records = (await store.audit?.records('acc_1', { limit: 10 })) ?? []
      // The record shows the overlap as stored: none for the leaked one.
      const rotations = records.filter((record) => record.action === 'passcode.rotated')
      expect(rotations.map((record) => ['id' in record.target ? record.target.id : null, record.changes.previousValueEndsAt?.after])).toEqual([
        [leaked.id, null],
        [clean.id, NOW + 60 * MINUTE_MS],
      ])
    })
  })
}
