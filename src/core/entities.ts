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
