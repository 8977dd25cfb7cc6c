import type { AccountPasscodeExpiry, Actor, UserPasscodeValidity } from './entities'
import { addUtcYears, DAY_MS } from './time'

/**
 * At most this many non-deleted passcodes per account (SPEC §2, §5.9).
 *
 * @example
 * ```ts
 * import { MAX_ACCOUNT_PASSCODES } from 'passcode-auth'
 *
 * const passcodes = await auth.passcodes.list(actor, 'acc_1')
 * console.log(`${passcodes.length} of ${MAX_ACCOUNT_PASSCODES}`)
 * ```
 */
export const MAX_ACCOUNT_PASSCODES = 100
/**
 * Longest passcode name, in characters after trimming (SPEC §5.10).
 *
 * @example
 * ```ts
 * import { MAX_NAME_LENGTH } from 'passcode-auth'
 *
 * const input = `<input name="name" maxlength="${MAX_NAME_LENGTH}" required>`
 * ```
 */
export const MAX_NAME_LENGTH = 64
/** Account passcode expiry in days: 1 to 3650 (SPEC §5.7). */
export const ACCOUNT_EXPIRY_DAYS = {
  /** Fewest days allowed. */
  min: 1,
  /** Most days allowed. */
  max: 3650,
} as const
/** Finite user passcode validity in days: 1 to 365 (SPEC §3). */
export const USER_VALIDITY_DAYS = {
  /** Fewest days allowed. */
  min: 1,
  /** Most days allowed. */
  max: 365,
} as const
/** An `infinite` user passcode lasts this many calendar years (SPEC §5.7). */
export const INFINITE_VALIDITY_YEARS = 10
/** Longest account ID, user ID or header value, in bytes (SPEC §5.4). */
export const MAX_IDENTIFIER_LENGTH = 256

/**
 * Characters a person cannot see or that change how the text around them shows (SPEC
 * §5.24): controls (C0, DEL, C1), format characters (zero-width, bidi controls, BOM,
 * soft hyphen), line and paragraph separators, unpaired surrogates, and the other
 * default-ignorable code points (variation selectors, Hangul fillers). The inside of a
 * regular-expression character class (`u` flag), so the OpenAPI documents' patterns
 * (src/service/input.ts) say the same as the checks here.
 *
 * @example
 * ```ts
 * new RegExp(`[${INVISIBLE_CHARACTER_CLASS}]`, 'u').test('Acme\u200B') // true
 * ```
 */
export const INVISIBLE_CHARACTER_CLASS = String.raw`\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}\p{Default_Ignorable_Code_Point}`
const UNSAFE_CHARACTER = new RegExp(`[${INVISIBLE_CHARACTER_CLASS}]`, 'u')
const UNSAFE_CHARACTERS = new RegExp(UNSAFE_CHARACTER.source, 'gu')

/**
 * Removes every control or invisible character (SPEC §5.24) from text that is shown to
 * a person, such as the partner name echoed in a 403: C0 and C1 controls, DEL,
 * zero-width and bidi control characters, line and paragraph separators, variation
 * selectors and unpaired surrogates.
 *
 * @example
 * ```ts
 * removeInvisibleCharacters('Acme\u202E\u200B') // 'Acme'
 * ```
 */
export function removeInvisibleCharacters(text: string): string {
  return text.replace(UNSAFE_CHARACTERS, '')
}

/** Longest partner name, in characters (SPEC §5.3, §5.22). */
export const MAX_PARTNER_NAME_LENGTH = 128

// C0, DEL and C1 controls: what §5.22 keeps away from every partner registry.
const CONTROL_CHARACTER = /\p{Cc}/u

/** How many characters (code points, so a surrogate pair counts once) `text` has. */
export function characterCount(text: string): number {
  // A string of n UTF-16 units has at most n code points: count only when it matters.
  let count = 0
  for (const _ of text) count++
  return count
}

/**
 * Whether a trimmed, non-blank partner name may be looked up in a registry (SPEC §5.22):
 * at most 128 characters and no control character (C0, C1, DEL, NUL). Any other name
 * cannot be whitelisted, so it is answered with the 403 body without asking.
 */
