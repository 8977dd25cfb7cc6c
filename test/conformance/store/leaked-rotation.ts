import { randomUUID } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import type { AuditEntry } from '../../../src/core/audit'
import type { PasscodeStore } from '../../../src/ports/passcode-store'
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

/** A leak report of `hash` for the account passcode `key`, answered by disabling it. */
const reportLeak = (store: PasscodeStore, key: string, hash: string, at = NOW) => {
  const report = {
    id: randomUUID(),
    kind: 'account',
    accountId: 'acc_1',
    key,
    hash,
    action: 'disable',
    at,
    url: null,
    source: 'github',
    token: randomUUID(),
    claimedUntil: at + MINUTE_MS,
  } as const
  return store.reportLeak!(report, audited(report, 'passcode.leak_reported'))
}

/** A rotation of `id` asked for an hour's overlap. */
const rotateWithOverlap = (store: PasscodeStore, id: string) =>
  store.rotateAccountPasscode(
    'acc_1',
    id,
    { hash: fakeHash(), hint: 'psc_…New1', previousHashEndsAt: NOW + 60 * MINUTE_MS, updatedAt: NOW + 1 },
    signed(rotatedEntry(id)),
  )

/** An admin's enable of `id` (SPEC §5.38), which closes its leak mark. */
const enable = (store: PasscodeStore, id: string) =>
  store.updateAccountPasscode('acc_1', id, { disabledAt: null, updatedAt: NOW + 1 }, audited('acc_1'))

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
      expect(await reportLeak(store, leaked.id, leaked.hash)).not.toBeNull()

      const rotate = (id: string) => rotateWithOverlap(store, id)
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
    it('keeps the value leaked through an enable: a rotation asked for an overlap then keeps no previous value either', async () => {
      const { store } = fixture()
      const leaked = accountPasscode()
      await store.createAccountPasscode(leaked, 100, audited(leaked, 'passcode.created'))
      expect(await reportLeak(store, leaked.id, leaked.hash)).not.toBeNull()
      expect(await store.getAccountPasscode('acc_1', leaked.id)).toMatchObject({ valueLeaked: true, disabledAt: NOW })
      // Enable and edits close the mark or leave it, and never the flag: the value is still public.
      await enable(store, leaked.id)
      await store.updateAccountPasscode('acc_1', leaked.id, { description: 'back', updatedAt: NOW + 1 }, audited('acc_1'))
      expect(await store.listLeakMarks!('acc_1')).toEqual([])
      expect(await store.getAccountPasscode('acc_1', leaked.id)).toMatchObject({ valueLeaked: true, disabledAt: null })

      const rotated = await rotateWithOverlap(store, leaked.id)
      expect(rotated).toMatchObject({ previousHash: null, previousHashEndsAt: null })
      expect(rotated?.valueLeaked ?? false).toBe(false)
      expect(await store.findCredentialByHash(leaked.hash)).toBeNull()
      // The new value is not leaked: the next rotation keeps it for the overlap asked.
      const again = await rotateWithOverlap(store, leaked.id)
      expect(again).toMatchObject({ previousHash: rotated!.hash, previousHashEndsAt: NOW + 60 * MINUTE_MS })
    })

    it('marks the value leaked when the report matches the current value of a passcode disabled already, and not when it matches only the previous one', async () => {
      const { store } = fixture()
      const disabled = accountPasscode()
      const rotating = accountPasscode()
      await store.createAccountPasscode(disabled, 100, audited(disabled, 'passcode.created'))
      await store.createAccountPasscode(rotating, 100, audited(rotating, 'passcode.created'))
      await store.updateAccountPasscode('acc_1', disabled.id, { disabledAt: NOW - 1, updatedAt: NOW - 1 }, audited('acc_1'))
      expect(await reportLeak(store, disabled.id, disabled.hash)).not.toBeNull()
      // Disabled before: the report leaves when and its edit time as they were.
      expect(await store.getAccountPasscode('acc_1', disabled.id)).toMatchObject({ valueLeaked: true, disabledAt: NOW - 1, updatedAt: NOW - 1 })

      // The previous value leaked: the current one is not public, and after the enable it may overlap.
      const rotated = await rotateWithOverlap(store, rotating.id)
      expect(await reportLeak(store, rotating.id, rotating.hash)).not.toBeNull()
      expect((await store.getAccountPasscode('acc_1', rotating.id))?.valueLeaked ?? false).toBe(false)
      await enable(store, rotating.id)
      expect(await rotateWithOverlap(store, rotating.id)).toMatchObject({ previousHash: rotated!.hash, previousHashEndsAt: NOW + 60 * MINUTE_MS })
    })
  })
}
