import type { z } from 'zod'

/**
 * The `z.toJSONSchema` options both OpenAPI generators (scripts/openapi.ts,
 * scripts/management-openapi.ts) use: JSON Schema 2020-12, OpenAPI 3.1's dialect, of
 * what is sent (`io: 'input'`: a request body as the client writes it, an answer as the
 * server writes it, dates as ISO 8601 texts), with zod's noise left out where a
 * standard keyword beside it already says the same.
 */
export const JSON_SCHEMA_OPTIONS = {
  io: 'input',
  override: ({ jsonSchema }) => {
    // zod's own format name for startsWith; the pattern beside it says the same in standard terms.
    if (jsonSchema.format === 'starts_with') delete jsonSchema.format
    // format: date-time says it; zod's 300-character pattern for the same would only bury it.
    if (jsonSchema.format === 'date-time') delete jsonSchema.pattern
    // z.int()'s safe-integer bounds: every JSON integer a client sends or reads is within them.
    if (jsonSchema.minimum === Number.MIN_SAFE_INTEGER) delete jsonSchema.minimum
    if (jsonSchema.maximum === Number.MAX_SAFE_INTEGER) delete jsonSchema.maximum
  },
} as const satisfies z.core.ToJSONSchemaParams
