import type { AuditAction, AuditEntry, AuditRecord } from '../core/audit'
import type { AuditChainPoint } from '../core/audit-chain'

export type { AuditAction, AuditEntry, AuditRecord, AuditChainPoint }

/**
 * Which records {@link AuditLog.list} reads: one account's, in sequence order, after a
 * sequence (exclusive, in the order's direction), matching every filter given.
 *
 * @example
 * ```ts
 * const page = await store.audit!.list('acc_1', { order: 'newest', limit: 50, actions: ['passcode.rotated'] })
 * ```
 */
export interface AuditQuery {
  /** `newest` first (the reading order) or `oldest` first (verification, export). */
  readonly order: 'newest' | 'oldest'
  /** Continue after this sequence: below it for `newest`, above it for `oldest`. */
  readonly after?: number
  /** Only these actions. */
  readonly actions?: readonly AuditAction[]
  /** Only records about this passcode ID or user ID. */
  readonly targetId?: string
  /** Only records of actions this user did, in any role (never the system's). */
  readonly actorUserId?: string
  /** Only records at or after this instant (epoch milliseconds). */
  readonly from?: number
  /** Only records before this instant (epoch milliseconds). */
  readonly to?: number
  /** At most this many records. */
  readonly limit: number
}

/**
 * Both ends of an account's chain as the store keeps them: `start`, the point before
 * the oldest kept record (sequence 0 and the genesis hash until a prune, then the last
 * pruned record), and `head`, the newest record.
 *
 * @example
 * ```ts
 * const { head } = await store.audit!.ends('acc_1') // keep head.hash elsewhere as an anchor
 * ```
 */
export interface AuditChainEnds {
  /** The point before the oldest kept record. */
  readonly start: AuditChainPoint
  /** The newest record (equal to `start` when no record is kept). */
  readonly head: AuditChainPoint
}

/**
 * The audit trail's storage (SPEC §5.40). Records of changes are written by the
 * store's write methods themselves, in the change's transaction (their optional
 * trailing `audit` argument); `append` is for actions that change nothing stored (a
 * reveal, a failed notification). Appends to one account are serialised, so the
 * account's chain never forks, across processes too.
 *
 * @example
 * ```ts
 * const records = await store.audit!.list('acc_1', { order: 'oldest', limit: 1000 })
 * ```
 */
export interface AuditLog {
  /** Appends one record to its account's chain and returns it as stored. */
  append(entry: AuditEntry): Promise<AuditRecord>
  /** One page of an account's records (see {@link AuditQuery}). */
  list(accountId: string, query: AuditQuery): Promise<AuditRecord[]>
  /** Both ends of the account's chain. */
  ends(accountId: string): Promise<AuditChainEnds>
  /**
   * Deletes, in every account, the records up to (by sequence) the newest one older than
   * `before` (epoch ms), and moves the chain's `start` to the last one deleted, in the
   * same transaction, so the chain still verifies from its oldest kept record. Resolves
   * how many records went.
   */
  prune(before: number): Promise<number>
}
