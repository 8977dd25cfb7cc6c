import { z } from 'zod'

/**
 * Small zod pieces the features' option schemas share: a function option and an
 * object with given methods (a port). Each message says what the option expects.
 */

/** Whether `value` is an object with a function under each of `names`. */
export const hasMethods = (value: unknown, ...names: string[]): boolean =>
  typeof value === 'object' && value !== null && names.every((name) => typeof (value as Record<string, unknown>)[name] === 'function')

/** A function option; `what` completes "must be …". */
export const functionOption = <T>(what: string) => z.custom<T>((value) => typeof value === 'function', { message: `must be ${what}` })

/** An object option with the given methods; `what` completes "must be …". */
export const objectWithMethods = <T>(what: string, ...names: string[]) =>
  z.custom<T>((value) => hasMethods(value, ...names), { message: `must be ${what}` })

/**
 * What an option group left out is parsed from (`.prefault(noOptions)`): `{}` without a
 * prototype, so a polluted `Object.prototype` adds no option to it (zod's strict check
 * lists inherited keys too).
 */
export const noOptions = (): Record<string, never> => Object.create(null) as Record<string, never>

/**
 * Bytes: any `Uint8Array` (Node's `Buffer` included), whatever buffer it views. Unlike
 * `z.instanceof(Uint8Array)`, its type is the documented `Uint8Array`, not only the
 * ones over an `ArrayBuffer`.
 */
export const bytesOption = z.custom<Uint8Array>((value) => value instanceof Uint8Array)
