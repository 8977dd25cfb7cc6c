import type { AuditEntry } from '../../core/audit'
import type { Invalidation } from '../../ports/passcode-store'
import type { AuditAppend } from '../../ports/audit-log'
import type { Database, Queryable, Row } from './database-interface'
import type { InvalidationHub } from './invalidations'
import type { PostgresAuditLog } from './postgres-audit-log'
import type { Statements } from './statements'

/**
 * Every write has its audit record (SPEC §5.40), part of the write's transaction with
 * its NOTIFY: PostgreSQL delivers the NOTIFY on commit only, and the record commits
 * with the change or not at all. A write that changed nothing answers no `change`, and
 * gets no record. `record` makes the record from the entry and the row the change
 * found and left (core/audit-fields.ts), inside the transaction, where no concurrent
 * write can have outdated them; `locked` is the row of a change's statement that locked
 * the account's chain head after it (audit-statements.ts, `…AndLock`): the record goes
 * after that head, else the head is locked now. The NOTIFY rides in the record's statement.
 */
export interface Change {
  invalidation?: Invalidation
  record?: (entry: AuditEntry) => AuditEntry
  locked?: Row
}

/** What a write's transaction answers, and the change it made (none: it changed nothing, and gets no record). */
export interface Outcome<T> {
  result: T
  change?: Change
}

/** What the store's parts share: the database, the statements, the audit log and the writes' one path. */
export interface StoreContext {
  readonly database: Database
  readonly schema: string
  readonly sql: Statements
  readonly audit: PostgresAuditLog
  readonly channel: string
  readonly hub: InvalidationHub
  /** Runs `fn` in a transaction, then the record of its change and its NOTIFY in the same one; publishes the invalidation once committed. */
  write<T>(this: void, append: AuditAppend, fn: (tx: Queryable) => Promise<Outcome<T>>): Promise<T>
}

/** The context of one store's parts, its writes made by {@link StoreContext.write}. */
export function storeContext(
  database: Database,
  schema: string,
  sql: Statements,
  audit: PostgresAuditLog,
  channel: string,
  hub: InvalidationHub,
): StoreContext {
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
  return { database, schema, sql, audit, channel, hub, write }
}

/** The first row, or `null`. */
export const one = <T>(rows: readonly T[]): T | null => rows[0] ?? null

/** The store's own statements, named and prepared in a transaction where the driver can. */
export const run = (tx: Queryable) => tx.prepared ?? tx.query
