import { canonicalJson, type AuditAction, type AuditActor, type AuditEntry, type AuditRecord, type AuditSigner } from '../../core/audit'
import type { AuditChainEnds, AuditChainPoint } from '../../core/audit-chain'
import { prunedEntry } from '../../core/audit-fields'
import type { AuditListing } from '../../core/audit-page'
import type { AuditAppend, AuditLog } from '../../ports/audit-log'
import type { Database, Queryable, Row } from './database-interface'
import { auditStatements, type AppendInput, type AuditStatements } from './audit-statements'
import type { NamedStatement } from './named-statement'

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

/** A row of `audit_records` as a record, every column as stored; the JSON columns are parsed back as they were hashed. */
function toAuditRecord(row: Row): AuditRecord {
  return {
    accountId: String(row.account_id),
    sequence: Number(row.sequence),
    version: Number(row.version),
    keyId: optionalText(row.key_id),
    at: Number(row.at),
    actor: parsed(row.actor) as AuditRecord['actor'],
    action: String(row.action) as AuditAction,
    target: parsed(row.target) as AuditRecord['target'],
    targetId: optionalText(row.target_id),
    changes: parsed(row.changes) as AuditRecord['changes'],
    requestId: optionalText(row.request_id),
    clientAddress: optionalText(row.client_address),
    previousHash: String(row.previous_hash),
    hash: String(row.hash),
  }
}

/** A row's sequence and hash (`sequence`, `hash` or the `audit_head_*` a change's statement returns). */
const point = (sequence: unknown, hash: unknown): AuditChainPoint => ({ sequence: Number(sequence), hash: String(hash) })

/** The inputs of a placed and signed record (`RECORD_INPUTS`, audit-statements.ts), with a change's `NOTIFY` or none. */
function recordInput(record: AuditRecord, notify: Notify | undefined): AppendInput {
  return {
    recordAccountId: record.accountId,
    recordSequence: record.sequence,
    recordAt: record.at,
    recordActor: canonicalJson(record.actor),
    recordAction: record.action,
    recordTarget: canonicalJson(record.target),
    recordTargetId: record.targetId,
    recordChanges: canonicalJson(record.changes),
    recordRequestId: record.requestId,
    recordClientAddress: record.clientAddress,
    recordPreviousHash: record.previousHash,
    recordHash: record.hash,
    recordVersion: record.version,
    recordKeyId: record.keyId,
    notifyChannel: notify?.channel ?? null,
    notifyPayload: notify?.payload ?? null,
  }
}

/** A change's `NOTIFY`, sent in the record's statement. */
export interface Notify {
  readonly channel: string
  readonly payload: string
}

/** The SQL store's audit trail, and the appends its write methods run inside their transactions. */
export interface PostgresAuditLog {
  readonly log: AuditLog
  /** Its statements, for the writes that lock the chain head in their own statement (`…AndLock`, audit-statements.ts). */
  readonly sql: AuditStatements
  /**
   * Appends the entry after the head a change's `…AndLock` statement locked (its row's
   * `audit_head_sequence` and `audit_head_hash`; none: the account's first record),
   * inside `tx`, the change's transaction, with the change's `NOTIFY` when given.
   */
  appendLocked(tx: Queryable, locked: Row, entry: AuditEntry, signer: AuditSigner, notify?: Notify): Promise<AuditRecord>
  /** Locks the account's chain head and appends the entry inside `tx`. */
  appendIn(tx: Queryable, append: AuditAppend, notify?: Notify): Promise<AuditRecord>
  /**
   * Runs a change whose record the service made whole and that record in one statement
   * (`…Appending`, audit-statements.ts: `input` is the change's), placed after the head
   * read just before, with the change's `NOTIFY` when given. Resolves the statement's
   * rows and the record (none when the change changed nothing), or `undefined` when the
   * account has no head row yet or other appends moved its head twice in between: the
   * caller then takes the transactional way, which waits for the head's lock.
   */
  appendWith<I extends object>(
    statement: NamedStatement<I & AppendInput>,
    input: I,
    append: AuditAppend,
    notify?: Notify,
  ): Promise<{ readonly rows: Row[]; readonly record: AuditRecord | undefined } | undefined>
}

