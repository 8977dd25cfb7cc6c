import { describe, expect, it } from 'vitest'
import type { AccountPasscodeRecord, UserPasscodeRecord } from '../../../src/core/passcode-records'
import { NOW, accountPasscode, fakeHash, userPasscode, type StoreFixture, audited } from './fixtures'

const ACCOUNTS = 80
const PER_ACCOUNT = 100
const USERS = 2_000

/** 8 000 account passcodes (80 accounts at the cap) and 2 000 user passcodes. */
async function seedTenThousand(fixture: StoreFixture): Promise<{ accounts: AccountPasscodeRecord[]; users: UserPasscodeRecord[] }> {
  const accounts = Array.from({ length: ACCOUNTS * PER_ACCOUNT }, (_, i) =>
    accountPasscode({ accountId: `acc_${i % ACCOUNTS}`, name: `Seeded ${i}` }),
  )
  const users = Array.from({ length: USERS }, (_, i) => userPasscode({ accountId: `acc_${i % ACCOUNTS}`, userId: `u_${i}` }))
  if (fixture.seed !== undefined) {
    await fixture.seed(accounts, users)
  } else {
    for (const record of accounts) await fixture.store.createAccountPasscode(record, PER_ACCOUNT, audited(record, 'passcode.created'))
    for (const record of users) await fixture.store.grantUserPasscode(record, NOW, audited(record, 'user_passcode.granted'))
  }
  return { accounts, users }
}

/** The verification lookup at 10 000 passcodes: right answers, and an index when there is a plan to show. */
export function lookupCases(fixture: () => StoreFixture, queryPlan: boolean): void {
  describe('verification lookup at 10 000 passcodes', () => {
    it('finds any passcode by its hash and nothing for an unknown hash, alone and several at once', async () => {
      const current = fixture()
      const { accounts, users } = await seedTenThousand(current)
      for (let i = 0; i < accounts.length; i += 97) {
        const record = accounts[i]!
        expect(await current.store.findCredentialByHash(record.hash)).toEqual({ kind: 'account', record, acceptedPasscodes: 'account' })
      }
      for (let i = 0; i < users.length; i += 41) {
        const record = users[i]!
        expect(await current.store.findCredentialByHash(record.hash)).toEqual({ kind: 'user', record, acceptedPasscodes: 'account' })
      }
      for (let i = 0; i < 20; i++) expect(await current.store.findCredentialByHash(fakeHash())).toBeNull()

      // Several hashes at once (one value under several peppers), as each alone, at its
      // position. Optional in the port: a store without it is read one hash at a time.
      const { store } = current
      if (store.findCredentialsByHashes === undefined) return
      const rotated = accounts[4321]!
      await store.rotateAccountPasscode(
        rotated.accountId,
        rotated.id,
        {
          hash: fakeHash(),
          hint: 'psc_…Ef56',
          previousHashEndsAt: NOW + 60_000,
          updatedAt: NOW,
        },
        audited(rotated.accountId, 'passcode.rotated'),
      )
      const hashes = [fakeHash(), accounts[1234]!.hash, users[567]!.hash, rotated.hash, fakeHash(), accounts[1234]!.hash]
      const matches = await store.findCredentialsByHashes(hashes)
      expect(matches).toHaveLength(hashes.length)
      for (const [i, hash] of hashes.entries()) expect(matches[i]).toEqual(await store.findCredentialByHash(hash))
      expect(matches.map((match) => match?.kind ?? null)).toEqual([null, 'account', 'user', 'account', null, 'account'])
      expect(await store.findCredentialsByHashes([fakeHash(), fakeHash()])).toEqual([null, null])
    })

    // A store without a query planner (memory) answers from a hash map: nothing to
    // explain, so the case is not registered for it rather than reported as skipped.
    if (queryPlan)
      it('uses the hash indexes, not a scan (EXPLAIN)', async () => {
        const current = fixture()
        expect(current.explainLookup).toBeTypeOf('function')
        const { accounts, users } = await seedTenThousand(current)
        for (const hash of [accounts[1234]!.hash, users[567]!.hash, fakeHash()]) {
          const plan = await current.explainLookup!(hash)
          expect(plan).toMatch(/Index (Only )?Scan using account_passcodes_hash_key/)
          expect(plan).toMatch(/Index (Only )?Scan using account_passcodes_previous_hash_key/)
          expect(plan).toMatch(/Index (Only )?Scan using user_passcodes_hash_key/)
          expect(plan).not.toMatch(/Seq Scan on (account|user)_passcodes/)
        }
        // Several hashes in one statement: the same probes for each.
        const plan = await current.explainLookup!([accounts[1234]!.hash, users[567]!.hash, fakeHash()])
        expect(plan).toMatch(/Index (Only )?Scan using account_passcodes_hash_key/)
        expect(plan).toMatch(/Index (Only )?Scan using account_passcodes_previous_hash_key/)
        expect(plan).toMatch(/Index (Only )?Scan using user_passcodes_hash_key/)
        expect(plan).not.toMatch(/Seq Scan on (account|user)_passcodes/)
      })
  })
}
