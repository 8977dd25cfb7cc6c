import {
  auditHashInputAround,
  auditHashInputParts,
  canonicalJson,
  GENESIS_HASH,
  type AuditAction,
  type AuditActor,
  type AuditEntry,
  type AuditRecord,
} from '../../core/audit'
import type { AuditLog } from '../../ports/audit-log'
import type { Database, Queryable, Row } from './database-interface'
import { auditStatements, type AuditStatements } from './audit-statements'

// Text columns: both drivers return strings.
const optionalText = (value: unknown): string | null => (typeof value === 'string' ? value : null)
// Text edited into something that is not JSON reads as that text: its hash then no longer matches.
const parsed = (value: unknown): unknown => {
  const text = typeof value === 'string' ? value : ''
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

/** The `actor` column as appends write it for this user, in each role. */
const actorTexts = (userId: string): string[] =>
  (['admin', 'member'] as const).map((role) => canonicalJson({ type: 'user', userId, role } satisfies AuditActor))

/** A row of `audit_records` as a record; the JSON columns are parsed back as they were hashed. */
function toAuditRecord(row: Row): AuditRecord {
  return {
    accountId: String(row.account_id),
    sequence: Number(row.sequence),
    at: Number(row.at),
    actor: parsed(row.actor) as AuditRecord['actor'],
    action: String(row.action) as AuditAction,
    target: parsed(row.target) as AuditRecord['target'],
    changes: parsed(row.changes) as AuditRecord['changes'],
    requestId: optionalText(row.request_id),
    clientAddress: optionalText(row.client_address),
    previousHash: String(row.previous_hash),
    hash: String(row.hash),
  }
}

/**
 * The parameters of a change's audit record in a statement that makes it from the row
 * the change found and left (`edit`, `rotateAndNotify`, audit-statements.ts), numbered
 * after the change's own: the entry, less what the statement reads from the row (the
 * changes of the fields in `replaced` and the passcode target's name). Throws for an
 * entry that cannot be encoded, those fields included.
 */
export function rowRecordParams(entry: AuditEntry, replaced: readonly string[]): unknown[] {
  // Refused whole, as every store refuses an entry it cannot encode (core/audit-fields.ts).
  canonicalJson(entry.changes)
  const fields = new Set(replaced)
  const kept = Object.entries(entry.changes).filter(([field]) => !fields.has(field))
  return [
    entry.at,
    canonicalJson(entry.actor),
    entry.action,
    entry.target.type === 'passcode' ? null : canonicalJson(entry.target),
    'id' in entry.target ? entry.target.id : null,
    kept.map(([field]) => field),
    kept.map(([, change]) => canonicalJson(change)),
    entry.requestId,
    entry.clientAddress,
    GENESIS_HASH,
    ...auditHashInputParts(entry, ['changes', 'target']),
  ]
}

/**
 * The parameters of an append (`append`, and after the change's own in `appendAfter`'s
 * statements, audit-statements.ts): the entry, encoded, and the two parts of its hash
 * input around the previous hash. Throws for an entry that cannot be encoded.
 */
export function appendParams(entry: AuditEntry): unknown[] {
  const [before, after] = auditHashInputAround(entry)
  return [
    entry.accountId,
    entry.at,
    canonicalJson(entry.actor),
    entry.action,
    canonicalJson(entry.target),
    'id' in entry.target ? entry.target.id : null,
    canonicalJson(entry.changes),
    entry.requestId,
    entry.clientAddress,
    GENESIS_HASH,
    before,
    after,
  ]
}

/** The SQL store's audit trail, and the append its write methods run inside their transactions. */
export interface PostgresAuditLog {
  readonly log: AuditLog
  /** Its statements, for the writes that append their record in their own statement (audit-statements.ts). */
  readonly sql: AuditStatements
  /**
   * Appends the entry to its account's chain inside `tx`, the change's transaction,
   * and sends the change's `NOTIFY` in the same statement when `notify` is given.
   */
  appendIn(tx: Queryable, entry: AuditEntry, notify?: { readonly channel: string; readonly payload: string }): Promise<AuditRecord>
}

/**
 * The audit trail over PostgreSQL or PGlite (SPEC §5.40). An append locks the account's
 * head row, places the record after it, inserts it and moves the head, all in the
 * caller's transaction, in one statement (most writes' statements make the change too:
 * `edit`, `rotateAndNotify`, `deleteAndNotify`, the `…AndAppend` ones); appends to one
 * account from any number of processes take turns on that row lock, so each account
 * keeps one chain.
 */
export function postgresAuditLog(database: Database, schema: string): PostgresAuditLog {
  const sql = auditStatements(schema)

  const appendIn = async (
    tx: Queryable,
    entry: AuditEntry,
    notify?: { readonly channel: string; readonly payload: string },
  ): Promise<AuditRecord> => {
    // Named and prepared where the driver can (planned once per connection, not on every call).
    const [row] = await (tx.prepared ?? tx.query)(notify === undefined ? sql.append : sql.appendAndNotify, [
      ...appendParams(entry),
      ...(notify === undefined ? [] : [notify.channel, notify.payload]),
    ])
    return { ...entry, sequence: Number(row!.sequence), previousHash: String(row!.previous_hash), hash: String(row!.hash) }
  }

  const log: AuditLog = {
    append: (entry) => database.transaction((tx) => appendIn(tx, entry)),

    async list(accountId, query) {
      const rows = await database.query(query.order === 'newest' ? sql.newest : sql.oldest, [
        accountId,
        query.after ?? null,
        query.limit,
        query.actions === undefined ? null : [...query.actions],
        query.targetId ?? null,
        query.from ?? null,
        query.to ?? null,
        query.actorUserId === undefined ? null : actorTexts(query.actorUserId),
      ])
      return rows.map(toAuditRecord)
    },

    async ends(accountId) {
      const [row] = await database.query(sql.ends, [accountId])
      if (row === undefined) return { start: { sequence: 0, hash: GENESIS_HASH }, head: { sequence: 0, hash: GENESIS_HASH } }
      return {
        start: { sequence: Number(row.start_sequence), hash: String(row.start_hash) },
        head: { sequence: Number(row.sequence), hash: String(row.hash) },
      }
    },

    async prune(before) {
      let removed = 0
      for (const candidate of await database.query(sql.pruneCandidates, [before])) {
        const accountId = String(candidate.account_id)
        removed += await database.transaction(async (tx) => {
          await tx.query(sql.lockHeadForPrune, [accountId])
          const [row] = await tx.query(sql.pruneThrough, [accountId, Number(candidate.through)])
          return Number(row?.removed ?? 0)
        })
      }
      return removed
    },
  }
  return { log, sql, appendIn }
}
