import type { z } from 'zod'
import { InvalidInputError } from '../core/errors'

/**
 * Reads a query string (without its `?`) with a strict zod object schema: each parameter
 * once, except those in `repeatable` (read as a list); an unknown, repeated or invalid
 * one is an `InvalidInputError` on that parameter's name, which the management API
 * answers with 400. A parameter whose schema is a number is sent as decimal digits (as an
 * OpenAPI client writes an integer): digits are read as that number, anything else stays
 * text for the schema to refuse.
 *
 * @example
 * ```ts
 * parseQuery(auditListQuerySchema, 'action=passcode.rotated&limit=20', ['action']) // { action: ['passcode.rotated'], limit: 20 }
 * ```
 */
export function parseQuery<Schema extends z.ZodObject>(
  schema: Schema,
  query: string | undefined,
  repeatable: readonly string[] = [],
): z.output<Schema> {
  const params = new URLSearchParams(query ?? '')
  const input: Record<string, string | string[] | number> = {}
  for (const name of new Set(params.keys())) {
    if (!Object.hasOwn(schema.shape, name)) throw new InvalidInputError(name, 'is not a parameter of this route')
    const values = params.getAll(name)
    if (repeatable.includes(name)) input[name] = values
    else if (values.length > 1) throw new InvalidInputError(name, 'must be given once')
    else
      input[name] =
        isNumber((schema.shape as Readonly<Record<string, z.core.$ZodType>>)[name]!) && DECIMAL.test(values[0]!) ? Number(values[0]) : values[0]!
  }
  const result = schema.safeParse(input)
  if (result.success) return result.data
  const issue = result.error.issues[0]!
  throw new InvalidInputError(String(issue.path[0] ?? 'query'), issue.message)
}

// Up to 15 digits: every such number is exact as a JavaScript number.
const DECIMAL = /^[0-9]{1,15}$/

/** Whether a parameter's schema, optional or not, takes a number. */
function isNumber(field: z.core.$ZodType): boolean {
  const def = field._zod.def
  return def.type === 'number' || (def.type === 'optional' && isNumber((def as z.core.$ZodOptionalDef).innerType))
}
