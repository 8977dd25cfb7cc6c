import type { AcceptedPasscodes } from '../core/entities'
import type { AuditAppend } from './audit-log'

/**
 * An account's own setting, a required part of {@link PasscodeStore}: which passcodes
 * it accepts (SPEC §5.11).
 *
 * @example
 * ```ts
 * const accounts: AccountsPart = memoryStore()
 * const accepted = await accounts.getAcceptedPasscodes('acc_1') // 'account' when never set
 * ```
 */
export interface AccountsPart {
  /** The account's setting; `'account'` when never set. */
  getAcceptedPasscodes(accountId: string): Promise<AcceptedPasscodes>
  /**
   * Changes the account's setting. Publishes an invalidation. Its `audit` record shows
   * `acceptedPasscodes` before (as stored when it changed) and after (`acceptedPasscodesEntry`).
   */
  setAcceptedPasscodes(accountId: string, accepted: AcceptedPasscodes, audit: AuditAppend): Promise<void>
}
