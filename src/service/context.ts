import type { PasscodeHasher } from '../core/hashing'
import type { PartnerRegistry } from '../ports/partner-registry'
import type { Invalidation, PasscodeStore } from '../ports/passcode-store'
import type { EventInput } from './events'
import type { ResolvedOptions } from './options'
import type { UserPasscodeCrypto } from './user-passcodes/user-passcode-crypto'
import type { Peppers } from './verify/peppers'
import type { UsageRecorder } from './usage/usage-recorder'
import type { ServiceTelemetry } from './telemetry/telemetry'

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
