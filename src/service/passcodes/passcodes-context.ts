import type { PartnerRegistry } from '../../ports/partner-registry'
import type { ManagementContext, PasscodeIssuer, RestrictionsContext } from '../context'
import type { PendingUse, UsageReader } from '../views'

/** What `auth.passcodes` receives from the service. */
export interface PasscodesContext extends ManagementContext, RestrictionsContext {
  readonly issuer: PasscodeIssuer
  /** For bindings (SPEC §5.25) and the views' partners no longer whitelisted. */
  readonly partners: PartnerRegistry
  readonly limits: { readonly maxAccountPasscodes: number; readonly expiringSoonDays: number }
  /** The `allowReactivation` option (SPEC §5.8). */
  readonly allowReactivation: boolean
  /** The last use of a passcode this instance saw and has not flushed yet; `undefined` with `usage: false`. */
  readonly pendingUse: ((passcodeId: string) => PendingUse | undefined) | undefined
  /** Reads a passcode's usage over time (SPEC §5.41). */
  readonly readUsage: UsageReader
}
