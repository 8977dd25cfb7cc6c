// Calls to the management API (SPEC §5.29) and its error answers.
import { context } from './context'

/** An error answer of the management API: `{ error: { code, message, field? } }`. */
export class ApiError extends Error {
  readonly status: number
  readonly code: string | undefined
  readonly field: string | undefined
  constructor(status: number, error: { code?: string; message?: string; field?: string } | null | undefined) {
    super(error && typeof error.message === 'string' ? error.message : `The server answered ${status}`)
    this.status = status
    this.code = error?.code
    this.field = error?.field
  }
}

/** An input the page refuses before sending anything: shown as the API's field errors are. */
export class FieldError extends Error {
  readonly field: string
  readonly code = undefined
  constructor(field: string, message: string) {
    super(message)
    this.field = field
  }
}

/**
 * Calls the management API with the session's cookie; an error answer throws an
 * {@link ApiError}. `T` is the answer's type from src/dashboard/client/wire.ts.
 *
 * @example
 * ```ts
 * const { passcodes } = await api<PasscodeList>('GET', '/passcodes')
 * ```
 */
export async function api<T = unknown>(method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' }
  const init: RequestInit = { method, headers, credentials: 'same-origin', cache: 'no-store' }
  if (body !== undefined) {
    headers['content-type'] = 'application/json'
    init.body = JSON.stringify(body)
  }
  const response = await fetch(context().api + path, init)
  if (response.status === 204) return null as T
  const data = (await response.json().catch(() => null)) as { error?: { code?: string; message?: string; field?: string } } | null
  if (!response.ok) throw new ApiError(response.status, data?.error)
  return data as T
}

/** A path segment: `/passcodes/${segment(id)}`. */
export const segment = (id: string): string => encodeURIComponent(id)
