/**
 * Statements with named, typed inputs. A statement declares its inputs once (a name
 * and a SQL type each) and writes its text with `$.name` where a value goes; the text
 * is fixed when the statement is made (`$1::text`, `$2::bigint`, … numbered in the order
 * the text first uses each input), so a driver can prepare it once and name it, and
 * PGlite runs the same text. A call passes an object: `values` puts its fields in
 * placeholder order. No parameter is counted by hand, and a name the inputs lack does
 * not compile.
 *
 * @example
 * ```ts
 * const get = namedStatement({ accountId: sqlType.text, passcodeId: sqlType.text }, ($) =>
 *   `SELECT * FROM s.account_passcodes WHERE account_id = ${$.accountId} AND id = ${$.passcodeId}`)
 * await db.query(get.text, get.values({ accountId: 'acc_1', passcodeId: 'pc_1' }))
 * ```
 */

/** A SQL type a statement's input is cast to, and the value it binds. */
export interface SqlType<T> {
  /** The cast the placeholder carries, so both drivers know the type without asking the server. */
  readonly cast: string
  /** The value's type, for the compiler only. */
  readonly value?: T
}

const sqlTypeOf = <T>(cast: string): SqlType<T> => ({ cast })

/** The SQL types of the store's inputs. Each takes `null` through {@link orNull}. */
export const sqlType = {
  text: sqlTypeOf<string>('text'),
  bigint: sqlTypeOf<number>('bigint'),
  integer: sqlTypeOf<number>('integer'),
  float8: sqlTypeOf<number>('float8'),
  smallint: sqlTypeOf<number>('smallint'),
  boolean: sqlTypeOf<boolean>('boolean'),
  /** JSON text, stored as `jsonb`. */
  jsonb: sqlTypeOf<string>('jsonb'),
  textArray: sqlTypeOf<readonly string[]>('text[]'),
  /** A text array whose elements may be `NULL`. */
  textOrNullArray: sqlTypeOf<readonly (string | null)[]>('text[]'),
  /** A day, `YYYY-MM-DD`. */
  date: sqlTypeOf<string>('date'),
  dateArray: sqlTypeOf<readonly string[]>('date[]'),
  bigintArray: sqlTypeOf<readonly number[]>('bigint[]'),
  integerArray: sqlTypeOf<readonly number[]>('integer[]'),
  booleanArray: sqlTypeOf<readonly boolean[]>('boolean[]'),
} as const

/** The same SQL type, taking `null` too. */
export const orNull = <T>(type: SqlType<T>): SqlType<T | null> => type

/** The same SQL array type, its items taking `null` too (a column of a batch passed as arrays). */
export const orNullItems = <T>(type: SqlType<readonly T[]>): SqlType<readonly (T | null)[]> => type

/** A statement's declared inputs: a SQL type per name. */
export type Inputs = Readonly<Record<string, SqlType<unknown>>>

/** The object a call of a statement with inputs `I` passes. */
export type InputOf<I extends Inputs> = { readonly [K in keyof I]: I[K] extends SqlType<infer T> ? T : never }

/** What a statement's text writes for each input: its placeholder with its cast. */
export type Placeholders<I extends Inputs> = { readonly [K in keyof I]: string }

/** A statement with fixed text and named inputs. */
export interface NamedStatement<I> {
  /** The text, the same for every call: a driver may prepare and name it. */
  readonly text: string
  /** The input's values in the order of the text's placeholders (the names it never uses are not sent). */
  values(this: void, input: I): unknown[]
}

/**
 * Makes a statement of named inputs: `build` writes the text with `$.name` where each
 * value goes, once, here. A `$n` the builder did not number, or an input read but left
 * out of the text, is refused at once.
 *
 * @param inputs - each input's name and SQL type
 * @param build - the text, from the placeholders
 * @example
 * ```ts
 * const revoke = namedStatement({ accountId: sqlType.text, userId: sqlType.text, at: sqlType.bigint }, ($) =>
 *   `UPDATE s.user_passcodes SET revoked_at = ${$.at} WHERE account_id = ${$.accountId} AND user_id = ${$.userId}`)
 * ```
 */
export function namedStatement<const I extends Inputs>(inputs: I, build: (placeholders: Placeholders<I>) => string): NamedStatement<InputOf<I>> {
  const order: string[] = []
  const placeholders: Record<string, string> = {}
  for (const [name, type] of Object.entries(inputs)) {
    Object.defineProperty(placeholders, name, {
      enumerable: true,
      get() {
        if (!order.includes(name)) order.push(name)
        return `$${order.indexOf(name) + 1}::${type.cast}`
      },
    })
  }
  const text = build(placeholders as Placeholders<I>)
  for (const [, n] of text.matchAll(/\$(\d+)/g)) {
    if (Number(n) > order.length) throw new Error(`a statement's text has $${n}, which no named input made`)
  }
  // An input read while the text was made but left out of it would be sent untyped.
  order.forEach((name, i) => {
    if (!new RegExp(`\\$${i + 1}::`).test(text)) throw new Error(`a statement's text leaves out its input ${name}`)
  })
  const names = order as (keyof InputOf<I>)[]
  return { text, values: (input) => names.map((name) => input[name]) }
}

/**
 * The inputs of two parts of one statement, together; a name both declare must have
 * one type. For a statement made of shared pieces (a change and its audit record).
 *
 * @example
 * ```ts
 * const both = joinInputs({ accountId: sqlType.text }, { accountId: sqlType.text, at: sqlType.bigint })
 * ```
 */
export function joinInputs<A extends Inputs, B extends Inputs>(a: A, b: B): A & B {
  for (const [name, type] of Object.entries(b)) {
    if (name in a && a[name]!.cast !== type.cast) throw new Error(`the input ${name} is ${a[name]!.cast} and ${type.cast}`)
  }
  return { ...a, ...b }
}
