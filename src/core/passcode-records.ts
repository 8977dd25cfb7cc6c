import type { AccountPasscodeExpiry, PasscodeMetadata, UserPasscodeValidity } from './entities'
import type { RateLimitSetting, StoredCredits } from './limits'

// The passcodes as the store keeps them: hashes and hints, never values.

/** An account passcode as stored: the hash and the hint, never the value. */
export interface AccountPasscodeRecord {
  /** The passcode's ID, unique across accounts. */
  readonly id: string
  /** The account it belongs to. */
  readonly accountId: string
  /** Its name, NFC-normalised and trimmed, unique within the account. */
  readonly name: string
  /** The name trimmed and lower-cased: what uniqueness is checked on. */
  readonly nameKey: string
  /** Keyed hash of the value (HMAC-SHA256 with the pepper, SHA-256 without), the lookup key. */
  readonly hash: string
  /** Prefix and last 4 characters of the value, for display. */
  readonly hint: string
  /** The expiry as chosen: days (counted from creation or the last edit) or `'forever'`. */
  readonly expiry: AccountPasscodeExpiry
  /** Creation time, UTC milliseconds. */
  readonly createdAt: number
  /** Last edit or rotation, UTC milliseconds. */
  readonly updatedAt: number
  /** When it expires, UTC milliseconds; `null` for `'forever'`. */
  readonly expiresAt: number | null
  /**
   * Partner names (trimmed, lower-cased, sorted, no repeats) the passcode is bound to;
   * `null` when it is unbound (SPEC §5.25).
   */
  readonly partners: readonly string[] | null
  /** The hash of the value before the last rotation, while it may still verify (SPEC §5.26). */
  readonly previousHash: string | null
  /** When the previous value stops verifying; `null` when there is none. */
  readonly previousHashEndsAt: number | null
  /** When the passcode last authenticated successfully, as recorded by the usage flushes (SPEC §5.27, §5.46). */
  readonly lastUsedAt: number | null
  /** The partner of that same request: a `/v1/connect` that reached it; `null` for a route with no partner. */
  readonly lastUsedPartner: string | null
  /**
   * The id of the pepper that keyed `hash` (`pepperId()`, SPEC §5.28); absent or `null`
   * when unknown (a hash written before schema version 3).
   */
  readonly pepperId?: string | null
  /**
   * The id of the pepper that keyed `previousHash` (SPEC §5.47), for the pepper report:
   * the previous value is never re-hashed, so it keeps its pepper until its overlap ends.
   * Absent or `null` when there is no previous hash, or its pepper is unknown (a
   * rotation before schema version 13). Not read by the verification lookup.
   */
  readonly previousPepperId?: string | null
  /**
   * When it was disabled, UTC milliseconds; `null` while enabled (SPEC §5.38). A disabled
   * passcode keeps everything else and authenticates nowhere.
   */
  readonly disabledAt: number | null
  /**
   * Its current value was reported leaked (SPEC §5.45): set by a leak report that matched
   * it, kept through an enable and edits, cleared only by a rotation (a new value). A
   * rotation of a leaked value keeps no previous value. Absent or `false` when not, or in
   * a record of a store written before schema version 19.
   */
  readonly valueLeaked?: boolean
  /** What it is for (SPEC §5.39): NFC, 0 to 500 characters, newlines allowed; `''` when none. */
  readonly description: string
  // Restricted passcodes (SPEC §5.48, §5.49, §5.51). Absent in a record of a store
  // written before them: every scope, any address, no metadata, no tags.
  /** The scopes it grants: `null` or absent for every declared scope, else these (sorted, no repeats). */
  readonly scopes?: readonly string[] | null
  /** The CIDR ranges it may be used from, as stored (canonical text); `[]` or absent for any address. */
  readonly allowedAddresses?: readonly string[]
  /** The host's own data about it, returned on the principal; `null` or absent for none. */
  readonly metadata?: PasscodeMetadata | null
  /** Its tags (NFC, lower case, no repeats, in the order given); `[]` or absent for none. */
  readonly tags?: readonly string[]
  // Limits and credits (SPEC §5.50).
  /** Its rate limit; absent or `null` for none. */
  readonly rateLimit?: RateLimitSetting | null
  /** Its credits as last set (the balance is the store's counters'); absent or `null` for none. */
  readonly credits?: StoredCredits | null
}

/** A user passcode as stored: the hash and the value encrypted as a JWE. */
export interface UserPasscodeRecord {
  /** The account the user belongs to. */
  readonly accountId: string
  /** The user the passcode was granted to; one per user and account. */
  readonly userId: string
  /** Keyed hash of the value, as for account passcodes, the lookup key. */
  readonly hash: string
  /** Compact JWE (`dir` + `A256GCM`) of the value; the header's `kid` names the key. */
  readonly ciphertext: string
  /** Prefix and last 4 characters of the value, for display. */
  readonly hint: string
  /** The validity chosen at grant, kept by resets. */
  readonly validity: UserPasscodeValidity
  /** The grant or the last reset, UTC milliseconds. */
  readonly grantedAt: number
  /** When it expires, UTC milliseconds. */
  readonly expiresAt: number
  /** When it was revoked, UTC milliseconds; `null` while not revoked. */
  readonly revokedAt: number | null
  /** When the passcode last authenticated successfully, as recorded by the usage flushes (SPEC §5.27, §5.46). */
  readonly lastUsedAt: number | null
  /** The partner of that same request: a `/v1/connect` that reached it; `null` for a route with no partner. */
  readonly lastUsedPartner: string | null
  /**
   * The id of the pepper that keyed `hash` (`pepperId()`, SPEC §5.28); absent or `null`
   * when unknown (a hash written before schema version 3).
   */
  readonly pepperId?: string | null
  // Restricted passcodes (SPEC §5.48, §5.49); absent in a record of a store written before them.
  /** The scopes it grants: `null` or absent for every declared scope, else these (sorted, no repeats). */
  readonly scopes?: readonly string[] | null
  /** The CIDR ranges it may be used from (canonical text); `[]` or absent for any address. */
  readonly allowedAddresses?: readonly string[]
  // Limits and credits (SPEC §5.50).
  /** Its rate limit; absent or `null` for none. */
  readonly rateLimit?: RateLimitSetting | null
  /** Its credits as last set (the balance is the store's counters'); absent or `null` for none. */
  readonly credits?: StoredCredits | null
}
