/**
 * One passcode's recent use, as an instance batches it (SPEC §5.27): the latest
 * instant it authenticated and, when that batch saw a `/v1/connect`, the partner of
 * the latest one.
 */
export type UsageEntry =
  | {
      /** An account passcode was used. */
      readonly kind: 'account'
      /** Its account. */
      readonly accountId: string
      /** The passcode. */
      readonly passcodeId: string
      /** The latest use in the batch, UTC milliseconds. */
      readonly at: number
      /** The partner of that use when it was a `/v1/connect`, else `null`. */
      readonly partner: string | null
    }
  | {
      /** A user passcode was used. */
      readonly kind: 'user'
      /** Its account. */
      readonly accountId: string
      /** The user. */
      readonly userId: string
      /** The latest use in the batch, UTC milliseconds. */
      readonly at: number
      /** The partner of that use when it was a `/v1/connect`, else `null`. */
      readonly partner: string | null
    }

/**
 * Last use (SPEC §5.27), a required part of {@link PasscodeStore}.
 *
 * @example
 * ```ts
 * const usage: UsagePart = memoryStore()
 * await usage.recordUsage([{ kind: 'account', accountId: 'acc_1', passcodeId, at: Date.now(), partner: null }])
 * ```
 */
export interface UsagePart {
  /**
   * Records a batch of uses in one write (one statement in SQL): for each entry whose
   * instant is later than the stored `lastUsedAt`, sets it and `lastUsedPartner` to the
   * entry's partner, `null` included: the pair comes from one request (SPEC §5.46), so a
   * use with no partner clears the one before. Entries of deleted passcodes are skipped. Publishes nothing: usage
   * never invalidates a cache. Resolves how many passcodes were written.
   */
  recordUsage(entries: readonly UsageEntry[]): Promise<number>
}
