import type { GrantResult, Invalidation, UserPasscodesPart } from '../../ports/passcode-store'
import type { UserPasscodeRecord } from '../../core/passcode-records'
import { resetUserPasscodeEntry } from '../../core/audit-fields'
import { toUserPasscode, userPasscodeInput } from './rows'
import { one, run, type StoreContext } from './store-context'

/** A user passcode per user of an account: the grant, reset and revoke with their records, and the reads. */
export function postgresUserPasscodes(context: StoreContext): UserPasscodesPart {
  const { database, sql, audit, channel, hub, write } = context
  return {
    grantUserPasscode(record, now, entry) {
      const owner = { type: 'user_passcode', accountId: record.accountId, userId: record.userId } as const
      return write<GrantResult>(entry, async (tx) => {
        const current = one(
          await tx.query(sql.lockUserPasscode.text, sql.lockUserPasscode.values({ accountId: record.accountId, userId: record.userId })),
        )
        if (current !== null && current.revoked_at === null && Number(current.expires_at) > now) {
          return { result: { ok: false, reason: 'already_granted' } as const }
        }
        // The grant locks the chain head after it (…AndLock).
        const statement = current === null ? audit.sql.insertUserPasscodeAndLock : audit.sql.replaceUserPasscodeAndLock
        const row = one(await run(tx)(statement.text, statement.values(userPasscodeInput(record))))
        // No row: a concurrent grant inserted first, and its passcode is live.
        if (row === null) return { result: { ok: false, reason: 'already_granted' } as const }
        const change = current === null ? { locked: row } : { invalidation: owner, locked: row }
        return { result: { ok: true, record: toUserPasscode(row) } as const, change }
      })
    },

    async resetUserPasscode(accountId, userId, fields, entry) {
      const { hash, ciphertext, hint, grantedAt, expiresAt } = fields
      const input = { accountId, userId, hash, ciphertext, hint, grantedAt, expiresAt, pepperId: fields.pepperId ?? null }
      return write(entry, async (tx) => {
        // The expiry before comes from the row it locks and resets (resetAndLock).
        const row = one(await run(tx)(audit.sql.resetAndLock.text, audit.sql.resetAndLock.values(input)))
        if (row === null) return { result: null }
        const after = toUserPasscode(row)
        return {
          result: after,
          change: {
            invalidation: { type: 'user_passcode', accountId, userId },
            locked: row,
            record: (given) => resetUserPasscodeEntry(given, { expiresAt: Number(row.prior_expires_at) }, after),
          },
        }
      })
    },

    async revokeUserPasscode(accountId, userId, revokedAt, entry) {
      const invalidation: Invalidation = { type: 'user_passcode', accountId, userId }
      const input = { accountId, userId, revokedAt }
      // The revoke, the record after the head read just before and the NOTIFY in one statement.
      const placed = await audit.appendWith(audit.sql.revokeUserPasscodeAppending, input, entry, {
        channel,
        payload: JSON.stringify(invalidation),
      })
      if (placed !== undefined) {
        const row = one(placed.rows)
        if (row !== null) hub.committed(invalidation)
        return row === null ? null : toUserPasscode(row)
      }
      // The head moved meanwhile, or the account has none yet: the revoke locks it after it.
      return write(entry, async (tx) => {
        const row = one(await run(tx)(audit.sql.revokeUserPasscodeAndLock.text, audit.sql.revokeUserPasscodeAndLock.values(input)))
        return row === null ? { result: null } : { result: toUserPasscode(row), change: { invalidation, locked: row } }
      })
    },

    async getUserPasscode(accountId, userId) {
      const row = one(await database.query(sql.getUserPasscode.text, sql.getUserPasscode.values({ accountId, userId })))
      return row === null ? null : toUserPasscode(row)
    },

    async listUserPasscodes(accountId): Promise<UserPasscodeRecord[]> {
      return (await database.query(sql.listUserPasscodes.text, sql.listUserPasscodes.values({ accountId }))).map(toUserPasscode)
    },
  }
}
