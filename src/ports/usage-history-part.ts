/**
 * How a request with a credential ended, as usage over time counts it (SPEC §5.41):
 * a success, or a refusal that matched the credential (its expiry, its disabled or
 * revoked state, a partner it may not reach on `/v1/connect`, a value a rotation
 * replaced after its overlap ended, a scope its route needs that it lacks, or an
 * address outside its ranges).
 */
export type UsageOutcome =
  | 'succeeded'
  | 'expired'
  | 'disabled'
  | 'revoked'
  | 'wrong_partner'
  | 'rotated_out'
  // SPEC §5.48, §5.49: a valid credential without a scope its route needs, or from an address outside its ranges.
  | 'missing_scope'
  | 'address'
  // SPEC §5.50: the passcode's own rate limit and credits refused it (429).
  | 'rate_limited'
  | 'credits_exhausted'

/**
 * A number of requests of one credential on one UTC day with one outcome, as an
 * instance counted them since its last flush. Stores add `n` to what they hold.
 */
export interface UsageCount {
  /** `account` for an account passcode, `user` for a user passcode. */
  readonly kind: 'account' | 'user'
  /** The credential's account. */
  readonly accountId: string
  /** The passcode id (`account`) or the user id (`user`). */
  readonly key: string
  /** The UTC day, `YYYY-MM-DD`. */
  readonly day: string
  /** The partner (normalised) of a `/v1/connect`, `''` for any other request or an unknown partner. */
  readonly partner: string
  /** How the requests ended. */
  readonly outcome: UsageOutcome
  /** How many requests. */
  readonly n: number
}

/** Which credential's daily counts to read, from which UTC day on. */
export interface UsageQuery {
  /** `account` for an account passcode, `user` for a user passcode. */
  readonly kind: 'account' | 'user'
  /** The credential's account. */
  readonly accountId: string
  /** The passcode id (`account`) or the user id (`user`). */
  readonly key: string
  /** The first day to read, `YYYY-MM-DD`. */
  readonly from: string
}

/** One stored daily count, as `listUsageCounts` answers it. */
export interface StoredUsageCount {
  /** The UTC day, `YYYY-MM-DD`. */
  readonly day: string
  /** The partner of a `/v1/connect`, `''` for any other request. */
  readonly partner: string
  /** How the requests ended. */
  readonly outcome: UsageOutcome
  /** How many requests, from every instance. */
  readonly n: number
}

/**
 * Usage over time (SPEC §5.41), an optional part of {@link PasscodeStore}, all or
 * nothing: a store without it keeps no usage history.
 *
 * @example
 * ```ts
 * const history: UsageHistoryPart = memoryStore()
 * const days = await history.listUsageCounts({ kind: 'account', accountId: 'acc_1', key: passcodeId, from: '2026-01-01' })
 * ```
 */
export interface UsageHistoryPart {
  /**
   * Adds a batch of daily counts (SPEC §5.41) to the stored ones, in one write (one
   * `INSERT ... ON CONFLICT DO UPDATE SET n = n + excluded.n` in SQL), so counts from
   * many instances add up. Called by the same batched flush as `recordUsage`, never
   * on a request. Optional: a store without it keeps no usage history.
   */
  recordUsageCounts(counts: readonly UsageCount[]): Promise<void>
  /** One credential's daily counts from `query.from` on, oldest day first. Optional, with `recordUsageCounts`. */
  listUsageCounts(query: UsageQuery): Promise<StoredUsageCount[]>
  /**
   * Deletes at most `limit` daily counts of days before `before` (`YYYY-MM-DD`);
   * resolves how many it deleted, so that the caller repeats while it got `limit`.
   */
  pruneUsageCounts(before: string, limit: number): Promise<number>
}
