import type { AccountPasscodeExpiry, PasscodeMetadata, PolicyRule, UserPasscodeValidity } from './entities'
import type { CreditsSetting, RateLimitSetting } from './limits'
import type { PasscodeStatus } from './status'

// The passcodes as management operations return them.

/**
 * How a passcode, account or user, was last used (SPEC §5.27, §5.46).
 *
 * @example
 * ```ts
 * const stale = (await auth.passcodes.list(actor, 'acc_1')).filter((view: PasscodeUseView) => view.unused)
 * ```
 */
export interface PasscodeUseView {
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
}

/**
 * What a passcode, account or user, may do and how much (SPEC §5.48–§5.50), and the
 * account's policy rules it breaks (§5.52).
 *
 * @example
 * ```ts
 * const outdated = (await auth.passcodes.list(actor, 'acc_1')).filter((view: PasscodeLimitsView) => view.unknownScopes.length > 0)
 * ```
 */
export interface PasscodeLimitsView {
  /** The scopes it was given (SPEC §5.48); `null`: every scope the host declares. */
  readonly scopes: readonly string[] | null
  /** Those of `scopes` the host no longer declares: they grant nothing. */
  readonly unknownScopes: readonly string[]
  /** The CIDR ranges it may be used from (SPEC §5.49); empty: any address. */
  readonly allowedAddresses: readonly string[]
  /** The rules of the account's policy it breaks (SPEC §5.52): made before the policy, it keeps working. Empty when none. */
  readonly policyViolations: readonly PolicyRule[]
  /** Whether it breaks the account's policy (`policyViolations` is not empty). */
  readonly violatesPolicy: boolean
  /** Its rate limit (SPEC §5.50); `null` for none. */
  readonly rateLimit: RateLimitSetting | null
  /** Its credits and their refill (SPEC §5.50); `null` for none. */
  readonly credits: CreditsView | null
}

/** What management operations return for an account passcode. */
export interface PasscodeView extends PasscodeUseView, PasscodeLimitsView {
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
   * Where its value was found in public (SPEC §5.42): set by a confirmed leak report,
   * `null` once an admin enables, rotates or deletes it (or when it never leaked).
   */
  readonly leak: PasscodeLeak | null
  /**
   * Its current value was reported leaked (SPEC §5.45), and stays so through an enable
   * (which clears `leak`) until a rotation replaces it. While this or `leak` is set, a
   * rotation gives the value no overlap: `overlapMinutes` other than 0 is refused.
   *
   * @example
   * ```ts
   * const overlapMinutes = view.valueLeaked || view.leak !== null ? 0 : 60
   * await auth.passcodes.rotate(actor, 'acc_1', view.id, { overlapMinutes })
   * ```
   */
  readonly valueLeaked: boolean
  /** The host's own data about it (SPEC §5.51), returned on the principal; `null` when none. */
  readonly metadata: PasscodeMetadata | null
  /** Its tags (SPEC §5.51), lower case; empty when none. */
  readonly tags: readonly string[]
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
export interface UserPasscodeView extends PasscodeUseView, PasscodeLimitsView {
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
   * Where its value was found in public (SPEC §5.42): set by a confirmed leak report,
   * which revokes it; `null` once an admin grants the user a new one or resets it (or
   * when it never leaked).
   */
  readonly leak: PasscodeLeak | null
}
