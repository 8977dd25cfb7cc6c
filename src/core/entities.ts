import type { CreditsSetting, RateLimitSetting, StoredCredits } from './limits'
import type { PasscodeStatus } from './status'

/**
 * A JSON value, as a passcode's metadata holds it (SPEC §5.51).
 *
 * @example
 * ```ts
 * const value: JsonValue = { plan: 'gold', seats: [1, 2] }
 * ```
 */
export type JsonValue = string | number | boolean | null | readonly JsonValue[] | { readonly [key: string]: JsonValue }

/**
 * A passcode's metadata (SPEC §5.51): a JSON object of at most 1 KiB as JSON, the host's
 * own data (a plan, a customer id), returned on the principal.
 *
 * @example
 * ```ts
 * const metadata: PasscodeMetadata = { customerId: 'cus_42', plan: 'gold' }
 * ```
 */
export type PasscodeMetadata = Readonly<Record<string, JsonValue>>

/**
 * A rule of an account's policy (SPEC §5.52, `AccountPolicy` in core/policy.ts), as a refusal and a view name it.
 *
 * @example
 * ```ts
 * const rule: PolicyRule = 'requireExpiry'
 * ```
 */
export type PolicyRule = 'maxLifetimeDays' | 'requireExpiry' | 'requireDescription'

/** How long an account passcode lives: whole days (1 to 3650) or `'forever'`. */
export type AccountPasscodeExpiry = number | 'forever'

/**
 * How long a user passcode lives: `finite` for 1 to 365 days, or `infinite`, which is
 * 10 calendar years (UTC) from grant or reset.
 */
export type UserPasscodeValidity =
  | {
      /** A fixed number of days. */
      readonly type: 'finite'
      /** Whole days, 1 to 365, counted from the grant or the last reset. */
      readonly days: number
    }
  | {
      /** 10 calendar years (UTC) from the grant or the last reset. */
      readonly type: 'infinite'
    }

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
  /** The HTTP request's ID, when the action came over HTTP: kept in the audit record (SPEC §5.40). */
  readonly requestId?: string
  /** The client's address, when known: kept in the audit record (SPEC §5.40). */
  readonly clientAddress?: string
}

/**
 * The authenticated caller, attached to the request by the middleware (SPEC §5.17).
 * An account passcode bound to partners (SPEC §5.25) carries their names as
 * `partners` (trimmed, lower-cased); an unbound one has no `partners` field.
 */
export type Principal =
  | {
      /** The account the credentials belong to (the `X-Service-Account-Id` value). */
      readonly accountId: string
      /** Authenticated with an account passcode. */
      readonly kind: 'account'
      /** The ID of the passcode that matched. */
      readonly passcodeId: string
      /** Its name, as the admin gave it. */
      readonly passcodeName: string
      /** The partners this passcode is bound to; absent when it is unbound. */
      readonly partners?: readonly string[]
      /** The scopes it grants (SPEC §5.48), when the host declares scopes; absent otherwise. */
      readonly scopes?: readonly string[]
      /** Its metadata (SPEC §5.51); absent when it has none. */
      readonly metadata?: PasscodeMetadata
      /** Limits and credits (SPEC §5.50): the credits left after this request, where the passcode has credits. */
      readonly credits?: PrincipalCredits
    }
  | {
      /** The account the credentials belong to (the `X-Service-Account-Id` value). */
      readonly accountId: string
      /** Authenticated with a user passcode. */
      readonly kind: 'user'
      /** The user whose passcode matched. */
      readonly userId: string
      /** The scopes it grants (SPEC §5.48), when the host declares scopes; absent otherwise. */
      readonly scopes?: readonly string[]
      /** Limits and credits (SPEC §5.50): the credits left after this request, where the passcode has credits. */
      readonly credits?: PrincipalCredits
    }

/**
 * A principal's credits (SPEC §5.50): what is left after the request it authenticated,
 * as the instance that admitted it knows it (the store's balance at its last lease plus
 * what this instance still holds; other instances' unspent leases count as spent).
 *
 * @example
 * ```ts
 * if (principal.credits !== undefined && principal.credits.remaining < 10) res.setHeader('x-credits-low', '1')
 * ```
 */
export interface PrincipalCredits {
  /** Credits left, 0 or more. */
  readonly remaining: number
}

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

