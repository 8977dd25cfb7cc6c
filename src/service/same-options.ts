/**
 * Type-level checks that the options schema composed from the features' schemas
 * accepts exactly what the documented `PasscodeAuthOptions` interface says. The
 * interface keeps its TSDoc and `@default` tags; the schema is checked against it at
 * compile time. Type-only: nothing here exists at run time.
 */

/**
 * `T` with `readonly` removed at every depth of its data (objects and arrays), so
 * that a documented `readonly string[]` and the schema's `string[]` compare equal.
 * Functions and byte arrays are kept as they are.
 */
export type Mutable<T> = T extends ((...args: never[]) => unknown) | Uint8Array
  ? T
  : T extends readonly (infer Item)[]
    ? Mutable<Item>[]
    : T extends object
      ? { -readonly [K in keyof T]: Mutable<T[K]> }
      : T

/** `true` when each of `A` and `B` is assignable to the other. */
export type MutuallyAssignable<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false

/** `true` when `A` and `B` are the same type (not merely assignable both ways). */
// eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters -- the usual exact-equality test: each T appears once by design
export type Identical<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false

/**
 * `true` when `Documented` and `Schema` are the same type once `readonly` is set
 * aside: same option names at every depth, same optionality, same value types, so
 * each is assignable to the other.
 */
export type SameOptions<Documented, Schema> =
  MutuallyAssignable<Mutable<Documented>, Mutable<Schema>> extends true ? Identical<Mutable<Documented>, Mutable<Schema>> : false
