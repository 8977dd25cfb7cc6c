/**
 * The roles of the peppers of a rolling pepper change (SPEC §5.34), apart from the
 * hashing: which form of the `pepper` option means which role, and what a verification
 * that matched under a pepper of some role writes back. Pure: no store, no hasher.
 */

/** One pepper value of the option: text, bytes, or `null` for "no pepper" (plain SHA-256). */
export type PepperValue = string | Uint8Array | null

/**
 * What a pepper is for (SPEC §5.34): `current` keys new hashes, and older ones are
 * re-hashed to it; `next` verifies only, never re-hashed to or away from; `previous`
 * verifies and is re-hashed to the current one on use.
 */
export type PepperRole = 'current' | 'next' | 'previous'

/** The `pepper` option by role. */
export interface PepperRoles {
  readonly current: PepperValue
  readonly next: readonly PepperValue[]
  readonly previous: readonly PepperValue[]
}

/** Every form the (validated) `pepper` option takes; `undefined` is "no pepper". */
export type PepperOption =
  | string
  | Uint8Array
  | readonly PepperValue[]
  | { readonly current: PepperValue; readonly next?: readonly PepperValue[]; readonly previous?: readonly PepperValue[] }
  | undefined

/**
 * Maps each form of the option onto its roles: no option is `{ current: null }`; one
 * pepper is the current one; a list (SPEC §5.28) is the current one first and the
 * previous ones after it (each re-hashed to the first on use, as before); the object
 * form names the roles itself.
 *
 * @example
 * ```ts
 * pepperRoles(['new-pepper-0123456789', 'old-pepper-0123456789'])
 * // { current: 'new-pepper-0123456789', next: [], previous: ['old-pepper-0123456789'] }
 * ```
 */
export function pepperRoles(option: PepperOption): PepperRoles {
  if (option === undefined) return { current: null, next: [], previous: [] }
  if (typeof option === 'string' || option instanceof Uint8Array) return { current: option, next: [], previous: [] }
  if (Array.isArray(option)) {
    const [current = null, ...previous] = option as readonly PepperValue[]
    return { current, next: [], previous }
  }
  const roles = option as Exclude<PepperOption, string | Uint8Array | readonly PepperValue[] | undefined>
  return { current: roles.current, next: roles.next ?? [], previous: roles.previous ?? [] }
}

/** Every pepper of `roles`, the current one first: none may appear twice. */
export const allPeppers = (roles: PepperRoles): PepperValue[] => [roles.current, ...roles.previous, ...roles.next]

/** What a successful verification writes back about the matched hash. */
export type PepperWriteBack =
  /** Nothing: the row is keyed and labelled as it should be. */
  | { readonly kind: 'none' }
  /** The row's pepper label only (hash unchanged): it was written before labels, or by a pepper not known then. */
  | { readonly kind: 'label' }
  /** A new hash under the current pepper. */
  | { readonly kind: 'rehash' }

/**
 * What to write back after a hash matched under a pepper of `role` whose id is
 * `matchedId`, for a row labelled `storedId`: a `previous` match is re-hashed to the
 * current pepper; a `next` match never is (an instance one step ahead already keys
 * new hashes with it, and one step behind keys them with today's current: re-hashing
 * either way would flip rows back and forth during a rolling deploy); a match without
 * the right label is labelled.
 *
 * @example
 * ```ts
 * pepperWriteBack('next', 'a1b2', 'a1b2') // { kind: 'none' }
 * pepperWriteBack('previous', 'c3d4', 'c3d4') // { kind: 'rehash' }
 * ```
 */
export function pepperWriteBack(role: PepperRole, matchedId: string, storedId: string | null): PepperWriteBack {
  if (role === 'previous') return { kind: 'rehash' }
  return storedId === matchedId ? { kind: 'none' } : { kind: 'label' }
}
