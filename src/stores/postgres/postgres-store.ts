import type { AccountPasscodeRecord, UserPasscodeRecord } from '../../core/passcode-records'
import type { CompletePasscodeStore, CreateResult, CredentialMatch, GrantResult, Invalidation, UpdateResult } from '../../ports/passcode-store'
import { toDatabase } from './database'
import { accountLock } from './account-lock'
import type { PostgresDatabase, Queryable, Row } from './database-interface'
import { invalidationHub } from './invalidations'
import { EDITED_COLUMNS } from './audit-statements'
import { postgresAuditLog } from './postgres-audit-log'
import type { AuditEntry } from '../../core/audit'
import {
  acceptedPasscodesEntry,
  deletedPasscodeEntry,
  editedPasscodeEntry,
  leakReportedEntry,
  policyChangedEntry,
  resetUserPasscodeEntry,
  rotatedPasscodeEntry,
} from '../../core/audit-fields'
import type { AuditAppend } from '../../ports/audit-log'
import { notificationClaims } from './notification-claims'
import { resolvePostgresOptions, type PostgresStoreOptions } from './options'
import {
  accountPasscodeInput,
  toAccepted,
  toAccountPasscode,
  toLeakMark,
  toStoredUsageCount,
  toUserPasscode,
  usageCountParams,
  usageParams,
  userPasscodeInput,
} from './rows'
import { editInput } from './statement-columns'
import { NAME_INDEX, statements } from './statements'
import { noticeParams, policyParams, policyStatements, toPolicy, toPolicyNoticeClaim } from './policy-statements'
import { postgresWebhooks } from './webhook-store'
import { postgresLimits } from './limit-store'

/**
 * A `PasscodeStore` over PostgreSQL or PGlite, as {@link postgresStore} returns it.
 *
 * @example
 * ```ts
 * const store: PostgresStore = postgresStore(pool)
 * store.subscribe((invalidation) => console.log('changed', invalidation.type))
 * await store.ready() // listening for other instances' changes
 * // on shutdown, before pool.end():
 * await store.close()
 * ```
 */
export interface PostgresStore extends CompletePasscodeStore {
  subscribe(listener: (invalidation: Invalidation) => void): () => void
  /** Stops listening for invalidations. The `pg` pool, client or PGlite instance stays open: it is the host's. */
  close(): Promise<void>
  /**
   * Settles once invalidations published by other instances are being received,
   * starting to listen if no one subscribed yet. While the database is unreachable
   * the listener keeps retrying, so bound the wait if you await it at startup.
   */
  ready(): Promise<void>
}

/** A row of the verification lookup as the credential it found. */
function toCredentialMatch(row: Row): CredentialMatch {
  const acceptedPasscodes = toAccepted(row.accepted_passcodes)
  return row.kind === 'account'
    ? { kind: 'account', record: toAccountPasscode(row), acceptedPasscodes }
    : { kind: 'user', record: toUserPasscode(row), acceptedPasscodes }
}

/** The passcode as an edit found it: its row with the `prior_*` columns the edit read under its lock (audit-statements.ts, editAndLock). */
function priorPasscode(row: Row): AccountPasscodeRecord {
  return toAccountPasscode({ ...row, ...Object.fromEntries(EDITED_COLUMNS.map((column) => [column, row[`prior_${column}`]])) })
}

function isNameConflict(error: unknown): boolean {
  const { code, constraint } = (error ?? {}) as { code?: unknown; constraint?: unknown }
  return code === '23505' && constraint === NAME_INDEX
}

