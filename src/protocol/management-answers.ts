import { z } from 'zod'

// What every management answer schema shares: the wire form of a moment, and the one
// way a route writes an answer (encodeAnswer).

/** A moment: an ISO 8601 UTC text on the wire, a `Date` in the service's views. */
export const dateTime = z.codec(z.iso.datetime(), z.date(), {
  decode: (text) => new Date(text),
  encode: (date) => date.toISOString(),
})

export const nullableDateTime = (description: string) => dateTime.nullable().describe(description)

/**
 * The JSON of an answer as a client reads it: the schema's input side, instants as ISO
 * 8601 texts. A type only: the dashboard's browser script imports it with `import type`,
 * so no zod reaches its bundle.
 *
 * @example
 * ```ts
 * type PasscodeJson = AnswerJson<typeof passcodeViewSchema>
 * const expires: string | null = ({} as PasscodeJson).expiresAt
 * ```
 */
export type AnswerJson<Schema extends z.ZodType> = z.input<Schema>

/** Any answer schema of this module, for code that may not import zod itself. */
export type AnswerSchema = z.ZodType

/** What a route hands to {@link encodeAnswer}: the schema's output, arrays possibly read-only. */
export type AnswerValue<Schema extends z.ZodType> = ReadonlyDeep<z.output<Schema>>

/** The output of a schema with its arrays read-only, as the service hands them. */
export type ReadonlyDeep<T> = T extends Date
  ? T
  : T extends readonly (infer Item)[]
    ? readonly ReadonlyDeep<Item>[]
    : T extends object
      ? { readonly [Key in keyof T]: ReadonlyDeep<T[Key]> }
      : T

/**
 * The JSON body of an answer: `value` written through its schema, so the wire holds
 * exactly the schema's fields (dates as ISO 8601 texts). Throws if `value` does not fit,
 * which the management API answers as a 500 `ERR_INTERNAL`.
 *
 * @example
 * ```ts
 * encodeAnswer(partnerListSchema, { partners: ['acme'], listed: true }) // { partners: ['acme'], listed: true }
 * ```
 */
export function encodeAnswer<Schema extends z.ZodType>(schema: Schema, value: AnswerValue<Schema>): z.input<Schema> {
  return z.encode(schema, value as z.output<Schema>)
}

/** Whether A and B are the same type: a view and its schema's output must be (a compile-time check). */
export type BothWays<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false