export function isPartnerNameLookable(trimmed: string): boolean {
  if (trimmed.length > MAX_PARTNER_NAME_LENGTH && characterCount(trimmed) > MAX_PARTNER_NAME_LENGTH) return false
  return !CONTROL_CHARACTER.test(trimmed)
}

/**
 * Checks a passcode name (SPEC §5.10, §5.24) and returns it as stored: in Unicode NFC
 * and trimmed, 1 to 64 characters, without control or invisible characters (zero-width,
 * bidi controls, unpaired surrogates…), so that two names that look the same are the same
 * name. Otherwise returns the reason.
 *
 * @example
 * ```ts
 * checkPasscodeName(' Cafe\u0301 ') // { ok: true, name: 'Café' } (NFC)
 * checkPasscodeName('Acme\u200B').ok // false
 * ```
 */
export function checkPasscodeName(name: string): { ok: true; name: string } | { ok: false; reason: string } {
  // Unpaired surrogates first: NFC leaves them, and a database would store U+FFFD instead.
  if (!name.isWellFormed()) return { ok: false, reason: INVISIBLE_REASON }
  const normalized = name.normalize('NFC').trim()
  const length = characterCount(normalized)
  if (length === 0) return { ok: false, reason: 'must not be blank' }
  if (length > MAX_NAME_LENGTH) return { ok: false, reason: `must be at most ${MAX_NAME_LENGTH} characters` }
  if (UNSAFE_CHARACTER.test(normalized)) return { ok: false, reason: INVISIBLE_REASON }
  return { ok: true, name: normalized }
}

/** Longest passcode description, in characters (code points) after normalising (SPEC §5.39). */
export const MAX_DESCRIPTION_LENGTH = 500

// Every control character (C0, DEL, C1) but the newline.
const DESCRIPTION_CONTROL = /[^\P{Cc}\n]/u

/**
 * Checks a passcode description (SPEC §5.39) and returns it as stored: line breaks as
 * `\n` (a `\r\n` or lone `\r`, as forms and Windows clipboards send them, becomes
 * `\n`), Unicode NFC, trimmed, at most 500 characters, with no control character but
 * the newline (a tab is refused) and no unpaired surrogate. `''` is no description.
 * Otherwise returns the reason.
 *
 * @example
 * ```ts
 * checkPasscodeDescription('For the Acme\r\nnightly export ') // { ok: true, description: 'For the Acme\nnightly export' }
 * checkPasscodeDescription('a\tb').ok // false
 * ```
 */
export function checkPasscodeDescription(description: string): { ok: true; description: string } | { ok: false; reason: string } {
  if (!description.isWellFormed()) return { ok: false, reason: DESCRIPTION_CONTROL_REASON }
  const normalized = description.replace(/\r\n?/g, '\n').normalize('NFC').trim()
  if (normalized.length > MAX_DESCRIPTION_LENGTH && characterCount(normalized) > MAX_DESCRIPTION_LENGTH) {
    return { ok: false, reason: `must be at most ${MAX_DESCRIPTION_LENGTH} characters` }
  }
  if (DESCRIPTION_CONTROL.test(normalized)) return { ok: false, reason: DESCRIPTION_CONTROL_REASON }
  return { ok: true, description: normalized }
}

const DESCRIPTION_CONTROL_REASON = 'must not contain control characters other than newlines (no tabs), nor unpaired surrogates'

const INVISIBLE_REASON = 'must not contain control or invisible characters (zero-width, bidi controls, unpaired surrogates)'

/**
 * The key that name uniqueness is checked on (SPEC §5.10, §5.24): NFC, trimmed,
 * lower-cased without locale, NFC again (lower-casing can decompose, as `İ` does).
 *
 * @example
 * ```ts
 * passcodeNameKey('  Partner A ') === passcodeNameKey('partner a') // true
 * passcodeNameKey('Cafe\u0301') === passcodeNameKey('CAFÉ') // true
 * ```
 */
export function passcodeNameKey(name: string): string {
  return name.normalize('NFC').trim().toLowerCase().normalize('NFC')
}

/** Whether `days` is a whole number of days an account passcode may last. */
export function isValidAccountExpiryDays(days: number): boolean {
  return Number.isInteger(days) && days >= ACCOUNT_EXPIRY_DAYS.min && days <= ACCOUNT_EXPIRY_DAYS.max
}

