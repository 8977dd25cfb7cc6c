import { auditTargetId, GENESIS_HASH, type AuditRecord } from './audit'
import type { AuditKeyring } from './audit-keys'

/**
 * A point in an account's chain: a record's sequence and hash.
 *
 * @example
 * ```ts
 * const genesis: AuditChainPoint = { sequence: 0, hash: '0'.repeat(64) }
 * ```
 */
export interface AuditChainPoint {
  /** The record's sequence; 0 before the first record. */
  readonly sequence: number
  /** The record's hash; the genesis hash before the first record. */
  readonly hash: string
}

/**
 * Both ends of an account's chain as the store keeps them (its head row): `start`, the
 * point before the oldest kept record (sequence 0 and the genesis hash until a prune,
 * then the last pruned record), and `head`, the newest record.
 *
 * @example
 * ```ts
 * const ends = await store.audit!.ends('acc_1') // null: the account has no head row
 * ```
 */
export interface AuditChainEnds {
  /** The point before the oldest kept record. */
  readonly start: AuditChainPoint
  /** The newest record (equal to `start` when no record is kept). */
  readonly head: AuditChainPoint
}

/**
 * Why a chain does not verify, at the first record concerned (SPEC §5.44):
 * - `changed`: a record's content no longer matches its hash (or its key's HMAC, or a
 *   record the next one, the head row or the anchor names);
 * - `removed`: a record is missing from the chain (the front included);
 * - `tail_removed`: the newest records are gone (the chain ends before the store's own
 *   head, or before the caller's anchor);
 * - `outside`: a row outside the chain: at or below its start, past its head, or a
 *   sequence repeated;
 * - `head_missing`: the account's head row is gone while it has records, or while it has
 *   neither records nor a head row but keeps data only an audited write makes (a
 *   passcode, a setting, a policy, a webhook endpoint): its whole chain was lost;
 * - `start_moved`: the chain's start moved with no `audit.pruned` record that says so
 *   (or past a caller's anchor without one);
 * - `unkeyed`: a record with a plain hash after a keyed one (or in the encoding of
 *   before audit keys after a newer one): a downgrade, never written by the library;
 * - `unknown_key`: a record keyed with a key id this service has not configured.
 *
 * @example
 * ```ts
 * const reason: AuditBreak = 'start_moved'
 * ```
 */
export type AuditBreak = 'changed' | 'removed' | 'tail_removed' | 'outside' | 'head_missing' | 'start_moved' | 'unkeyed' | 'unknown_key'

/**
 * Where a chain breaks.
 *
 * @example
 * ```ts
 * const failure: AuditFailure = { ok: false, at: 17, reason: 'changed' }
 * ```
 */
export interface AuditFailure {
  /** The chain is broken. */
  readonly ok: false
  /** The sequence of the first record concerned (for `tail_removed`, the first one missing). */
  readonly at: number
  /** What is wrong there. */
  readonly reason: AuditBreak
}

/**
 * What a verification found.
 *
 * @example
 * ```ts
 * const result: AuditVerification = { ok: false, at: 17, reason: 'changed' }
 * ```
 */
export type AuditVerification =
  | {
      /** Every record verifies, from the oldest kept one to the newest. */
      readonly ok: true
      /** How many records were checked. */
      readonly records: number
      /**
       * How many of them carry a plain hash (written before audit keys were configured,
       * or by a service without them): they prove order, not who wrote them.
       */
      readonly unkeyed: number
      /** The newest record's sequence and hash: keep both elsewhere as the next anchor. */
      readonly head: AuditChainPoint
    }
  | AuditFailure

/**
 * How to check a chain: its ends as read before the walk (`null`: no head row), the
 * keys, an anchor kept elsewhere, and how to read the ends again when rows past the head
 * turn up (appended while the walk ran).
 *
 * @example
 * ```ts
 * const options: AuditChainOptions = { ends, keys: auditKeyring([]), anchor: { sequence: 17, hash: keptHash } }
 * ```
 */
