import type { PasscodeHasher } from '../core/hashing'
import type { PartnerRegistry } from '../ports/partner-registry'
import type { CredentialMatch, Invalidation, PasscodeStore } from '../ports/passcode-store'
import type { EventInput } from './events'
import type { ResolvedOptions } from './options'
import type { UserPasscodeCrypto } from './user-passcodes/user-passcode-crypto'
import type { RefusalCache } from './authenticate/refusal-cache'
import type { SharedReads } from './authenticate/shared-reads'
import type { Pepper, Peppers } from './authenticate/peppers'
import type { VerificationCache } from './authenticate/verification-cache'
import type { UsageRecorder } from './usage/usage-recorder'
import type { ServiceTelemetry } from './telemetry/telemetry'

/** Why a credential's own account is refused with it; none of these changes by time passing alone, save into `expired`. */
export type OwnerRefusal = 'not_accepted' | 'revoked' | 'disabled' | 'expired'

/** One verification read: what the store found for the passcode's hash, and that hash. */
export interface CredentialRead {
  readonly match: CredentialMatch | null
  readonly hash: string
  /** The pepper whose hash matched (the current one when nothing did), SPEC §5.28. */
  readonly pepper: Pepper
}

/** What every operation of one `createPasscodeAuth` instance shares. */
export interface ServiceContext {
  readonly options: ResolvedOptions
  readonly store: PasscodeStore
  readonly partners: PartnerRegistry
  /** The current pepper's hasher: every new hash. */
  readonly hash: PasscodeHasher
  /** The `pepper` option: the current one and the older ones that still verify (SPEC §5.28). */
  readonly peppers: Peppers
  /** Epoch ms from the injected clock. */
  readonly now: () => number
  readonly cache: VerificationCache | undefined
  /** The cache of refused well-formed passcodes (`cache.refusals`). */
  readonly refusals: RefusalCache<OwnerRefusal> | undefined
  /** The verification reads in flight, shared by concurrent misses of one passcode. */
  readonly reads: SharedReads<CredentialRead>
  readonly crypto: UserPasscodeCrypto | undefined
  /** `undefined` when the host has no `onEvent` hook. */
  readonly emit: ((event: EventInput) => void) | undefined
  /** `undefined` without the `telemetry` option. */
  readonly telemetry: ServiceTelemetry | undefined
  /** Drops a changed credential from this instance's caches (and reads in flight) at once. */
  readonly invalidate: (invalidation: Invalidation) => void
  /** Batches last uses for the store; `undefined` when the `usage` option is `false`. */
  readonly usage: UsageRecorder | undefined
}
