import type { PasscodeMetadata } from './entities'
import type { AccountPasscodeRecord } from './passcode-records'
import { characterCount } from './rules'

/*
 * The rules of restricted passcodes (SPEC §5.48, §5.49, §5.51) that need no library:
 * scope names, tags, metadata and the size limits. Address ranges are parsed in the
 * service (with ipaddr.js, which core may not import); their count is here.
 */

/**
 * The form of a scope name (SPEC §5.48): a lower-case letter, then up to 63 of
 * `a-z`, `0-9`, `_`, `.`, `:` and `-`, such as `events:read`.
 *
 * @example
 * ```ts
 * SCOPE_NAME_PATTERN.test('events:write') // true
 * SCOPE_NAME_PATTERN.test('Events') // false
 * ```
 */
export const SCOPE_NAME_PATTERN = /^[a-z][a-z0-9_.:-]{0,63}$/
/** The most scopes a host may declare (SPEC §5.48). */
export const MAX_DECLARED_SCOPES = 100
/** The longest description of a declared scope, in characters. */
export const MAX_SCOPE_DESCRIPTION_LENGTH = 200
/** The most address ranges one passcode may carry (SPEC §5.49). */
export const MAX_ALLOWED_ADDRESSES = 50
/** The most tags one passcode may carry (SPEC §5.51). */
export const MAX_TAGS = 20
/** The longest tag, in characters (SPEC §5.51). */
export const MAX_TAG_LENGTH = 32
/** The most bytes of a passcode's metadata as UTF-8 JSON (SPEC §5.51). */
export const MAX_METADATA_BYTES = 1024
/** How deep metadata may nest: an object in an object … this many levels. */
export const MAX_METADATA_DEPTH = 8

/**
 * What a tag may hold after NFC and lower-casing: letters and digits of any script,
 * then also marks and `_ . : / @ + -`. No space, no control or invisible character, so
 * a tag reads as one word in a list and a command line.
 */
const TAG = /^[\p{L}\p{N}][\p{L}\p{M}\p{N}_.:/@+-]*$/u

/** The rule of a tag, for messages and the OpenAPI document. */
export const TAG_RULE = `1 to ${MAX_TAG_LENGTH} characters: letters and digits of any script, then also _ . : / @ + - (no spaces); stored in NFC and lower case`

/**
 * Checks a tag (SPEC §5.51) and returns it as stored: trimmed, in NFC, lower-cased
 * (so `Prod` and `prod` are one tag), 1 to 32 characters of {@link TAG_RULE}.
 *
 * @example
 * ```ts
 * checkTag(' Team/Payments ') // { ok: true, tag: 'team/payments' }
 * checkTag('a b').ok // false
 * ```
 */
export function checkTag(tag: string): { ok: true; tag: string } | { ok: false; reason: string } {
  if (!tag.isWellFormed()) return { ok: false, reason: `must be ${TAG_RULE}` }
  const normalized = tag.normalize('NFC').trim().toLowerCase().normalize('NFC')
  const length = characterCount(normalized)
  if (length === 0) return { ok: false, reason: 'must not be blank' }
  if (length > MAX_TAG_LENGTH) return { ok: false, reason: `must be at most ${MAX_TAG_LENGTH} characters` }
  if (!TAG.test(normalized)) return { ok: false, reason: `must be ${TAG_RULE}` }
  return { ok: true, tag: normalized }
}

/**
 * Checks metadata (SPEC §5.51): a JSON object (not an array, `null` or a primitive) of
 * JSON values only (text, finite numbers, booleans, `null`, arrays, objects), nested at
 * most {@link MAX_METADATA_DEPTH} deep, at most {@link MAX_METADATA_BYTES} bytes as
 * UTF-8 JSON. Returns a copy of it as plain data.
 *
 * @example
 * ```ts
 * checkMetadata({ plan: 'gold', customerId: 42 }) // { ok: true, metadata: { plan: 'gold', customerId: 42 } }
 * checkMetadata(['a']).ok // false
 * ```
 */
export function checkMetadata(value: unknown): { ok: true; metadata: PasscodeMetadata } | { ok: false; reason: string } {
  if (!isObject(value)) return { ok: false, reason: 'must be a JSON object (not an array, null or a single value)' }
  const problem = jsonProblem(value, 0)
  if (problem !== undefined) return { ok: false, reason: problem }
  const text = JSON.stringify(value)
  const bytes = new TextEncoder().encode(text).length
  if (bytes > MAX_METADATA_BYTES) return { ok: false, reason: `must be at most ${MAX_METADATA_BYTES} bytes as JSON (it is ${bytes})` }
  return { ok: true, metadata: JSON.parse(text) as PasscodeMetadata }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function jsonProblem(value: unknown, depth: number): string | undefined {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return undefined
  if (typeof value === 'number') return Number.isFinite(value) ? undefined : 'must hold finite numbers only'
  if (typeof value !== 'object') return `must hold JSON values only (not a ${typeof value})`
  if (depth >= MAX_METADATA_DEPTH) return `must nest at most ${MAX_METADATA_DEPTH} levels deep`
  const items = Array.isArray(value) ? value : Object.values(value)
  for (const item of items) {
    const problem = jsonProblem(item, depth + 1)
    if (problem !== undefined) return problem
  }
  return undefined
}

/** The scopes a passcode grants as stored: `null` (every scope) or a list. A record without the field grants every scope. */
export function storedScopes(record: { readonly scopes?: readonly string[] | null }): readonly string[] | null {
  return record.scopes ?? null
}

/** The address ranges of a passcode as stored; `[]` (any address) for a record without the field. */
export function storedAddresses(record: { readonly allowedAddresses?: readonly string[] }): readonly string[] {
  return record.allowedAddresses ?? []
}

/** The tags of an account passcode as stored; `[]` for a record without the field. */
export function storedTags(record: Pick<AccountPasscodeRecord, 'tags'>): readonly string[] {
  return record.tags ?? []
}
