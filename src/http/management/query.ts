import type { z } from 'zod'
import { InvalidInputError } from '../../core/errors'

/**
 * The query string of a request target (`/audit?action=x` → `action=x`), without the
 * `?`, still percent-encoded; `''` when there is none. Works for the origin form and the
 * absolute form alike: a target's first `?` starts its query.
 */
export function queryOf(target: string | undefined): string {
  const at = target?.indexOf('?') ?? -1
  return at < 0 ? '' : target!.slice(at + 1)
}

/**
 * Reads a query string with a strict zod object schema: each parameter once, except
 * those in `repeatable` (read as a list); an unknown, repeated or invalid one is an
 * `InvalidInputError` on that parameter's name, which the API answers with 400.
 */
export function parseQuery<Schema extends z.ZodObject>(
  schema: Schema,
  query: string | undefined,
  repeatable: readonly string[] = [],
): z.output<Schema> {
  const params = new URLSearchParams(query ?? '')
  const input: Record<string, string | string[]> = {}
  for (const name of new Set(params.keys())) {
    if (!Object.hasOwn(schema.shape, name)) throw new InvalidInputError(name, 'is not a parameter of this route')
    const values = params.getAll(name)
    if (repeatable.includes(name)) input[name] = values
    else if (values.length > 1) throw new InvalidInputError(name, 'must be given once')
    else input[name] = values[0]!
  }
  const result = schema.safeParse(input)
  if (result.success) return result.data
  const issue = result.error.issues[0]!
  throw new InvalidInputError(String(issue.path[0] ?? 'query'), issue.message)
}
