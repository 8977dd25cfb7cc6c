import type { PasscodeHasher } from '../core/hashing'
import type { PartnerRegistry } from '../ports/partner-registry'
import type { Invalidation, PasscodeStore } from '../ports/passcode-store'
import type { EventInput } from './events'
import type { ResolvedOptions } from './options'
import type { UserPasscodeCrypto } from './user-passcodes/user-passcode-crypto'
import type { VerificationCache } from './authenticate/verification-cache'
import type { UsageRecorder } from './usage/usage-recorder'

/** What every operation of one `createPasscodeAuth` instance shares. */
export interface ServiceContext {
  readonly options: ResolvedOptions
  readonly store: PasscodeStore
  readonly partners: PartnerRegistry
  readonly hash: PasscodeHasher
  /** Epoch ms from the injected clock. */
  readonly now: () => number
  readonly cache: VerificationCache | undefined
  readonly crypto: UserPasscodeCrypto | undefined
  /** `undefined` when the host has no `onEvent` hook. */
  readonly emit: ((event: EventInput) => void) | undefined
  /** Drops a changed credential from this instance's cache at once. */
  readonly invalidate: (invalidation: Invalidation) => void
  /** Batches last uses for the store; `undefined` when the `usage` option is `false`. */
  readonly usage: UsageRecorder | undefined
}
