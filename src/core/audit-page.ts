import type { AuditRecord } from './audit'
import { auditRecordProblem, type AuditBreak, type AuditChainEnds, type AuditFailure } from './audit-chain'
import type { AuditKeyring } from './audit-keys'
import { GENESIS_HASH } from './audit'

/**
 * One page of an account's chain for reading, and what vouches for it, as a store reads
 * them together (one consistent read): the head row, the page (newest first, only rows
 * inside the chain's ends), the first row outside them, the head's and the first kept
 * record, and the newest prune record.
 *
 * @example
 * ```ts
 * const listing = await store.audit!.list('acc_1', { limit: 51 })
 * const failure = vouchAuditPage(listing, keys) // undefined: every record shown is vouched for
 * ```
 */
export interface AuditListing {
  /** The head row; `null` when the account has none. */
  readonly ends: AuditChainEnds | null
  /** The page: records with start < sequence ≤ head that match the query, newest first. */
  readonly records: readonly AuditRecord[]
  /** The sequence of a row at or below the start or past the head (any row when there is no head row); `null`: none. */
  readonly stray: number | null
  /** The record at the head's sequence; `null` when none (or no head row). */
  readonly head: AuditRecord | null
  /** The record right after the start; `null` when none (or no head row). */
  readonly first: AuditRecord | null
  /** The newest `audit.pruned` record after the start, when the start is not the genesis; else `null`. */
  readonly pruned: AuditRecord | null
}

/**
 * Where an unfiltered page of the chain lies, so that a record missing inside it shows:
 * the page read below `after` (none: from the head), at most `limit` records.
 */
export interface AuditPageSpan {
  /** The cursor the page was read below; `undefined`: the first page, from the head. */
  readonly after: number | undefined
  /** How many records the page was read with at most. */
  readonly limit: number
}

/**
 * Whether a page may be shown (SPEC §5.44: list never shows a record that verification
 * would not vouch for): the account has its head row and no row outside its chain; the
 * head row's record and the record after the start are there and link to the ends; the
 * start is accounted for by the newest prune record (or is one from before audit keys);
 * and every record of the page matches its hash under a configured key, links to its
 * neighbour on the page, and comes after no keyed record while plain itself. A page read
 * without a filter (`span`) holds every sequence from its first to its last, and reaches
 * the record after the start when it is short: a record missing there is `removed`
 * (verification stops before the records after it). Answers the first failure found, or
 * `undefined`. Reads nothing: a page costs what its records cost, whatever the length of
 * the chain; what only the whole chain shows (a record changed or removed outside the
 * page) is `verify`'s to find.
 *
 * @example
 * ```ts
 * const failure = vouchAuditPage(listing, keys, { after: undefined, limit: 51 })
 * if (failure !== undefined) throw new AuditChainBrokenError(failure.at, failure.reason)
 * ```
 */
export function vouchAuditPage(listing: AuditListing, keys: AuditKeyring, span?: AuditPageSpan): AuditFailure | undefined {
  const fail = (at: number, reason: AuditBreak): AuditFailure => ({ ok: false, at, reason })
  const { ends, head, first, pruned } = listing
  if (ends === null) return listing.stray === null ? undefined : fail(listing.stray, 'head_missing')
  if (listing.stray !== null) return fail(listing.stray, 'outside')
  const { start } = ends
  if (ends.head.sequence > start.sequence) {
    if (head === null) return fail(ends.head.sequence, 'tail_removed')
    if (first?.previousHash !== start.hash) return fail(start.sequence + 1, 'removed')
  }
  const shown = [...listing.records, ...[head, first, pruned].filter((record) => record !== null)]
  for (const record of shown) {
    const problem = auditRecordProblem(record, keys)
    if (problem !== undefined) return fail(record.sequence, problem)
  }
  if (head !== null && head.hash !== ends.head.hash) return fail(head.sequence, 'changed')
  const isGenesis = start.sequence === 0 && start.hash === GENESIS_HASH
  const { through, lastHash } = pruned?.changes ?? {}
  if (!isGenesis && !(through?.after === start.sequence && lastHash?.after === start.hash) && first?.version !== 1) {
    return fail(start.sequence, 'start_moved')
  }
  const page = listing.records
  for (let i = 1; i < page.length; i++) {
    const [newer, older] = [page[i - 1]!, page[i]!]
    if (newer.sequence === older.sequence) return fail(older.sequence, 'outside')
    if (newer.sequence === older.sequence + 1 && newer.previousHash !== older.hash) return fail(older.sequence, 'changed')
    if (span !== undefined && newer.sequence !== older.sequence + 1) return fail(older.sequence + 1, 'removed')
  }
  const gap = span === undefined ? undefined : pageGap(page, ends, span)
  if (gap !== undefined) return fail(gap, 'removed')
  // A plain record after a keyed one (or of the old encoding after a newer one) is a downgrade.
  const firstKeyed = Math.min(...shown.filter((record) => record.keyId !== null).map((record) => record.sequence))
  const firstNewer = Math.min(...shown.filter((record) => record.version !== 1).map((record) => record.sequence))
  for (const record of listing.records) {
    if (record.keyId === null && (record.sequence > firstKeyed || (record.version === 1 && record.sequence > firstNewer))) {
      return fail(record.sequence, 'unkeyed')
    }
  }
  return undefined
}

/**
 * The first sequence an unfiltered page should hold and does not, at its ends: its newest
 * record is the head (or the one right below the cursor), and a short page ends at the
 * record after the start. Records inside the page are checked by their neighbours.
 */
function pageGap(page: readonly AuditRecord[], ends: AuditChainEnds, span: AuditPageSpan): number | undefined {
  const top = Math.min(ends.head.sequence, span.after === undefined ? ends.head.sequence : span.after - 1)
  if (top <= ends.start.sequence) return undefined
  if (page[0]?.sequence !== top) return top
  const oldest = page[page.length - 1]!
  if (page.length < span.limit && oldest.sequence !== ends.start.sequence + 1) return oldest.sequence - 1
  return undefined
}