/**
 * The SQL store: one schema and one SQL dialect for a `pg` Pool or Client (many
 * instances sharing a server) and for PGlite (embedded). Run {@link migrate} first.
 * The cap and name checks of a create run under a row lock on the account, backed by
 * a unique index; verification is one indexed read by hash; each delete, reset,
 * revoke, rotation, rename, expiry or binding edit, disable, enable and setting change is published with `NOTIFY` in its
 * own transaction, so other instances drop the credential from their caches. Driver
 * errors are thrown as they are; the service turns them into `StorageError` (503).
 *
 * @param db - a `pg` Pool (recommended for servers) or Client, or a PGlite instance
 * @param options - see {@link PostgresStoreOptions}
 * @throws ConfigurationError for a `pg` Pool without `connectionTimeoutMillis` (pg's
 * default): a connection attempt never answered (a hung load balancer) would hold a slot
 * of it for good. Create it with `connectionTimeoutMillis: 2000` and `keepAlive: true`
 * (docs/operations.md).
 * @example
 * ```ts
 * import { PGlite } from '@electric-sql/pglite'
 * import { createPasscodeAuth } from 'passcode-auth'
 * import { migrate, postgresStore } from 'passcode-auth/postgres'
 *
 * const db = new PGlite('./.data/passcodes')
 * await migrate(db)
 * const auth = createPasscodeAuth({ store: postgresStore(db), partners: ['acme'] })
 * ```
 */
