import type { ManagementFailure } from '../../protocol/management-errors'
import { encodeAnswer, type AnswerSchema, type AnswerValue } from '../../protocol/management-schemas'
import type { DashboardResponse } from './types'

/**
 * Headers of every management API answer. `no-store` on all of them: some carry a
 * passcode value (SPEC §5.29) and the rest are one account's private data.
 */
const API_HEADERS = Object.freeze({
  'content-type': 'application/json; charset=utf-8',
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
  'referrer-policy': 'no-referrer',
})

/** A JSON answer of the management API; success bodies come through {@link schemaAnswer}. */
function jsonAnswer(statusCode: number, body: unknown, headers?: Readonly<Record<string, string>>): DashboardResponse {
  return { statusCode, headers: headers === undefined ? API_HEADERS : { ...API_HEADERS, ...headers }, body: JSON.stringify(body) }
}

/** A JSON answer whose body is written through its schema (src/protocol/management-schemas.ts): only the fields it lists. */
export function schemaAnswer<Schema extends AnswerSchema>(statusCode: number, schema: Schema, value: AnswerValue<Schema>): DashboardResponse {
  return jsonAnswer(statusCode, encodeAnswer(schema, value))
}

/**
 * A file of JSON lines (`GET /audit/export`), with the API's headers and a download name.
 * `name` must be a plain file name (letters, digits, `.`, `_`, `-`).
 */
export function ndjsonAnswer(text: string, name: string): DashboardResponse {
  return {
    statusCode: 200,
    headers: { ...API_HEADERS, 'content-type': 'application/x-ndjson; charset=utf-8', 'content-disposition': `attachment; filename="${name}"` },
    body: text,
  }
}

/** A 204 of the management API. */
export function noContent(): DashboardResponse {
  const { 'content-type': _none, ...headers } = API_HEADERS
  return { statusCode: 204, headers, body: '' }
}

/** A failure of the management API, through the one error table. */
export function failureAnswer(failure: ManagementFailure, headers?: Readonly<Record<string, string>>): DashboardResponse {
  return jsonAnswer(failure.statusCode, failure.body, headers)
}
