import type { AccountPasscodeRecord } from '../../core/passcode-records'
import type { CompletePasscodeStore, CreateResult, CredentialMatch, Invalidation, UpdateResult } from '../../ports/passcode-store'
import { toDatabase } from './database'
import { accountLock } from './account-lock'
import type { PostgresDatabase, Row } from './database-interface'
import { invalidationHub } from './invalidations'
import { EDITED_COLUMNS } from './audit-statements'
import { postgresAuditLog } from './postgres-audit-log'
import { acceptedPasscodesEntry, deletedPasscodeEntry, editedPasscodeEntry, rotatedPasscodeEntry } from '../../core/audit-fields'
import { notificationClaims } from './notification-claims'
import { resolvePostgresOptions, type PostgresStoreOptions } from './options'
import { accountPasscodeInput, toAccepted, toAccountPasscode, toStoredUsageCount, toUserPasscode, usageCountInput, usageInput } from './rows'
import { editInput } from './statement-columns'
import { NAME_INDEX, statements } from './statements'
import { postgresAccountPolicy } from './postgres-account-policy'
import { postgresLeaks } from './postgres-leaks'
import { postgresUserPasscodes } from './postgres-user-passcodes'
import { one, run, storeContext } from './store-context'
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
  const hub = invalidationHub(database, channel, listen, { connectionString: listenConnectionString, proofIntervalMs })
  const audit = postgresAuditLog(database, schema)
  const holdAccount = accountLock(schema)

  const context = storeContext(database, schema, sql, audit, channel, hub)
  const { write } = context

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
      const row = one(await database.query(sql.getAccountPasscode.text, sql.getAccountPasscode.values({ accountId, passcodeId })))
      return row === null ? null : toAccountPasscode(row)
    },

    async listAccountPasscodes(accountId): Promise<AccountPasscodeRecord[]> {
      return (await database.query(sql.listAccountPasscodes.text, sql.listAccountPasscodes.values({ accountId }))).map(toAccountPasscode)
    },

    async findCredentialByHash(hash) {
      const rows =
        database.lookup !== undefined
          ? database.lookup(sql.findCredentialByHash.text, hash, sql.callFindCredentialByHash.text, sql.callFindCredentialsByHashes.text)
          : database.query(sql.findCredentialByHash.text, sql.findCredentialByHash.values({ hash }))
      const row = one(await rows)
      return row === null ? null : toCredentialMatch(row)
    },

    // One statement for every hash (one snapshot): a row re-hashed from one of them to another meanwhile is found under one.
    async findCredentialsByHashes(hashes) {
      const rows =
        database.lookup !== undefined
          ? database.lookup(sql.findCredentialsByHashes.text, hashes, sql.callFindCredentialByHash.text, sql.callFindCredentialsByHashes.text)
          : database.query(sql.findCredentialsByHashes.text, sql.findCredentialsByHashes.values({ hashes }))
      const matches: (CredentialMatch | null)[] = hashes.map(() => null)
      for (const row of await rows) {
        const at = Number(row.n) - 1
        if (at >= 0 && at < matches.length) matches[at] = toCredentialMatch(row)
      }
      return matches
    },

    async rehashCredential({ kind, accountId, id, fromHash, toHash, pepperId }) {
      const statement = kind === 'account' ? sql.rehashAccountPasscode : sql.rehashUserPasscode
      const rows = await database.query(statement.text, statement.values({ accountId, id, fromHash, toHash, pepperId }))
      return rows.length > 0
    },

    async countHashesByPepper(now) {
      // Reads both passcode tables whole, for an operator: its own, longer deadline.
      const rows = await (database.queryOperatorRead ?? database.query)(sql.countHashesByPepper.text, sql.countHashesByPepper.values({ now }))
      // eslint-disable-next-line @typescript-eslint/no-base-to-string -- a text column of the driver's row
      return new Map(rows.map((row) => [row.pepper_id === null ? null : String(row.pepper_id), Number(row.hashes)]))
    },

    async recordUsage(entries) {
      if (entries.length === 0) return 0
      const [row] = await database.query(sql.recordUsage.text, sql.recordUsage.values(usageInput(entries)))
      return Number(row?.written ?? 0)
    },

    async recordUsageCounts(counts) {
      if (counts.length > 0) await database.query(sql.recordUsageCounts.text, sql.recordUsageCounts.values(usageCountInput(counts)))
    },

    async listUsageCounts({ kind, accountId, key, from }) {
      const rows = await database.query(sql.listUsageCounts.text, sql.listUsageCounts.values({ accountId, kind, key, from }))
      return rows.map(toStoredUsageCount)
    },

    async pruneUsageCounts(before, limit) {
      const [row] = await database.query(sql.pruneUsageCounts.text, sql.pruneUsageCounts.values({ before, limit }))
      return Number(row?.deleted ?? 0)
    },

    ...postgresUserPasscodes(context),

    async getAcceptedPasscodes(accountId) {
      const row = one(await database.query(sql.getAcceptedPasscodes.text, sql.getAcceptedPasscodes.values({ accountId })))
      return toAccepted(row?.accepted_passcodes)
    },

    setAcceptedPasscodes(accountId, accepted, entry) {
      const invalidation: Invalidation = { type: 'account', accountId }
      return write(entry, async (tx) => {
        await tx.query(sql.ensureAccount.text, sql.ensureAccount.values({ accountId }))
        // The setting before comes from the row it locks and sets (setAcceptedAndLock).
        const [row] = await run(tx)(audit.sql.setAcceptedAndLock.text, audit.sql.setAcceptedAndLock.values({ accountId, accepted }))
        const [before, after] = [toAccepted(row!.prior_accepted), toAccepted(row!.accepted_passcodes)]
        return { result: undefined, change: { invalidation, locked: row!, record: (given) => acceptedPasscodesEntry(given, before, after) } }
      })
    },

    ...postgresLeaks(context),
    ...postgresAccountPolicy(context),

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
