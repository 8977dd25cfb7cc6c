import { z } from 'zod'
import { AUDIT_ACTIONS, AUDIT_PAGE_SIZE, MAX_AUDIT_PAGE_SIZE, type AuditAction } from '../../core/audit'
import { InvalidInputError } from '../../core/errors'

export { AUDIT_PAGE_SIZE, MAX_AUDIT_PAGE_SIZE }

/**
 * Filters of `auth.audit.list` and `auth.audit.export`.
 *
 * @example
 * ```ts
 * const filters: AuditFilters = { action: 'passcode.rotated', target: passcodeId, from: new Date('2026-01-01') }
 * ```
 */
export interface AuditFilters {
  /** Only this action, or these actions. */
  readonly action?: AuditAction | readonly AuditAction[]
  /** Only records about this passcode ID or user ID. */
  readonly target?: string
  /** Only records of what this user did (their user ID, in whichever role). */
  readonly actor?: string
  /** Only records at or after this instant. */
  readonly from?: Date
  /** Only records before this instant. */
  readonly to?: Date
}

/**
 * Options of `auth.audit.list`: the filters, where to continue and how many.
 *
 * @example
 * ```ts
 * const next = await auth.audit.list(admin, 'acc_1', { cursor: page.cursor! })
 * ```
 */
export interface AuditListOptions extends AuditFilters {
  /** The `cursor` of the previous page; absent for the newest records. */
  readonly cursor?: string
  /** Records per page, 1 to 200. @default 50 */
  readonly limit?: number
}

const action = z.enum(AUDIT_ACTIONS, { error: `must be one of ${AUDIT_ACTIONS.join(', ')}` })
const instant = z.date({ error: 'must be a Date' }).refine((date) => !Number.isNaN(date.getTime()), 'must be a valid Date')

/** The schema `auth.audit.list` checks its options with. */
export const auditListSchema = z
  .strictObject({
    action: z.union([action, z.array(action).min(1, 'must name at least one action')]).optional(),
    target: z.string({ error: 'must be a string' }).min(1, 'must not be empty').max(200, 'must be at most 200 characters').optional(),
    actor: z.string({ error: 'must be a string' }).min(1, 'must not be empty').max(256, 'must be at most 256 characters').optional(),
    from: instant.optional(),
    to: instant.optional(),
    cursor: z.string({ error: 'must be a string' }).max(100, 'is not a cursor of this list').optional(),
    limit: z
      .number({ error: 'must be a whole number' })
      .int('must be a whole number')
      .min(1, 'must be at least 1')
      .max(MAX_AUDIT_PAGE_SIZE, `must be at most ${MAX_AUDIT_PAGE_SIZE}`)
      .optional(),
  })
  .optional()

const CURSOR_PREFIX = 'a1.'

/** The opaque cursor after a record: a version and the sequence, base64url. */
export function encodeCursor(sequence: number): string {
  return btoa(`${CURSOR_PREFIX}${sequence}`).replace(/=+$/, '').replace(/\+/g, '-').replace(/\//g, '_')
}

/** The sequence a cursor continues after; an `InvalidInputError` for anything else. */
export function decodeCursor(cursor: string): number {
  let text: string
  try {
    text = atob(cursor.replace(/-/g, '+').replace(/_/g, '/'))
  } catch {
    throw new InvalidInputError('cursor', 'is not a cursor of this list')
  }
  const sequence = Number(text.slice(CURSOR_PREFIX.length))
  if (!text.startsWith(CURSOR_PREFIX) || !Number.isSafeInteger(sequence) || sequence < 1) {
    throw new InvalidInputError('cursor', 'is not a cursor of this list')
  }
  return sequence
}
