import type { AuditSigner } from '../core/audit'
import type { PasscodeHasher } from '../core/hashing'
import type { Invalidation, PasscodeStore } from '../ports/passcode-store'
import type { EventInput } from './events'
import type { PolicyReader } from './policy-checks'
import type { DeclaredScopes } from './scopes'

/**
 * The small pieces of the service that more than one job uses, below every folder of
 * src/service/ (it imports none). Each job declares what it receives from these and
 * from its own folder; `createPasscodeAuth` hands each only that.
 */

/** What every management job (passcodes, user passcodes, accounts) uses of the service. */
export interface ManagementContext {
  readonly store: PasscodeStore
  /** Epoch ms from the injected clock. */
  readonly now: () => number
  /** `undefined` when the host has no `onEvent` hook. */
  readonly emit: ((event: EventInput) => void) | undefined
  /** Drops a changed credential from this instance's verification caches (and reads in flight) at once. */
  readonly invalidate: (invalidation: Invalidation) => void
  /** Signs the audit records of its changes (the `auditKeys` option, SPEC §5.44). */
  readonly auditSigner: AuditSigner
}

/** How a job that issues passcode values makes them: the `prefix` option and the current pepper (SPEC §5.28). */
export interface PasscodeIssuer {
  readonly prefix: string
  /** The current pepper's hasher: every new hash. */
  readonly hash: PasscodeHasher
  /** The current pepper's id, stored next to each hash it keys. */
  readonly pepperId: string
}

/** What the jobs that make or show passcodes use of restricted passcodes (SPEC §5.48, §5.49, §5.51, §5.52). */
export interface RestrictionsContext {
  /** The scopes the host declares. */
  readonly scopes: DeclaredScopes
  /** An account's policy: its own, or the host's default. */
  readonly policyOf: PolicyReader
}