export interface AuditChainOptions {
  /** The head row's ends before the walk; `null` when the account has none. */
  readonly ends: AuditChainEnds | null
  /** The keys records are checked with. */
  readonly keys: AuditKeyring
  /** A head kept elsewhere from an earlier verification: the chain must still hold it, or a prune record must cover it. */
  readonly anchor?: AuditChainPoint | undefined
  /** Reads the ends again (records past the head read first were appended meanwhile, or are strays). */
  readonly reread?: () => Promise<AuditChainEnds | null>
  /**
   * Whether the account keeps data that only an audited write makes (every write appends
   * a record, so such an account has a chain). Asked only when there is neither a head
   * row nor a row: `true` makes that a lost chain (`head_missing`), never an empty "ok".
   */
  readonly written?: () => Promise<boolean>
}

/**
 * What is wrong with one record on its own: its hash does not match its content under
 * its key (`changed`), or its key is not configured (`unknown_key`). A record of the
 * encoding of before audit keys carries no key and a target id that is its target's.
 */
export function auditRecordProblem(record: AuditRecord, keys: AuditKeyring): 'changed' | 'unknown_key' | undefined {
  if (record.version === 1 ? record.keyId !== null || record.targetId !== auditTargetId(record.target) : record.version !== 2) return 'changed'
  if (record.keyId !== null && !keys.knows(record.keyId)) return 'unknown_key'
  return keys.expectedHash(record) === record.hash ? undefined : 'changed'
}

/** Whether `record` comes after a keyed record (`keyed`) or one of a newer encoding (`newer`) without being keyed itself. */
const downgraded = (record: AuditRecord, keyed: boolean, newer: boolean): boolean =>
  record.keyId === null && (keyed || (record.version === 1 && newer))

/**
 * Whether the chain's start is where its newest `audit.pruned` record says the prune
 * left it: the last pruned sequence and its hash.
 */
function pruneExplains(pruned: AuditRecord | undefined | null, start: AuditChainPoint): boolean {
  const { through, lastHash } = pruned?.changes ?? {}
  return through?.after === start.sequence && lastHash?.after === start.hash
}

/**
 * Whether a start other than the genesis is accounted for: by the newest prune record,
 * or (the chains written before audit keys, pruned then without a record) by a first
 * kept record of the old encoding.
 */
function startExplained(start: AuditChainPoint, pruned: AuditRecord | undefined | null, first: AuditRecord | undefined | null): boolean {
  if (start.sequence === 0 && start.hash === GENESIS_HASH) return true
  return pruneExplains(pruned, start) || first?.version === 1
}

/**
 * Checks an account's rows one at a time, in sequence order, every row of the account
 * (SPEC §5.44), and names the first break: `add` each row, then `finish`. Keeps one
 * record in memory, so a chain of any length costs constant memory; a reader can pass
 * on each row that `add` accepted (what `export` does).
 *
 * @example
 * ```ts
 * const check = auditChainCheck({ ends, keys })
 * for (const record of rows) if (await check.add(record)) break
 * const result = await check.finish()
 * ```
 */
