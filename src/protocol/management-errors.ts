import { z } from 'zod'
import { InvalidInputError, PasscodeAuthError, type PasscodeAuthErrorCode } from '../core/errors'

/**
 * Every `error.code` the management API answers with: the domain's codes, and the
 * few that only HTTP has (no session, a cross-site request, a wrong method or body).
 */
export type ManagementErrorCode =
  | PasscodeAuthErrorCode
  | 'ERR_UNAUTHENTICATED'
  | 'ERR_CROSS_SITE'
  | 'ERR_METHOD_NOT_ALLOWED'
  | 'ERR_UNSUPPORTED_MEDIA_TYPE'
  | 'ERR_PAYLOAD_TOO_LARGE'
  | 'ERR_INTERNAL'

/**
 * The body of every management API failure (SPEC §5.29).
 *
 * @example
 * ```ts
 * const body: ManagementErrorBody = { error: { code: 'ERR_INVALID_INPUT', message: 'Invalid expiry: must be at least 1 day', field: 'expiry' } }
 * ```
 */
export interface ManagementErrorBody {
  /** What went wrong. */
  readonly error: {
    /** Machine-readable; one of {@link ManagementErrorCode}. */
    readonly code: ManagementErrorCode
    /** For people; never a passcode value, key or stack. */
    readonly message: string
    /** The input field at fault (`name`, `expiry`, `validity.days`), when there is one. */
    readonly field?: string
  }
}

/**
 * The ONE table from error code to HTTP status (SPEC §5.29). `Record` over the whole
 * union, so a new domain code does not compile until it has a status here.
 *
 * @example
 * ```ts
 * MANAGEMENT_ERROR_STATUS.ERR_DUPLICATE_NAME // 409
 * ```
 */
export const MANAGEMENT_ERROR_STATUS: Readonly<Record<ManagementErrorCode, number>> = Object.freeze({
  ERR_INVALID_INPUT: 400,
  ERR_UNAUTHENTICATED: 401,
  ERR_FORBIDDEN: 403,
  ERR_CROSS_SITE: 403,
  ERR_NOT_FOUND: 404,
  ERR_METHOD_NOT_ALLOWED: 405,
  ERR_DUPLICATE_NAME: 409,
  ERR_CAP_REACHED: 409,
  ERR_ALREADY_GRANTED: 409,
  ERR_REACTIVATION_REFUSED: 409,
  ERR_ROTATION_REFUSED: 409,
  ERR_PAYLOAD_TOO_LARGE: 413,
  ERR_UNSUPPORTED_MEDIA_TYPE: 415,
  // The host's configuration, not the caller, is at fault: a 5xx that says which.
  ERR_CONFIGURATION: 500,
  ERR_INVALID_OPTIONS: 500,
  ERR_INTERNAL: 500,
  // Not raised by management operations; a 500 if a host's hook throws one.
  ERR_MAILER_FAILED: 500,
  ERR_NO_RECIPIENTS: 500,
  ERR_PASSCODE_REFUSED: 500,
  // The stored audit trail, not the caller, is at fault (SPEC §5.44): the message says where.
  ERR_AUDIT_BROKEN: 500,
  ERR_STORAGE_UNAVAILABLE: 503,
  ERR_STORAGE_TIMEOUT: 504,
})

/**
 * The codes an HTTP status carries, from {@link MANAGEMENT_ERROR_STATUS}, in the
 * table's order; empty for a status the table does not use.
 *
 * @example
 * ```ts
 * managementErrorCodesOf(409) // ['ERR_DUPLICATE_NAME', 'ERR_CAP_REACHED', 'ERR_ALREADY_GRANTED', 'ERR_REACTIVATION_REFUSED', 'ERR_ROTATION_REFUSED']
 * ```
 */
export function managementErrorCodesOf(status: number): ManagementErrorCode[] {
  return (Object.keys(MANAGEMENT_ERROR_STATUS) as ManagementErrorCode[]).filter((code) => MANAGEMENT_ERROR_STATUS[code] === status)
}

/**
 * The schema of the failure body of one HTTP status: its `code` is one of the codes
 * that status carries ({@link managementErrorCodesOf}), so a client generated from
 * docs/management-openapi.json narrows the code by the status; `field` only on 400.
 *
 * @param status - an HTTP status of {@link MANAGEMENT_ERROR_STATUS}
 * @example
 * ```ts
 * managementErrorBodySchemaOf(404).safeParse({ error: { code: 'ERR_NOT_FOUND', message: 'No such passcode' } }).success // true
 * managementErrorBodySchemaOf(404).safeParse({ error: { code: 'ERR_FORBIDDEN', message: 'Admins only' } }).success // false
 * ```
 */