/** What management operations return for an account passcode. */
export interface PasscodeView {
  /** The passcode's ID, for edit, rotate and delete. */
  readonly id: string
  /** The account it belongs to. */
  readonly accountId: string
  /** Its name ("Passcode Name" in the dashboard), unique within the account. */
  readonly name: string
  /** Prefix and last 4 characters, for example `psc_…x9Qz`. */
  readonly hint: string
  /** The expiry as chosen: days (counted from creation or the last edit) or `'forever'`. */
  readonly expiry: AccountPasscodeExpiry
  /** When it was created. */
  readonly createdAt: Date
  /** When it was last edited or rotated. */
  readonly updatedAt: Date
  /** When it expires; `null` for `'forever'`. */
  readonly expiresAt: Date | null
  /**
   * `active`, `expiring_soon` (30 days or fewer left) or `expired`, at the time of the
   * call; `disabled` while it is disabled, whatever its expiry (SPEC §5.38).
   */
  readonly status: PasscodeStatus
  /** When it was disabled; `null` while enabled. */
  readonly disabledAt: Date | null
  /** What it is for (SPEC §5.39): up to 500 characters, newlines kept; `''` when none. */
  readonly description: string
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
  /**
   * When the passcode last authenticated successfully (recorded about once a minute);
   * `null` if never (SPEC §5.27). A refused request, a `/v1/connect` refused for its
   * partner included, is no use (SPEC §5.46).
   */
  readonly lastUsedAt: Date | null
  /** The partner of that same request, a `/v1/connect` that reached it; `null` when it had none (a protected route) or never used. */
  readonly lastUsedPartner: string | null
  /** `true` when never used, or not used for 90 days: a candidate for deletion. */
  readonly unused: boolean
  /**
   * Where its value was found in public (SPEC §5.42): set by a confirmed leak report,
   * `null` once an admin enables, rotates or deletes it (or when it never leaked).
   */
  readonly leak: PasscodeLeak | null
  // Restricted passcodes (SPEC §5.48, §5.49, §5.51, §5.52).
  /** The scopes it was given (SPEC §5.48); `null`: every scope the host declares. */
  readonly scopes: readonly string[] | null
  /** Those of `scopes` the host no longer declares: they grant nothing. */
  readonly unknownScopes: readonly string[]
  /** The CIDR ranges it may be used from (SPEC §5.49); empty: any address. */
  readonly allowedAddresses: readonly string[]
  /** The host's own data about it (SPEC §5.51), returned on the principal; `null` when none. */
  readonly metadata: PasscodeMetadata | null
  /** Its tags (SPEC §5.51), lower case; empty when none. */
  readonly tags: readonly string[]
  /** The rules of the account's policy it breaks (SPEC §5.52): made before the policy, it keeps working. Empty when none. */
  readonly policyViolations: readonly PolicyRule[]
  /** Whether it breaks the account's policy (`policyViolations` is not empty). */
  readonly violatesPolicy: boolean
  // Limits and credits (SPEC §5.50).
  /** Its rate limit; `null` for none. */
  readonly rateLimit: RateLimitSetting | null
  /** Its credits and their refill; `null` for none. */
  readonly credits: CreditsView | null
}

/**
 * Credits as a view shows them (SPEC §5.50): the balance the store holds now and how it
 * refills. Instances lease credits in blocks and return what they leave unspent within
 * seconds of going quiet, so `remaining` is exact for a passcode at rest and, while one
 * is in use, short by at most what the instances hold.
 *
 * @example
 * ```ts
 * const low = (await auth.passcodes.list(actor, 'acc_1')).filter((view) => view.credits !== null && view.credits.remaining < 100)
 * ```
 */
export interface CreditsView extends CreditsSetting {
  /** When the next refill sets the balance to `refill.amount`; `null` without a refill. */
  readonly nextRefillAt: Date | null
}

/**
 * A leak of an account or user passcode as its view shows it (SPEC §5.42): when and where it was found. Never the value.
 *
 * @example
 * ```ts
 * const leaked = (await auth.passcodes.list(actor, 'acc_1')).filter((view) => view.leak !== null)
 * for (const { name, leak } of leaked) console.log(name, leak!.source, leak!.url)
 * ```
 */
export interface PasscodeLeak {
  /** When the leak was reported. */
  readonly reportedAt: Date
  /** Where it was found (a URL), when the report said. */
  readonly url: string | null
  /** Who found it: `github`, a scanner, `support ticket 123`. */
  readonly source: string
}

/**
 * What management operations return for a user passcode.
 *
 * @example
 * ```ts
 * const view = await auth.userPasscodes.get(actor, 'acc_1', 'user_7')
 * if (view?.leak) console.log(`found in public by ${view.leak.source}: grant user_7 a new passcode`)
 * ```
 */
export interface UserPasscodeView {
  /** The account the user belongs to. */
  readonly accountId: string
  /** The user the passcode was granted to. */
  readonly userId: string
  /** Prefix and last 4 characters of the value. */
  readonly hint: string
  /** The validity chosen at grant, kept by resets. */
  readonly validity: UserPasscodeValidity
  /** The grant or the last reset. */
  readonly grantedAt: Date
  /** When it expires. */
  readonly expiresAt: Date
  /** When it was revoked; `null` while not revoked. */
  readonly revokedAt: Date | null
  /** `active`, `expiring_soon`, `expired` or `revoked`, at the time of the call. */
  readonly status: PasscodeStatus
  /**
   * When the passcode last authenticated successfully (recorded about once a minute);
   * `null` if never (SPEC §5.27). A refused request, a `/v1/connect` refused for its
   * partner included, is no use (SPEC §5.46).
   */
  readonly lastUsedAt: Date | null
  /** The partner of that same request, a `/v1/connect` that reached it; `null` when it had none (a protected route) or never used. */
  readonly lastUsedPartner: string | null
  /** `true` when never used, or not used for 90 days. */
  readonly unused: boolean
  /**
   * Where its value was found in public (SPEC §5.42): set by a confirmed leak report,
   * which revokes it; `null` once an admin grants the user a new one or resets it (or
   * when it never leaked).
   */
  readonly leak: PasscodeLeak | null
  // Restricted passcodes (SPEC §5.48, §5.49, §5.52).
  /** The scopes it was given (SPEC §5.48); `null`: every scope the host declares. */
  readonly scopes: readonly string[] | null
  /** Those of `scopes` the host no longer declares: they grant nothing. */
  readonly unknownScopes: readonly string[]
  /** The CIDR ranges it may be used from (SPEC §5.49); empty: any address. */
  readonly allowedAddresses: readonly string[]
  /** The rules of the account's policy it breaks (SPEC §5.52); empty when none. */
  readonly policyViolations: readonly PolicyRule[]
  /** Whether it breaks the account's policy (`policyViolations` is not empty). */
  readonly violatesPolicy: boolean
  // Limits and credits (SPEC §5.50).
  /** Its rate limit; `null` for none. */
  readonly rateLimit: RateLimitSetting | null
  /** Its credits and their refill; `null` for none. */
  readonly credits: CreditsView | null
}
