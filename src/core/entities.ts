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

/** The authenticated caller, attached to the request by the middleware (SPEC §5.17). */
export type Principal =
  | { readonly accountId: string; readonly kind: 'account'; readonly passcodeId: string; readonly passcodeName: string }
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
}
