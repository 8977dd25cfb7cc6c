import { DAY_MS, toMs } from './time'

/**
 * The status of a passcode: `active`, `expiring_soon` (30 days or fewer left),
 * `expired`, `revoked` (user passcodes only), or `disabled` (account passcodes only,
 * SPEC §5.38: kept, but refused everywhere until enabled).
 */
export type PasscodeStatus = 'active' | 'expiring_soon' | 'expired' | 'revoked' | 'disabled'

/** The fields {@link passcodeStatus} reads. */
export interface StatusInput {
  /** When the passcode stops working; `null` for `forever`. */
  readonly expiresAt: Date | number | null
  /** When a user passcode was revoked, if it was. */
  readonly revokedAt?: Date | number | null
  /** When an account passcode was disabled, if it is (SPEC §5.38). */
  readonly disabledAt?: Date | number | null
}

/**
 * Days before expiry at which a passcode becomes `expiring_soon` (SPEC §2).
 *
 * @example
 * ```ts
 * import { EXPIRING_SOON_DAYS } from 'passcode-auth'
 *
 * console.log(`The "expiring soon" email goes out ${EXPIRING_SOON_DAYS} days before expiry`)
 * ```
 */
export const EXPIRING_SOON_DAYS = 30

/**
 * Computes a passcode's status at `now` with the exact boundaries of SPEC §5.7:
 * `expired` when `now ≥ expiresAt`, `expiring_soon` when `expiresAt − now ≤ 30 days`,
 * and a `forever` passcode (`expiresAt: null`) is never either. Revocation wins over
 * everything, then being disabled (SPEC §5.38): a disabled passcode is refused whatever
 * its expiry, so its status says so.
 *
 * @param passcode - anything with `expiresAt` (and `revokedAt` for user passcodes)
 * @param now - the instant to evaluate at; pass your injected clock's time
 * @param expiringSoonDays - the window. @default 30
 * @example
 * ```ts
 * import { passcodeStatus } from 'passcode-auth'
 *
 * passcodeStatus({ expiresAt: new Date('2026-12-01T00:00:00Z') }, new Date('2026-11-21T00:00:00Z'))
 * // 'expiring_soon'
 * ```
 */
export function passcodeStatus(passcode: StatusInput, now: Date | number, expiringSoonDays: number = EXPIRING_SOON_DAYS): PasscodeStatus {
  if (passcode.revokedAt != null) return 'revoked'
  if (passcode.disabledAt != null) return 'disabled'
  if (passcode.expiresAt === null) return 'active'
  const remaining = toMs(passcode.expiresAt) - toMs(now)
  if (remaining <= 0) return 'expired'
  if (remaining <= expiringSoonDays * DAY_MS) return 'expiring_soon'
  return 'active'
}

/**
 * Whether a passcode's expiry has been reached at `now` (SPEC §5.7), whatever else its
 * status says: a disabled passcode is still expired for the rules that depend on it
 * (reactivation by an edit, rotation).
 *
 * @example
 * ```ts
 * isExpired({ expiresAt: Date.UTC(2026, 0, 1) }, Date.UTC(2026, 0, 1)) // true: at the instant itself
 * ```
 */
export function isExpired(passcode: { readonly expiresAt: Date | number | null }, now: Date | number): boolean {
  return passcode.expiresAt !== null && toMs(now) >= toMs(passcode.expiresAt)
}