/** Whether `days` is a valid finite user passcode validity. */
export function isValidUserValidityDays(days: number): boolean {
  return Number.isInteger(days) && days >= USER_VALIDITY_DAYS.min && days <= USER_VALIDITY_DAYS.max
}

/**
 * When an account passcode expires: `from + days × 86 400 000`, or `null` for
 * `forever` (SPEC §5.7).
 */
export function accountPasscodeExpiresAt(fromMs: number, expiry: AccountPasscodeExpiry): number | null {
  return expiry === 'forever' ? null : fromMs + expiry * DAY_MS
}

/**
 * When a user passcode expires: `from + days` for `finite`, 10 calendar years (UTC)
 * for `infinite` (SPEC §5.7).
 */
export function userPasscodeExpiresAt(fromMs: number, validity: UserPasscodeValidity): number {
  return validity.type === 'finite' ? fromMs + validity.days * DAY_MS : addUtcYears(fromMs, INFINITE_VALIDITY_YEARS)
}

/**
 * Whether the actor may create, edit, rotate or delete account passcodes: admins, and
 * members with write access to the User Settings page (SPEC §2). Any member may list
 * them (SPEC §5.31).
 */
export function canManageAccountPasscodes(actor: Actor): boolean {
  return actor.role === 'admin' || actor.canWriteUserSettings === true
}

/** Whether the actor may grant, reset or revoke user passcodes: admins only (SPEC §3). */
export function canManageUserPasscodes(actor: Actor): boolean {
  return actor.role === 'admin'
}

/** Whether the actor may reveal the user passcode of `userId`: only that user (SPEC §5.13). */
export function canRevealUserPasscode(actor: Actor, userId: string): boolean {
  return actor.userId === userId
}

/**
 * Whether a string is a header-safe identifier or credential: 1 to 256 characters,
 * all visible ASCII (0x21 to 0x7E). SPEC §5.4 rejects anything else.
 */
export function isVisibleAscii(value: string): boolean {
  const length = value.length
  if (length === 0 || length > MAX_IDENTIFIER_LENGTH) return false
  for (let i = 0; i < length; i++) {
    const code = value.charCodeAt(i)
    if (code < 0x21 || code > 0x7e) return false
  }
  return true
}

/** At most this many partners in one passcode's binding. */
export const MAX_BOUND_PARTNERS = 100
/** Rotation overlap in whole minutes: 0 (the old value stops at once) to 7 days (SPEC §5.26). */
export const ROTATION_OVERLAP_MINUTES = {
  /** Fewest minutes allowed. */
  min: 0,
  /** Most minutes allowed. */
  max: 10_080,
} as const
/** A passcode not used for this many days (or never used) counts as unused (SPEC §5.27). */
export const UNUSED_AFTER_DAYS = 90

/**
 * The form partner names are compared in: trimmed and lower-cased without locale
 * (SPEC §5.3), as a `PartnerRegistry` receives them.
 *
 * @example
 * ```ts
 * partnerNameKey('  Acme ') === 'acme' // true
 * ```
 */
export function partnerNameKey(name: string): string {
  return name.trim().toLowerCase()
}

/**
 * The stored form of a partner binding: each name as {@link partnerNameKey}, sorted,
 * without repeats. `null` stays `null` (unbound).
 */
export function normalizePartnerBinding(names: readonly string[] | null): readonly string[] | null {
  return names === null ? null : [...new Set(names.map(partnerNameKey))].sort()
}

/**
 * Whether a passcode bound to `partners` may be used for the partner named
 * `normalizedPartner` on `/v1/connect` (SPEC §5.25): always when unbound.
 */
export function bindingAllows(partners: readonly string[] | null | undefined, normalizedPartner: string): boolean {
  return partners === null || partners === undefined || partners.includes(normalizedPartner)
}

/** Whether a passcode last used at `lastUsedAt` (`null`: never) counts as unused at `now` (SPEC §5.27). */
export function isUnused(lastUsedAt: number | null, now: number): boolean {
  return lastUsedAt === null || now - lastUsedAt >= UNUSED_AFTER_DAYS * DAY_MS
}
