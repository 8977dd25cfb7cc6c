import type { PasscodeStatus } from './status'

/** How long an account passcode lives: whole days (1 to 3650) or `'forever'`. */
export type AccountPasscodeExpiry = number | 'forever'

/**
 * How long a user passcode lives: `finite` for 1 to 365 days, or `infinite`, which is
 * 10 calendar years (UTC) from grant or reset.
 */
export type UserPasscodeValidity = { readonly type: 'finite'; readonly days: number } | { readonly type: 'infinite' }

/** Which passcodes an account accepts on its API (SPEC §5.11). */
export type AcceptedPasscodes = 'account' | 'user' | 'both'

/** Who performs a management operation. */
export interface Actor {
  /** The acting user's ID. */
  readonly userId: string
  /** `admin` may do everything; a `member` needs `canWriteUserSettings` for account passcodes. */
  readonly role: 'admin' | 'member'
  /** Whether the member has write access to the User Settings page. @default false */
  readonly canWriteUserSettings?: boolean
}

/**
 * The authenticated caller, attached to the request by the middleware (SPEC §5.17).
 * An account passcode bound to partners (SPEC §5.25) carries their names as
 * `partners` (trimmed, lower-cased); an unbound one has no `partners` field.
 */
export type Principal =
  | {
      readonly accountId: string
      readonly kind: 'account'
      readonly passcodeId: string
      readonly passcodeName: string
      /** The partners this passcode is bound to; absent when it is unbound. */
      readonly partners?: readonly string[]
    }
  | { readonly accountId: string; readonly kind: 'user'; readonly userId: string }

/** An account passcode as stored: the hash and the hint, never the value. */
export interface AccountPasscodeRecord {
  readonly id: string
  readonly accountId: string
  readonly name: string
  /** The name trimmed and lower-cased: what uniqueness is checked on. */
  readonly nameKey: string
  readonly hash: string
  readonly hint: string
  readonly expiry: AccountPasscodeExpiry
  readonly createdAt: number
  readonly updatedAt: number
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
  /** When the passcode last authenticated, as recorded by the usage flushes (SPEC §5.27). */
  readonly lastUsedAt: number | null
  /** The partner of the last recorded `/v1/connect` with it. */
  readonly lastUsedPartner: string | null
}

/** A user passcode as stored: the hash and the value encrypted as a JWE. */
export interface UserPasscodeRecord {
  readonly accountId: string
  readonly userId: string
  readonly hash: string
  /** Compact JWE (`dir` + `A256GCM`) of the value; the header's `kid` names the key. */
  readonly ciphertext: string
  readonly hint: string
  readonly validity: UserPasscodeValidity
  readonly grantedAt: number
  readonly expiresAt: number
  readonly revokedAt: number | null
  /** When the passcode last authenticated, as recorded by the usage flushes (SPEC §5.27). */
  readonly lastUsedAt: number | null
  /** The partner of the last recorded `/v1/connect` with it. */
  readonly lastUsedPartner: string | null
}

/** What management operations return for an account passcode. */
export interface PasscodeView {
  readonly id: string
  readonly accountId: string
  readonly name: string
  /** Prefix and last 4 characters, for example `psc_…x9Qz`. */
  readonly hint: string
  readonly expiry: AccountPasscodeExpiry
  readonly createdAt: Date
  readonly updatedAt: Date
  readonly expiresAt: Date | null
  readonly status: PasscodeStatus
  /**
   * The partners this passcode is bound to (trimmed, lower-cased), or `null` when it
   * works for every whitelisted partner (SPEC §5.25).
   */
  readonly partners: readonly string[] | null
  /**
   * Bound partners that are no longer whitelisted. When it holds every bound partner,
   * the passcode succeeds on `/v1/connect` for no partner at all. Empty when unbound.
   */
  readonly partnersNotWhitelisted: readonly string[]
  /** Until when the value replaced by the last rotation still works; `null` when it no longer does (SPEC §5.26). */
  readonly previousValueEndsAt: Date | null
  /** When the passcode last authenticated (recorded about once a minute); `null` if never (SPEC §5.27). */
  readonly lastUsedAt: Date | null
  /** The partner of its last recorded `/v1/connect`; `null` if none. */
  readonly lastUsedPartner: string | null
  /** `true` when never used, or not used for 90 days: a candidate for deletion. */
  readonly unused: boolean
}

/** What management operations return for a user passcode. */
export interface UserPasscodeView {
  readonly accountId: string
  readonly userId: string
  readonly hint: string
  readonly validity: UserPasscodeValidity
  readonly grantedAt: Date
  readonly expiresAt: Date
  readonly revokedAt: Date | null
  readonly status: PasscodeStatus
  /** When the passcode last authenticated (recorded about once a minute); `null` if never (SPEC §5.27). */
  readonly lastUsedAt: Date | null
  /** The partner of its last recorded `/v1/connect`; `null` if none. */
  readonly lastUsedPartner: string | null
  /** `true` when never used, or not used for 90 days. */
  readonly unused: boolean
}