export function auditChainCheck(options: AuditChainOptions): {
  add(record: AuditRecord): Promise<AuditFailure | undefined>
  finish(): Promise<AuditVerification>
} {
  const { keys, anchor } = options
  let ends = options.ends
  let last: AuditChainPoint | undefined = ends?.start
  let previousSequence = -Infinity
  let count = 0
  let unkeyed = 0
  let keyed = false
  let newer = false
  let first: AuditRecord | undefined
  let pruned: AuditRecord | undefined
  let failure: AuditFailure | undefined
  const fail = (at: number, reason: AuditBreak): AuditFailure => (failure = { ok: false, at, reason })

  return {
    async add(record) {
      if (failure !== undefined) return failure
      if (ends === null || last === undefined) return fail(record.sequence, 'head_missing')
      if (record.sequence === previousSequence || record.sequence <= ends.start.sequence) return fail(record.sequence, 'outside')
      previousSequence = record.sequence
      if (record.sequence > ends.head.sequence) {
        // Appended while the walk ran, or a stray: the head row says which.
        const now = options.reread === undefined ? ends : await options.reread()
        if (now === null) return fail(record.sequence, 'head_missing')
        if (record.sequence > now.head.sequence) return fail(record.sequence, 'outside')
        ends = { start: ends.start, head: now.head }
      }
      const problem = auditRecordProblem(record, keys)
      if (problem !== undefined) return fail(record.sequence, problem)
      if (downgraded(record, keyed, newer)) return fail(record.sequence, 'unkeyed')
      if (record.sequence !== last.sequence + 1) return fail(last.sequence + 1, 'removed')
      if (record.previousHash !== last.hash) {
        // The first kept record must follow the start; any later one the record before it.
        return last.sequence === ends.start.sequence ? fail(record.sequence, 'removed') : fail(last.sequence, 'changed')
      }
      if (record.sequence === ends.head.sequence && record.hash !== ends.head.hash) return fail(record.sequence, 'changed')
      if (record.sequence === anchor?.sequence && record.hash !== anchor.hash) return fail(record.sequence, 'changed')
      first ??= record
      if (record.action === 'audit.pruned') pruned = record
      if (record.keyId === null) unkeyed++
      else keyed = true
      if (record.version !== 1) newer = true
      last = { sequence: record.sequence, hash: record.hash }
      count++
      return undefined
    },

    async finish() {
      if (failure !== undefined) return failure
      if (ends === null || last === undefined) {
        // No head row and no row: an account without records, unless an anchor says it had
        // some, or its data says a write made them (SPEC §5.44: a lost head row is a break).
        if (anchor !== undefined && anchor.sequence > 0) return fail(1, 'tail_removed')
        if ((await options.written?.()) === true) return fail(1, 'head_missing')
        return { ok: true, records: 0, unkeyed: 0, head: { sequence: 0, hash: GENESIS_HASH } }
      }
      if (ends.head.sequence > last.sequence) return fail(last.sequence + 1, 'tail_removed')
      if (!startExplained(ends.start, pruned, first)) return fail(ends.start.sequence, 'start_moved')
      if (anchor !== undefined) {
        if (anchor.sequence > last.sequence) return fail(last.sequence + 1, 'tail_removed')
        if (anchor.sequence === ends.start.sequence && anchor.hash !== ends.start.hash) return fail(anchor.sequence, 'changed')
        // Pruned away: only a prune record may account for it.
        if (anchor.sequence < ends.start.sequence && !pruneExplains(pruned, ends.start)) return fail(anchor.sequence, 'start_moved')
      }
      return { ok: true, records: count, unkeyed, head: last }
    },
  }
}

/**
 * Walks an account's rows, oldest first (every row, not only those after the chain's
 * start), and names the first break (RFC 6962's idea, one link per record): each record
 * must match its hash under its key, follow the one before by sequence and repeat its
 * hash, lie inside the chain's ends, and keep its keys (no plain record after a keyed
 * one). The start must be accounted for by a prune record, and an anchor must still be
 * in the chain or covered by one. See {@link AuditBreak}.
 *
 * @example
 * ```ts
 * const result = await verifyAuditChain(rows, { ends, keys: auditKeyring([{ id: 'a1', key }]) })
 * if (!result.ok) console.error(`record ${result.at}: ${result.reason}`)
 * ```
 */
export async function verifyAuditChain(records: AsyncIterable<AuditRecord>, options: AuditChainOptions): Promise<AuditVerification> {
  const check = auditChainCheck(options)
  for await (const record of records) if ((await check.add(record)) !== undefined) break
  return check.finish()
}
