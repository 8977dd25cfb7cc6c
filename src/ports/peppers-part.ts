/**
 * A credential that verified under an older pepper (or under an unknown one), to be
 * stored again under the current pepper (SPEC §5.28): `fromHash` is the hash that
 * matched, `toHash` the current pepper's (the same when only the id was unknown).
 *
 * @example
 * ```ts
 * const moved = await store.rehashCredential?.(rehash) // false when the credential changed meanwhile
 * ```
 */
export interface Rehash {
  /** An account passcode or a user passcode. */
  readonly kind: 'account' | 'user'
  /** The account the credential belongs to. */
  readonly accountId: string
  /** The passcode ID (`account`) or the user ID (`user`). */
  readonly id: string
  /** The stored hash that matched; the row moves only while it still holds this one. */
  readonly fromHash: string
  /** The hash under the current pepper. */
  readonly toHash: string
  /** The current pepper's id, stored beside the new hash. */
  readonly pepperId: string
}

/**
 * Pepper rotation (SPEC §5.28), an optional part of {@link PasscodeStore}, all or
 * nothing: without it, hashes stay under the pepper that made them and nothing counts
 * them. A store that has it and is shared by instances of a fleet has the
 * {@link HashesLookupPart} too, or answers each read with every write that finished
 * before it started.
 *
 * @example
 * ```ts
 * const peppers: PeppersPart = memoryStore()
 * const byPepper = await peppers.countHashesByPepper(Date.now()) // Map { 'p2' => 10, null => 3 }
 * ```
 */
export interface PeppersPart {
  /**
   * Stores a credential's hash again under the current pepper (SPEC §5.28), only if its
   * hash is still `fromHash` (a concurrent reset or rotation wins); `true` when written.
   * No invalidation: the credential and its value are unchanged. Optional: without it,
   * hashes stay under the pepper that made them. A store that has it and is shared by
   * instances of a fleet implements `findCredentialsByHashes` too, or
   * answers each read with every write that finished before it started (see there).
   */
  rehashCredential(rehash: Rehash): Promise<boolean>
  /**
   * How many stored hashes (account and user passcodes, not deleted) each pepper id
   * keys at `now`: each current hash, and the previous hash of a rotation whose overlap
   * has not ended at `now` (`previousHashEndsAt`), under the pepper that keyed it
   * (`previousPepperId`, SPEC §5.47); hashes whose pepper is unknown are counted under
   * `null`. Optional. It counts every hash, so its cost grows with the tables (on
   * PostgreSQL one read of each table: about 5 s at 10 million passcodes): for a pepper
   * rotation, not for a schedule.
   */
  countHashesByPepper(now: number): Promise<ReadonlyMap<string | null, number>>
}