export function managementErrorBodySchemaOf(status: number): z.ZodType<ManagementErrorBody> {
  const codes = managementErrorCodesOf(status)
  if (codes.length === 0) throw new RangeError(`No management error code has the status ${status}`)
  const error = z.object({
    code: z.enum(codes as [ManagementErrorCode, ...ManagementErrorCode[]]).describe('Machine-readable.'),
    message: z.string().describe('For people; never a passcode value, key or stack.'),
  })
  const field = z.string().optional().describe('The input field at fault (`name`, `expiry`, `validity.days`).')
  return z
    .object({ error: status === MANAGEMENT_ERROR_STATUS.ERR_INVALID_INPUT ? error.extend({ field }) : error })
    .describe(`A failure with the status ${status}.`)
}

/**
 * A management API failure before serialisation.
 *
 * @example
 * ```ts
 * const failure: ManagementFailure = managementFailure('ERR_FORBIDDEN', 'Only admins grant user passcodes')
 * ```
 */
export interface ManagementFailure {
  /** The HTTP status, from {@link MANAGEMENT_ERROR_STATUS}. */
  readonly statusCode: number
  /** The JSON body. */
  readonly body: ManagementErrorBody
}

/**
 * Builds a failure answer from a code, through {@link MANAGEMENT_ERROR_STATUS}.
 *
 * @param code - one of {@link ManagementErrorCode}
 * @param message - for people; never a secret
 * @param field - the input field at fault, if one is
 * @example
 * ```ts
 * managementFailure('ERR_UNAUTHENTICATED', 'Sign in first')
 * // { statusCode: 401, body: { error: { code: 'ERR_UNAUTHENTICATED', message: 'Sign in first' } } }
 * ```
 */
export function managementFailure(code: ManagementErrorCode, message: string, field?: string): ManagementFailure {
  return {
    statusCode: MANAGEMENT_ERROR_STATUS[code],
    body: { error: field === undefined ? { code, message } : { code, message, field } },
  }
}

/**
 * Maps anything a management operation threw to its answer. A `PasscodeAuthError`
 * keeps its code and message (messages never hold secrets); anything else is a 500
 * `ERR_INTERNAL` with a fixed message, so no stack or internal detail reaches the
 * caller. `rename` maps a service field name to the API's (`accepted` →
 * `acceptedPasscodes`), with the rest of a dotted path kept; a name mapped to `''` is
 * dropped, so a service's `options.tags.1` is the query parameter's `tags.1`.
 *
 * @example
 * ```ts
 * managementErrorAnswer(new DuplicateNameError('Acme')).statusCode // 409
 * managementErrorAnswer(new TypeError('x is undefined')).body.error // { code: 'ERR_INTERNAL', message: 'Internal error' }
 * managementErrorAnswer(new InvalidInputError('options.tags.1', 'must not be blank'), { options: '' }).body.error.field // 'tags.1'
 * ```
 */
export function managementErrorAnswer(error: unknown, rename: Readonly<Record<string, string>> = {}): ManagementFailure {
  if (error instanceof InvalidInputError) {
    const field = apiField(error.field, rename)
    const message = field === error.field ? error.message : error.message.replace(`Invalid ${error.field}:`, `Invalid ${field}:`)
    return managementFailure('ERR_INVALID_INPUT', message, field)
  }
  if (error instanceof PasscodeAuthError && error.code in MANAGEMENT_ERROR_STATUS) {
    return managementFailure(error.code, error.message)
  }
  return managementFailure('ERR_INTERNAL', 'Internal error')
}

/** The API's name of a service field path: its first name renamed (or dropped, for `''`), the rest kept. */
function apiField(field: string, rename: Readonly<Record<string, string>>): string {
  const dot = field.indexOf('.')
  const first = dot < 0 ? field : field.slice(0, dot)
  if (!Object.hasOwn(rename, first)) return field
  const renamed = [rename[first]!, dot < 0 ? '' : field.slice(dot + 1)].filter((part) => part !== '').join('.')
  return renamed === '' ? field : renamed
}
