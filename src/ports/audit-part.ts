import type { AuditLog } from './audit-log'

/**
 * The audit trail (SPEC §5.40), an optional part of {@link PasscodeStore}.
 *
 * @example
 * ```ts
 * const { audit }: AuditPart = memoryStore()
 * const page = await audit.list('acc_1', { order: 'newest', limit: 50 })
 * ```
 */
export interface AuditPart {
  /**
   * The audit trail (SPEC §5.40): reading, appending what changes nothing, pruning.
   * Optional for stores written before it; without it `auth.audit` throws a
   * `ConfigurationError` and write methods ignore their `audit` argument, which the
   * service gives every write all the same.
   */
  readonly audit: AuditLog
}