export function postgresStore(db: PostgresDatabase, options?: PostgresStoreOptions): PostgresStore {
  const { schema, channel, listen, listenConnectionString, proofIntervalMs } = resolvePostgresOptions(options)
  const database = toDatabase(db)
  const sql = statements(schema)
  const policySql = policyStatements(schema)
  const hub = invalidationHub(database, channel, listen, { connectionString: listenConnectionString, proofIntervalMs })
  const audit = postgresAuditLog(database, schema)
  const holdAccount = accountLock(schema)

  // Every write has its audit record (SPEC §5.40), part of the write's transaction with
  // its NOTIFY: PostgreSQL delivers the NOTIFY on commit only, and the record commits
  // with the change or not at all. A write that changed nothing answers no `change`, and
  // gets no record. `record` makes the record from the entry and the row the change
  // found and left (core/audit-fields.ts), inside the transaction, where no concurrent
  // write can have outdated them; `locked` is the row of a change's statement that locked
  // the account's chain head after it (audit-statements.ts, `…AndLock`): the record goes
  // after that head, else the head is locked now. The NOTIFY rides in the record's statement.
  interface Change {
    invalidation?: Invalidation
    record?: (entry: AuditEntry) => AuditEntry
    locked?: Row
  }
  interface Outcome<T> {
    result: T
    change?: Change
  }
  const write = async <T>(append: AuditAppend, fn: (tx: Queryable) => Promise<Outcome<T>>): Promise<T> => {
    const { result, change } = await database.transaction(async (tx) => {
      const outcome = await fn(tx)
      const { change } = outcome
      if (change !== undefined) {
        const notify = change.invalidation === undefined ? undefined : { channel, payload: JSON.stringify(change.invalidation) }
        const entry = change.record?.(append.entry) ?? append.entry
        if (change.locked === undefined) await audit.appendIn(tx, { entry, signer: append.signer }, notify)
        else await audit.appendLocked(tx, change.locked, entry, append.signer, notify)
      }
      return outcome
    })
    if (change?.invalidation !== undefined) hub.committed(change.invalidation)
    return result
  }
  const one = <T>(rows: readonly T[]): T | null => rows[0] ?? null
  // The store's own statements, named and prepared in a transaction where the driver can.
  const run = (tx: Queryable) => tx.prepared ?? tx.query

  return {
    async createAccountPasscode(record, maxPerAccount, entry): Promise<CreateResult> {
      try {
        return await database.transaction(async (tx) => {
          // Creates of one account take turns on its row (account-lock.ts); then one
          // statement counts, inserts when the name is free and the cap not reached,
          // and locks the chain head after it; the record follows.
          await holdAccount(tx, record.accountId)
          const create = audit.sql.createAccountPasscodeAndLock
          const [row] = await run(tx)(create.text, create.values({ ...accountPasscodeInput(record), maxPerAccount }))
          if (Number(row?.same_name) > 0) return { ok: false, reason: 'duplicate_name' } as const
          if (row?.id === null || row?.id === undefined) return { ok: false, reason: 'cap_reached' } as const
          await audit.appendLocked(tx, row, entry.entry, entry.signer)
          return { ok: true, record: toAccountPasscode(row) } as const
        })
      } catch (error) {
        // A concurrent rename took the name after the check: the unique index decides.
        if (isNameConflict(error)) return { ok: false, reason: 'duplicate_name' }
        throw error
      }
    },

    async updateAccountPasscode(accountId, passcodeId, patch, entry): Promise<UpdateResult> {
      // What a verification reads changes (the principal's scopes and metadata, the address ranges included); not a description or tags.
      const changes =
        patch.name !== undefined ||
        patch.expiresAt !== undefined ||
        patch.partners !== undefined ||
        patch.disabledAt !== undefined ||
        patch.scopes !== undefined ||
        patch.allowedAddresses !== undefined ||
        patch.metadata !== undefined ||
        patch.rateLimit !== undefined ||
        patch.credits !== undefined
      const invalidation: Invalidation | undefined = changes ? { type: 'account_passcode', accountId, passcodeId } : undefined
      const input = editInput(accountId, passcodeId, patch)
      try {
        return await write<UpdateResult>(entry, async (tx) => {
          // The edit reads the fields the record shows from the row it locks and changes,
          // then locks the chain head (audit-statements.ts, editAndLock).
          const row = one(await run(tx)(audit.sql.editAndLock.text, audit.sql.editAndLock.values(input)))
          if (row === null) return { result: { ok: false, reason: 'not_found' } as const }
          const after = toAccountPasscode(row)
          return {
            result: { ok: true, record: after } as const,
            change: { invalidation, locked: row, record: (given) => editedPasscodeEntry(given, priorPasscode(row), after) },
          }
        })
      } catch (error) {
        if (isNameConflict(error)) return { ok: false, reason: 'duplicate_name' }
        throw error
      }
    },

    async rotateAccountPasscode(accountId, passcodeId, rotation, entry) {
      const invalidation: Invalidation = { type: 'account_passcode', accountId, passcodeId }
      const { hash, hint, previousHashEndsAt, updatedAt } = rotation
      const input = { accountId, passcodeId, hash, hint, previousHashEndsAt, updatedAt, pepperId: rotation.pepperId ?? null }
      return write(entry, async (tx) => {
        // The rotation reads the overlap end it replaces and the name from the row it locks
        // and rotates, then locks the chain head (rotateAndLock).
        const row = one(await run(tx)(audit.sql.rotateAndLock.text, audit.sql.rotateAndLock.values(input)))
        if (row === null) return { result: null }
        const after = toAccountPasscode(row)
        const before = { previousHashEndsAt: row.prior_ends === null ? null : Number(row.prior_ends) }
        return { result: after, change: { invalidation, locked: row, record: (given) => rotatedPasscodeEntry(given, before, after) } }
      })
    },

    async deleteAccountPasscode(accountId, passcodeId, entry) {
      const invalidation: Invalidation = { type: 'account_passcode', accountId, passcodeId }
      return write(entry, async (tx) => {
        // The fields the record shows come from the row it deletes (deleteAndLock).
        const row = one(await run(tx)(audit.sql.deleteAndLock.text, audit.sql.deleteAndLock.values({ accountId, passcodeId })))
        if (row === null) return { result: null }
        const deleted = toAccountPasscode(row)
        return { result: deleted, change: { invalidation, locked: row, record: (given) => deletedPasscodeEntry(given, deleted) } }
      })
    },

    async getAccountPasscode(accountId, passcodeId) {
      const row = one(await database.query(sql.getAccountPasscode, [accountId, passcodeId]))
      return row === null ? null : toAccountPasscode(row)
    },

    async listAccountPasscodes(accountId): Promise<AccountPasscodeRecord[]> {
      return (await database.query(sql.listAccountPasscodes, [accountId])).map(toAccountPasscode)
    },

    async findCredentialByHash(hash) {
      const rows =
        database.lookup !== undefined
          ? database.lookup(sql.findCredentialByHash, hash, sql.callFindCredentialByHash, sql.callFindCredentialsByHashes)
          : database.query(sql.findCredentialByHash, [hash])
      const row = one(await rows)
      return row === null ? null : toCredentialMatch(row)
    },

    // One statement for every hash (one snapshot): a row re-hashed from one of them to another meanwhile is found under one.
    async findCredentialsByHashes(hashes) {
      const rows =
        database.lookup !== undefined
          ? database.lookup(sql.findCredentialsByHashes, hashes, sql.callFindCredentialByHash, sql.callFindCredentialsByHashes)
          : database.query(sql.findCredentialsByHashes, [hashes])
      const matches: (CredentialMatch | null)[] = hashes.map(() => null)
      for (const row of await rows) {
        const at = Number(row.n) - 1
        if (at >= 0 && at < matches.length) matches[at] = toCredentialMatch(row)
      }
      return matches
    },

    async rehashCredential({ kind, accountId, id, fromHash, toHash, pepperId }) {
      const statement = kind === 'account' ? sql.rehashAccountPasscode : sql.rehashUserPasscode
      const rows = await database.query(`${statement} RETURNING 1 AS written`, [accountId, id, fromHash, toHash, pepperId])
      return rows.length > 0
    },

    async countHashesByPepper(now) {
      const rows = await database.query(sql.countHashesByPepper, [now])
      // eslint-disable-next-line @typescript-eslint/no-base-to-string -- a text column of the driver's row
      return new Map(rows.map((row) => [row.pepper_id === null ? null : String(row.pepper_id), Number(row.hashes)]))
    },

    async recordUsage(entries) {
      if (entries.length === 0) return 0
      const [row] = await database.query(sql.recordUsage, usageParams(entries))
      return Number(row?.written ?? 0)
    },

    async recordUsageCounts(counts) {
      if (counts.length > 0) await database.query(sql.recordUsageCounts, usageCountParams(counts))
    },

    async listUsageCounts({ kind, accountId, key, from }) {
      const rows = await database.query(sql.listUsageCounts, [accountId, kind, key, from])
      return rows.map(toStoredUsageCount)
    },

    async pruneUsageCounts(before, limit) {
      const [row] = await database.query(sql.pruneUsageCounts, [before, limit])
      return Number(row?.deleted ?? 0)
    },

    grantUserPasscode(record, now, entry) {
      const owner = { type: 'user_passcode', accountId: record.accountId, userId: record.userId } as const
      return write<GrantResult>(entry, async (tx) => {
        const current = one(await tx.query(sql.lockUserPasscode, [record.accountId, record.userId]))
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
      const row = one(await database.query(sql.getUserPasscode, [accountId, userId]))
      return row === null ? null : toUserPasscode(row)
    },

    async listUserPasscodes(accountId): Promise<UserPasscodeRecord[]> {
      return (await database.query(sql.listUserPasscodes, [accountId])).map(toUserPasscode)
    },

    async getAcceptedPasscodes(accountId) {
      const row = one(await database.query(sql.getAcceptedPasscodes, [accountId]))
      return toAccepted(row?.accepted_passcodes)
    },

    setAcceptedPasscodes(accountId, accepted, entry) {
      const invalidation: Invalidation = { type: 'account', accountId }
      return write(entry, async (tx) => {
        await tx.query(sql.ensureAccount, [accountId])
        // The setting before comes from the row it locks and sets (setAcceptedAndLock).
        const [row] = await run(tx)(audit.sql.setAcceptedAndLock.text, audit.sql.setAcceptedAndLock.values({ accountId, accepted }))
        const [before, after] = [toAccepted(row!.prior_accepted), toAccepted(row!.accepted_passcodes)]
        return { result: undefined, change: { invalidation, locked: row!, record: (given) => acceptedPasscodesEntry(given, before, after) } }
      })
    },

    async reportLeak(report, entry) {
      // The response locks the chain head after it (…AndLock).
      const statement =
        report.kind === 'user' ? audit.sql.leakRevokeAndLock : report.action === 'delete' ? audit.sql.leakDeleteAndLock : audit.sql.leakDisableAndLock
      const { accountId, key } = report
      // A replay (the credential's mark is open) costs one indexed read, not a write transaction.
      if (report.kind === 'account' && report.action === 'disable') {
        if ((await database.query(sql.openLeakMark, [accountId, report.kind, key])).length > 0) return null
      }
      return write(entry, async (tx) => {
        const { hash, id, at, url, source, token, claimedUntil } = report
        const row = one(await run(tx)(statement.text, statement.values({ accountId, key, hash, id, at, url, source, token, claimedUntil })))
        if (row === null) return { result: null }
        const invalidation: Invalidation =
          report.kind === 'user' ? { type: 'user_passcode', accountId, userId: key } : { type: 'account_passcode', accountId, passcodeId: key }
        const mark = toLeakMark(row)
        // The mark holds the name of the row the statement acted on; `disabled_now` says the disable changed it.
        const record = (given: AuditEntry) => leakReportedEntry(given, mark.name, row.disabled_now === true)
        return { result: mark, change: { invalidation, locked: row, record } }
      })
    },

    async listLeakMarks(accountId) {
      return (await database.query(sql.listLeakMarks, [accountId])).map(toLeakMark)
    },

    async claimLeakNotices({ now, leaseMs, limit, token }) {
      const rows = await database.query(sql.claimLeakNotices, [now, limit, token, leaseMs])
      return rows.map((row) => ({ ...toLeakMark(row), token })).sort((a, b) => a.reportedAt - b.reportedAt || (a.id < b.id ? -1 : 1))
    },

    async completeLeakNotice(claim, sentAt, entry) {
      const input = { id: claim.id, token: claim.token, sentAt }
      // With its audit record, only when the claim held: in one statement after the head read
      // just before, or the completion locking the chain head after it.
      const placed = await audit.appendWith(audit.sql.completeLeakNoticeAppending, input, entry)
      if (placed !== undefined) return placed.rows.length > 0
      const locking = audit.sql.completeLeakNoticeAndLock
      return write(entry, async (tx) => {
        const row = one(await run(tx)(locking.text, locking.values({ ...input, accountId: entry.entry.accountId })))
        return row === null ? { result: false } : { result: true, change: { locked: row } }
      })
    },

    async releaseLeakNotice(claim) {
      await database.query(sql.releaseLeakNotice, [claim.id, claim.token])
    },

    // SPEC §5.52: an account's policy, changed under the account's row lock with its record and its email.
    async getAccountPolicy(accountId) {
      const row = one(await database.query(policySql.getPolicy, [accountId]))
      return row === null ? null : toPolicy(row)
    },

    setAccountPolicy(accountId, policy, notice, entry) {
      return write(entry, async (tx) => {
        await holdAccount(tx, accountId)
        const prior = one(await tx.query(policySql.priorPolicy, [accountId]))
        const before = prior === null ? null : toPolicy(prior)
        if (policy === null) await tx.query(policySql.deletePolicy, [accountId])
        else await tx.query(policySql.putPolicy, [accountId, ...policyParams(policy)])
        if (notice === null) await tx.query(policySql.dropUnsentNotice, [accountId])
        else await tx.query(policySql.putNotice, noticeParams(accountId, notice))
        return { result: before, change: { record: (given) => policyChangedEntry(given, before, policy) } }
      })
    },

    async claimPolicyNotices({ now, leaseMs, limit, token }) {
      const rows = await database.query(policySql.claimNotices, [now, limit, token, leaseMs])
      return rows
        .map((row) => toPolicyNoticeClaim(row, token))
        .sort((a, b) => a.setAt - b.setAt || (a.accountId < b.accountId ? -1 : a.accountId > b.accountId ? 1 : 0))
    },

    async completePolicyNotice(claim, sentAt, entry) {
      return write(entry, async (tx) => {
        const row = one(await tx.query(policySql.completeNotice, [claim.accountId, claim.token, sentAt]))
        return row === null ? { result: false } : { result: true, change: {} }
      })
    },

    async releasePolicyNotice(claim) {
      await database.query(policySql.releaseNotice, [claim.accountId, claim.token])
    },

    ...notificationClaims(database, sql, audit),
    // SPEC §5.50: the counters instances lease from, and the credit notices (migration 15).
    ...postgresLimits(database, schema, audit),

    audit: audit.log,
    // SPEC §5.53: the outbox, filled in each change's transaction by migration 16's trigger.
    webhooks: postgresWebhooks(database, schema, audit),

    subscribe: hub.subscribe,
    ready: hub.ready,
    close: hub.close,
  }
}
