import type { AccountPasscodeExpiry, UserPasscodeValidity } from '../core/entities'
import type { CreditsSetting, RateLimitSetting } from '../core/limits'
import type { PasscodeMetadata } from '../core/entities'

// The inputs of the management operations, as the service's callers type them; input.ts
// checks them with its schemas.

/**
 * What a passcode may do and how much (SPEC §5.48–§5.50), the same for account and user
 * passcodes, at create, grant and edit. On an edit each takes effect at once on every
 * instance.
 *
 * @example
 * ```ts
 * const limits: PasscodeLimitsInput = { scopes: ['reports:read'], rateLimit: { max: 100, windowSeconds: 60 } }
 * await auth.userPasscodes.grant(actor, 'acc_1', 'user_7', { validity: { type: 'infinite' }, ...limits })
 * ```
 */
export interface PasscodeLimitsInput {
  /**
   * The scopes it grants (SPEC §5.48), each declared by the host's `scopes` option;
   * `null` or absent: every scope. `[]`: none (it still authenticates `/v1/connect` and
   * routes that need no scope).
   * @default null
   */
  readonly scopes?: readonly string[] | null
  /**
   * The addresses it may be used from (SPEC §5.49): up to 50 CIDR ranges, IPv4 or IPv6
   * (`203.0.113.0/24`, `2001:db8::/32`; one address is its /32 or /128), no host bits set.
   * @default [] (any address)
   */
  readonly allowedAddresses?: readonly string[]
  /**
   * At most `max` requests per window of `windowSeconds`, fleet-wide (SPEC §5.50); `null`:
   * none. On an edit `null` removes it, and a new window length starts a fresh window.
   * @default null (none)
   */
  readonly rateLimit?: RateLimitSetting | null
  /**
   * Credits: one per admitted request, refilled to `refill.amount` each UTC interval (SPEC
   * §5.50); `null`: none. On an edit `null` removes them, and the balance given is the one
   * from now on: credits leased before are void.
   * @default null (none)
   */
  readonly credits?: CreditsInput | null
}

/**
 * An account passcode's fields besides its name and expiry, the same at create and edit
 * (on an edit, the fields given replace the old ones).
 *
 * @example
 * ```ts
 * const fields: AccountPasscodeFieldsInput = { description: 'Nightly export', tags: ['export'] }
 * await auth.passcodes.update(actor, 'acc_1', passcodeId, fields)
 * ```
 */
export interface AccountPasscodeFieldsInput extends PasscodeLimitsInput {
  /**
   * Whitelisted partners the passcode works for on `/v1/connect` (compared trimmed and
   * case-insensitively); `null` or absent: every whitelisted partner. Never empty. On an
   * edit `null` unbinds it, at once on every instance.
   * @default null
   */
  readonly partners?: readonly string[] | null
  /**
   * What the passcode is for (SPEC §5.39): up to 500 characters after trimming, in NFC,
   * newlines allowed (`\r\n` is stored as `\n`), no other control character; `''` or
   * `null` removes it.
   * @default '' (none)
   */
  readonly description?: string | null
  /**
   * The host's own data (SPEC §5.51), returned on the principal: a JSON object of at most
   * 1 KiB as JSON; `null` removes it.
   * @default null (none)
   */
  readonly metadata?: PasscodeMetadata | null
  /**
   * Up to 20 tags (SPEC §5.51), 1 to 32 characters each (letters and digits, then also
   * `_ . : / @ + -`), stored in NFC and lower case; on an edit they replace the old ones.
   * @default []
   */
  readonly tags?: readonly string[]
}

/** Input of `passcodes.create`. */
export interface CreatePasscodeInput extends AccountPasscodeFieldsInput {
  /** 1 to 64 characters after trimming; unique in the account, case-insensitively. */
  readonly name: string
  /** Whole days (1 to 3650) or `'forever'`. */
  readonly expiry: AccountPasscodeExpiry
}

/**
 * Credits as given at create, edit or grant (SPEC §5.50): the balance from now on, 0 to
 * 10^12, and an optional refill.
 *
 * @example
 * ```ts
 * const credits: CreditsInput = { remaining: 1_000, refill: { amount: 1_000, interval: 'month' } }
 * ```
 */
export interface CreditsInput {
  /** The balance from now on, 0 to 10^12. */
  readonly remaining: number
  /** Sets the balance to `amount` at the start of each UTC `day`, ISO `week` or `month`. @default null (never) */
  readonly refill?: CreditsSetting['refill']
}

/** Input of `passcodes.update`: at least one field. */
export interface UpdatePasscodeInput extends AccountPasscodeFieldsInput {
  /** A new name, unique in the account. */
  readonly name?: string
  /** A new expiry, counted from the moment of the edit. */
  readonly expiry?: AccountPasscodeExpiry
}

/** Input of `passcodes.rotate`. */
export interface RotatePasscodeInput {
  /**
   * How long the value being replaced keeps working, in whole minutes: 0 (it stops at
   * once) to 10 080 (7 days). Required: there is no default overlap, except for a
   * passcode whose value was found in public (its view's `leak` is not `null`, SPEC
   * §5.45): a leaked value gets no overlap, so there it defaults to 0, and any other
   * number is refused with an `InvalidInputError` on `overlapMinutes` that says why.
   */
  readonly overlapMinutes?: number
}

/** Options of `passcodes.list`. */
export interface ListPasscodesOptions {
  /**
   * `createdAt`: oldest first. `lastUsedAt`: least recently used first, never-used
   * ones at the top (oldest created first among them), so unused passcodes stand out.
   * `creditsRemaining`: fewest credits left first (SPEC §5.50), passcodes without credits last.
   * @default 'createdAt'
   */
  readonly sortBy?: 'createdAt' | 'lastUsedAt' | 'creditsRemaining'
  /** Only passcodes carrying every one of these tags (SPEC §5.51), compared as stored (NFC, lower case). @default none */
  readonly tags?: readonly string[]
  /** Only passcodes whose name, description or a tag contains this text, case-insensitively. @default none */
  readonly search?: string
}

/** Input of `userPasscodes.grant`: the validity, and the scopes, addresses, rate limit and credits as for an account passcode. */
export interface GrantUserPasscodeInput extends PasscodeLimitsInput {
  /** `{ type: 'finite', days }` (1 to 365) or `{ type: 'infinite' }` (10 years). */
  readonly validity: UserPasscodeValidity
}

/**
 * Input of `accounts.setPolicy` (SPEC §5.52): the account's whole policy, which replaces
 * the host's default; a rule left out is off.
 *
 * @example
 * ```ts
 * const input: AccountPolicyInput = { maxLifetimeDays: 90, requireExpiry: true }
 * ```
 */
export interface AccountPolicyInput {
  /** The longest a passcode may live, in days (1 to 3650). @default null (no maximum) */
  readonly maxLifetimeDays?: number | null
  /** No account passcode without an expiry. @default false */
  readonly requireExpiry?: boolean
  /** No account passcode without a description. @default false */
  readonly requireDescription?: boolean
}