/** How many times {@link PostgresAuditLog.appendWith} places a record after a head read before it gives way to the head's lock. */
const APPEND_ATTEMPTS = 2

/** How many accounts' last heads {@link PostgresAuditLog.appendWith} keeps (a few dozen kilobytes). */
const HEADS_KEPT = 1_000

/** The error of an `…Appending` statement whose head moved after it was read: the record's sequence was NULL. */
function isStaleHead(error: unknown): boolean {
  const { code, column, message } = (error ?? {}) as { code?: unknown; column?: unknown; message?: unknown }
  return code === '23502' && (column === 'sequence' || (typeof message === 'string' && message.includes('"sequence"')))
}

/**
 * The audit trail over PostgreSQL or PGlite (SPEC §5.40, §5.44). An append locks the
 * account's head row, places the record after it, signs it in the process (the key is
 * never sent to the database: not as a parameter, nor in a setting), inserts it and
 * moves the head, all in the caller's transaction; appends to one account from any
 * number of processes take turns on that row lock, so each account keeps one chain.
 */
export function postgresAuditLog(database: Database, schema: string): PostgresAuditLog {
  const sql = auditStatements(schema)
  const run = (tx: Queryable) => tx.prepared ?? tx.query

  /** The account's head, locked; created at the genesis for an account's first record. */
  const lockHead = async (tx: Queryable, accountId: string): Promise<AuditChainPoint> => {
    const account = { accountId }
    let [row] = await run(tx)(sql.lockHead.text, sql.lockHead.values(account))
    if (row === undefined) {
      await run(tx)(sql.createHead.text, sql.createHead.values(account))
      ;[row] = await run(tx)(sql.lockHead.text, sql.lockHead.values(account))
    }
    return point(row!.sequence, row!.hash)
  }

  const place = async (tx: Queryable, head: AuditChainPoint, entry: AuditEntry, signer: AuditSigner, notify?: Notify): Promise<AuditRecord> => {
    const record = signer.chain(entry, head)
    const statement = notify === undefined ? sql.append : sql.appendAndNotify
    const [row] = await run(tx)(statement.text, statement.values(recordInput(record, notify)))
    // Under the head's lock the head is where it was read: anything else is a bug, and the change must not commit.
    if (Number(row?.moved) !== 1) throw new Error(`The audit chain head of an account moved during an append (at ${record.sequence})`)
    return record
  }

  const appendLocked: PostgresAuditLog['appendLocked'] = async (tx, locked, entry, signer, notify) => {
    const head =
      locked.audit_head_sequence === null || locked.audit_head_sequence === undefined
        ? await lockHead(tx, entry.accountId)
        : point(locked.audit_head_sequence, locked.audit_head_hash)
    return place(tx, head, entry, signer, notify)
  }

  const appendIn: PostgresAuditLog['appendIn'] = async (tx, { entry, signer }, notify) =>
    place(tx, await lockHead(tx, entry.accountId), entry, signer, notify)

  /**
   * The head this process last placed a record after with an `…Appending` statement, per
   * account (the newest {@link HEADS_KEPT}). The next such statement for that account
   * tries it before reading the head: a run of the notifier's completions on one account
   * is then one round trip each. A head another writer moved meanwhile makes the
   * statement undo itself (as after a read), and the head is read as before.
   */
  const lastHeads = new Map<string, AuditChainPoint>()
  const remember = (accountId: string, record: AuditRecord) => {
    lastHeads.delete(accountId)
    lastHeads.set(accountId, point(record.sequence, record.hash))
    if (lastHeads.size > HEADS_KEPT) lastHeads.delete(lastHeads.keys().next().value!)
  }

  const appendWith: PostgresAuditLog['appendWith'] = async (statement, input, { entry, signer }, notify) => {
    const { accountId } = entry
    /** The statement after `head`, or `undefined` when the head had moved (nothing written). */
    const after = async (head: AuditChainPoint) => {
      const record = signer.chain(entry, head)
      try {
        const rows = await run(database)(statement.text, statement.values({ ...input, ...recordInput(record, notify) }))
        if (rows.length === 0) return { rows, record: undefined }
        remember(accountId, record)
        return { rows, record }
      } catch (error) {
        if (!isStaleHead(error)) throw error
        lastHeads.delete(accountId)
        return undefined
      }
    }
    const known = lastHeads.get(accountId)
    const placed = known === undefined ? undefined : await after(known)
    if (placed !== undefined) return placed
    for (let attempt = 0; attempt < APPEND_ATTEMPTS; attempt++) {
      const [head] = await run(database)(sql.ends.text, sql.ends.values({ accountId }))
      if (head === undefined) return undefined
      const read = await after(point(head.sequence, head.hash))
      if (read !== undefined) return read
    }
    return undefined
  }

  const toEnds = (row: Row | undefined): AuditChainEnds | null =>
    row === undefined || row.head_sequence === null
      ? null
      : { start: point(row.start_sequence, row.start_hash), head: point(row.head_sequence, row.head_hash) }

  const log: AuditLog = {
    async append(append) {
      const placed = await appendWith(sql.appendAt, {}, append)
      return placed?.record ?? database.transaction((tx) => appendIn(tx, append))
    },

    async list(accountId, query): Promise<AuditListing> {
      const rows = await database.query(
        sql.list.text,
        sql.list.values({
          accountId,
          after: query.after ?? null,
          limit: query.limit,
          actions: query.actions === undefined ? null : [...query.actions],
          targetId: query.targetId ?? null,
          from: query.from ?? null,
          to: query.to ?? null,
          actors: query.actorUserId === undefined ? null : actorTexts(query.actorUserId),
        }),
      )
      const part = (name: string) => rows.filter((row) => row.part === name).map(toAuditRecord)
      const ends = rows.find((row) => row.part === 'ends')
      const [head, first, pruned] = [part('head'), part('first'), part('pruned')]
      const repeated = [head, first].find((records) => records.length > 1)?.[0]?.sequence
      const stray = ends?.stray === null || ends?.stray === undefined ? (repeated ?? null) : Number(ends.stray)
      return {
        ends: toEnds(ends),
        records: part('page').sort((a, b) => b.sequence - a.sequence),
        stray,
        head: head[0] ?? null,
        first: first[0] ?? null,
        pruned: pruned[0] ?? null,
      }
    },

    async records(accountId, { from, limit }) {
      return (await database.query(sql.records.text, sql.records.values({ accountId, from: from ?? null, limit }))).map(toAuditRecord)
    },

    async ends(accountId) {
      const [row] = await database.query(sql.ends.text, sql.ends.values({ accountId }))
      return row === undefined ? null : { start: point(row.start_sequence, row.start_hash), head: point(row.sequence, row.hash) }
    },

    async prune(before, { at, signer }) {
      let removed = 0
      for (const candidate of await database.query(sql.pruneCandidates.text, sql.pruneCandidates.values({ before }))) {
        const accountId = String(candidate.account_id)
        removed += await database.transaction(async (tx) => {
          const [locked] = await tx.query(sql.lockHead.text, sql.lockHead.values({ accountId }))
          // No head row: nothing this store wrote (verification names the rows).
          if (locked === undefined) return 0
          const head = point(locked.sequence, locked.hash)
          const through = Math.min(Number(candidate.through), head.sequence)
          const [row] = await tx.query(sql.pruneThrough.text, sql.pruneThrough.values({ accountId, through }))
          const count = Number(row?.removed ?? 0)
          if (count === 0) return 0
          const entry = prunedEntry(accountId, at, count, point(row!.start_sequence, row!.start_hash), point(row!.through, row!.through_hash))
          await place(tx, head, entry, signer)
          return count
        })
      }
      return removed
    },
  }
  return { log, sql, appendLocked, appendIn, appendWith }
}
