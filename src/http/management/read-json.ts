import { InvalidInputError } from '../../core/errors'
import { managementFailure, type ManagementFailure } from '../../protocol/management-errors'
import type { DashboardRequest } from './types'

/** The largest body the management API reads, in bytes. Its bodies are a few fields. */
export const MAX_BODY_BYTES = 16 * 1024

/** A JSON object body, or the failure to answer instead. */
export type JsonBody = { readonly ok: true; readonly value: Record<string, unknown> } | { readonly ok: false; readonly failure: ManagementFailure }

const isJsonType = (type: string | undefined): boolean => {
  const essence = type?.split(';', 1)[0]!.trim().toLowerCase()
  return essence === 'application/json' || (essence?.startsWith('application/') === true && essence.endsWith('+json'))
}

/**
 * Reads a JSON object body: `Content-Type: application/json` only (415 otherwise,
 * which also keeps cross-site HTML forms out), at most {@link MAX_BODY_BYTES} (413),
 * a JSON object (400 otherwise).
 *
 * @example
 * ```ts
 * const body = await readJsonObject(request)
 * if (!body.ok) return failureAnswer(body.failure)
 * ```
 */
export async function readJsonObject(request: DashboardRequest): Promise<JsonBody> {
  if (!isJsonType(request.header('content-type'))) {
    return { ok: false, failure: managementFailure('ERR_UNSUPPORTED_MEDIA_TYPE', 'Send the body as application/json') }
  }
  const body = await request.body()
  let value: unknown
  if (body === undefined) {
    value = undefined
  } else if ('parsed' in body) {
    value = body.parsed
  } else {
    // UTF-8 length without Buffer, so edge runtimes run this too.
    if (body.text.length > MAX_BODY_BYTES / 3 && new TextEncoder().encode(body.text).length > MAX_BODY_BYTES) {
      return { ok: false, failure: managementFailure('ERR_PAYLOAD_TOO_LARGE', `The body is larger than ${MAX_BODY_BYTES} bytes`) }
    }
    try {
      value = body.text.trim() === '' ? undefined : JSON.parse(body.text)
    } catch {
      return { ok: false, failure: managementFailure('ERR_INVALID_INPUT', 'The body is not valid JSON') }
    }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    const error = new InvalidInputError('body', 'must be a JSON object')
    return { ok: false, failure: managementFailure('ERR_INVALID_INPUT', error.message) }
  }
  return { ok: true, value: value as Record<string, unknown> }
}
