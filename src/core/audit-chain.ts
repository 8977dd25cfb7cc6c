import { auditRecordHash, type AuditRecord } from './audit'

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
 * Why a chain does not verify, at the first record concerned:
 * `changed` (a record's content no longer matches its hash, or a record was rewritten
 * with a hash of its own that the next record does not repeat), `removed` (a record is
 * missing), `reordered` (records are not in the order they were appended),
 * `tail_removed` (the newest records are gone: the chain ends before the store's own
 * head or before the caller's anchor).
 *
 * @example
 * ```ts
 * const reason: AuditBreak = 'reordered'
 * ```
 */
export type AuditBreak = 'changed' | 'removed' | 'reordered' | 'tail_removed'

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
      /** The newest record's sequence and hash: keep the hash elsewhere as the next anchor. */
      readonly head: AuditChainPoint
    }
  | {
      /** The chain is broken. */
      readonly ok: false
      /** The sequence of the first record concerned (for `tail_removed`, the first one missing). */
      readonly at: number
      /** What is wrong there. */
      readonly reason: AuditBreak
    }

/**
 * Where a walk starts and what it must end at.
 *
 * @example
 * ```ts
 * const bounds: AuditChainBounds = { start: { sequence: 0, hash: '0'.repeat(64) }, anchor: keptHash }
 * ```
 */
export interface AuditChainBounds {
  /** The point before the oldest kept record: sequence 0 and the genesis hash, or the last pruned record. */
  readonly start: AuditChainPoint
  /** The newest record as the store's chain head said before the walk; `undefined` when the store keeps none. */
  readonly head?: AuditChainPoint | undefined
  /** A hash the operator kept elsewhere: the chain must still contain it (or start right after it). */
  readonly anchor?: string | undefined
}

/**
 * Walks an account's records, oldest first, and names the first break (RFC 6962's
 * idea, one link per record): each record must hash to its `hash`, follow the one
 * before by sequence and repeat its hash as `previousHash`. With a `head` or an
 * `anchor` it also sees a cut-off tail. Reads `records` once, keeping one record in
 * memory, so a chain of any length costs constant memory.
 *
 * @example
 * ```ts
 * const result = await verifyAuditChain(records, { start: { sequence: 0, hash: GENESIS_HASH } })
 * if (!result.ok) console.error(`record ${result.at}: ${result.reason}`)
 * ```
 */
export async function verifyAuditChain(records: AsyncIterable<AuditRecord>, bounds: AuditChainBounds): Promise<AuditVerification> {
  let last: AuditChainPoint = bounds.start
  let count = 0
  let anchored = bounds.anchor === undefined || bounds.anchor === bounds.start.hash
  const iterator = records[Symbol.asyncIterator]()
  const fail = (at: number, reason: AuditBreak): AuditVerification => ({ ok: false, at, reason })

  for (;;) {
    const next = await iterator.next()
    if (next.done === true) break
    const record = next.value
    if (auditRecordHash(record) !== record.hash) return fail(record.sequence, 'changed')
    if (record.sequence !== last.sequence + 1) return fail(last.sequence + 1, record.sequence > last.sequence ? 'removed' : 'reordered')
    if (record.previousHash !== last.hash) {
      // Is the record that should come here further on? Then rows were swapped.
      const wanted = last.hash
      for (;;) {
        const later = await iterator.next()
        if (later.done === true) break
        if (later.value.previousHash === wanted || later.value.hash === record.previousHash) return fail(record.sequence, 'reordered')
      }
      return last.sequence === bounds.start.sequence ? fail(record.sequence, 'removed') : fail(last.sequence, 'changed')
    }
    // Records appended after the head was read chain on from it, and are checked too.
    if (record.sequence === bounds.head?.sequence && record.hash !== bounds.head.hash) return fail(record.sequence, 'changed')
    last = { sequence: record.sequence, hash: record.hash }
    count++
    if (record.hash === bounds.anchor) anchored = true
  }

  if (bounds.head !== undefined && bounds.head.sequence > last.sequence) return fail(last.sequence + 1, 'tail_removed')
  if (!anchored) return fail(last.sequence + 1, 'tail_removed')
  return { ok: true, records: count, head: last }
}
