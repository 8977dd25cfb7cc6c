import type { AuditAction, AuditEntry, AuditRecord, AuditRecordFilter, AuditSigner } from '../core/audit'
import type { AuditChainEnds, AuditChainPoint } from '../core/audit-chain'
import type { AuditListing } from '../core/audit-page'

export type { AuditAction, AuditEntry, AuditRecord, AuditChainEnds, AuditChainPoint, AuditListing, AuditSigner }

/**
 * A record a write hands the store: the entry and what signs it (SPEC §5.44). The store
 * places the entry after its account's chain head, inside the change's transaction,
 * and signs it there, in the process: the key never reaches the database.
 *
 * @example
 * ```ts
 * await store.audit!.append({ entry, signer })
 * ```
 */
export interface AuditAppend {
  /** The record's content; a store that reads part of it from the row it changes replaces that part. */
  readonly entry: AuditEntry
  /** Places the entry after its account's head and signs it: `signer.chain(entry, head)`. */
  readonly signer: AuditSigner
}

/**
 * Which records {@link AuditLog.list} reads: one account's, newest first, below a
 * sequence, matching every filter given.
 *
 * @example
 * ```ts
 * const listing = await store.audit!.list('acc_1', { limit: 50, actions: ['passcode.rotated'] })
 * ```
 */
export interface AuditQuery extends AuditRecordFilter {
  /** Continue below this sequence (a cursor). */
  readonly after?: number
  /** At most this many records. */
  readonly limit: number
}

/**
 * The audit trail's storage (SPEC §5.40, §5.44). Records of changes are written by the
 * store's write methods themselves, in the change's transaction (their
 * trailing `audit` argument); `append` is for actions that change nothing stored (a
 * reveal, a failed notification). Appends to one account are serialised, so the
 * account's chain never forks, across processes too.
 *
 * @example
 * ```ts
 * const rows = await store.audit!.records('acc_1', { limit: 1000 })
 * ```
 */
export interface AuditLog {
  /** Appends one record to its account's chain and returns it as stored. */
  append(append: AuditAppend): Promise<AuditRecord>
  /**
   * One page for reading, newest first, only within the chain's ends, with what vouches
   * for it (see {@link AuditListing}), all in one consistent read.
   */
  list(accountId: string, query: AuditQuery): Promise<AuditListing>
  /**
   * Every row of the account, whatever its sequence (below the start and past the head
   * too), in sequence order from `from` (inclusive), at most `limit`: what verification
   * reads.
   */
  records(accountId: string, range: { readonly from?: number; readonly limit: number }): Promise<AuditRecord[]>
  /** Both ends of the account's chain; `null` when it has no head row. */
  ends(accountId: string): Promise<AuditChainEnds | null>
  /**
   * Deletes, in every account, the kept records up to (by sequence) the newest one older
   * than `before` (epoch ms), moves the chain's `start` to the last one deleted and
   * appends an `audit.pruned` record at `record.at`, signed by `record.signer`, that
   * says how many went, up to which sequence and that record's hash, all in one
   * transaction per account. Resolves how many records went.
   */
  prune(before: number, record: { readonly at: number; readonly signer: AuditSigner }): Promise<number>
}
