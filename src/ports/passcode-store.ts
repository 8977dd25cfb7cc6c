import type {
  AcceptedPasscodes,
  AccountPasscodeExpiry,
  AccountPasscodeRecord,
  UserPasscodeRecord,
} from '../core/entities'
import type { NotificationKind } from '../core/notifications'

export type { NotificationKind }

/** A credential found by its hash, with the owning account's setting (one lookup). */
export type CredentialMatch =
  | {
      readonly kind: 'account'
      readonly record: AccountPasscodeRecord
      readonly acceptedPasscodes: AcceptedPasscodes
    }
  | {
      readonly kind: 'user'
      readonly record: UserPasscodeRecord
      readonly acceptedPasscodes: AcceptedPasscodes
    }

/** Result of {@link PasscodeStore.createAccountPasscode}. */
export type CreateResult =
  | { readonly ok: true; readonly record: AccountPasscodeRecord }
  | { readonly ok: false; readonly reason: 'cap_reached' | 'duplicate_name' }

/** Fields an edit may change; `nameKey` travels with `name`. */
export interface AccountPasscodePatch {
  readonly name?: string
  readonly nameKey?: string
  readonly expiry?: AccountPasscodeExpiry
  readonly expiresAt?: number | null
  /** A new binding (normalised names), or `null` to unbind (SPEC §5.25). */
  readonly partners?: readonly string[] | null
  readonly updatedAt: number
}

/**
 * A rotation (SPEC §5.26): the new value's hash and hint replace the current ones.
 * With `previousHashEndsAt`, the current hash becomes the previous one until then,
 * replacing any earlier previous hash; with `null`, the current value stops at once.
 */
export interface PasscodeRotation {
  readonly hash: string
  readonly hint: string
  readonly previousHashEndsAt: number | null
  readonly updatedAt: number
}

/**
 * One passcode's recent use, as an instance batches it (SPEC §5.27): the latest
 * instant it authenticated and, when that batch saw a `/v1/connect`, the partner of
 * the latest one.
 */
export type UsageEntry =
  | { readonly kind: 'account'; readonly accountId: string; readonly passcodeId: string; readonly at: number; readonly partner: string | null }
  | { readonly kind: 'user'; readonly accountId: string; readonly userId: string; readonly at: number; readonly partner: string | null }

/** Result of {@link PasscodeStore.updateAccountPasscode}. */
export type UpdateResult =
  | { readonly ok: true; readonly record: AccountPasscodeRecord }
  | { readonly ok: false; readonly reason: 'not_found' | 'duplicate_name' }

/** Result of {@link PasscodeStore.grantUserPasscode}. */
export type GrantResult =
  | { readonly ok: true; readonly record: UserPasscodeRecord }
  | { readonly ok: false; readonly reason: 'already_granted' }


/**
 * A notification a runner has claimed and must now send, then complete or release.
 * Deduplication is per passcode, kind and expiry instant, so an edit that moves the
 * expiry re-arms both notifications.
 */
export interface NotificationClaim {
  readonly passcodeId: string
  readonly accountId: string
  readonly name: string
  readonly hint: string
  readonly kind: NotificationKind
  readonly expiresAt: number
  /** Opaque token that proves this runner holds the claim. */
  readonly token: string
}

/** What {@link PasscodeStore.claimNotifications} needs to decide what is due. */
export interface ClaimRequest {
  readonly now: number
  /** The expiring-soon window in milliseconds (30 days). */
  readonly windowMs: number
  /** How long a claim stays with a runner before another may take it over. */
  readonly leaseMs: number
  /** At most this many claims in one call. */
  readonly limit: number
  /** A fresh random token for this call's claims. */
  readonly token: string
}

/**
 * A message from the store that a credential changed, for verification caches.
 * `{ type: 'all' }` means the store may have missed changes (its listening
 * connection dropped and came back): subscribers drop everything they cached.
 */
export type Invalidation =
  | { readonly type: 'account_passcode'; readonly accountId: string; readonly passcodeId: string }
  | { readonly type: 'user_passcode'; readonly accountId: string; readonly userId: string }
  | { readonly type: 'account'; readonly accountId: string }
  | { readonly type: 'all' }

/**
 * Where passcodes live. The store owns atomicity: the cap and name uniqueness are
 * checked in the same transaction (or lock) as the insert, and verification is one
 * lookup by hash. Instants are epoch milliseconds (UTC). Implementations: memory
 * (reference) and PostgreSQL/PGlite; `test/conformance/store.ts` is the contract.
 *
 * @example
 * ```ts
 * import { memoryStore } from 'passcode-auth/memory'
 *
 * const store: PasscodeStore = memoryStore()
 * ```
 */
export interface PasscodeStore {
  /** Inserts a passcode unless the account is at `maxPerAccount` or the name key is taken. Atomic. */
  createAccountPasscode(record: AccountPasscodeRecord, maxPerAccount: number): Promise<CreateResult>
  /** Applies a patch; keeps name uniqueness atomic. Publishes an invalidation when the name, expiry or binding changes. */
  updateAccountPasscode(accountId: string, passcodeId: string, patch: AccountPasscodePatch): Promise<UpdateResult>
  /**
   * Replaces the passcode's hash and hint, keeping the old hash as the previous one
   * for the overlap (see {@link PasscodeRotation}). `null` when there is no such
   * passcode. Publishes an invalidation.
   */
  rotateAccountPasscode(accountId: string, passcodeId: string, rotation: PasscodeRotation): Promise<AccountPasscodeRecord | null>
  /** Deletes at once (its current and previous value); returns the deleted record, or `null`. Publishes an invalidation. */
  deleteAccountPasscode(accountId: string, passcodeId: string): Promise<AccountPasscodeRecord | null>
  /** One passcode of the account, or `null`. */
  getAccountPasscode(accountId: string, passcodeId: string): Promise<AccountPasscodeRecord | null>
  /** Every non-deleted passcode of the account, oldest first. */
  listAccountPasscodes(accountId: string): Promise<AccountPasscodeRecord[]>

  /**
   * The verification lookup: one indexed read by hash, across account and user
   * passcodes, that also finds an account passcode by its previous hash (whether its
   * overlap has ended is the caller's check, against `previousHashEndsAt`).
   */
  findCredentialByHash(hash: string): Promise<CredentialMatch | null>

  /**
   * Records a batch of uses in one write (one statement in SQL): for each entry whose
   * instant is later than the stored `lastUsedAt`, sets it, and the partner when the
   * entry has one. Entries of deleted passcodes are skipped. Publishes nothing: usage
   * never invalidates a cache. Resolves how many passcodes were written.
   */
  recordUsage(entries: readonly UsageEntry[]): Promise<number>

  /**
   * Stores a user passcode unless the user holds one that is neither revoked nor
   * expired at `now`; a revoked or expired one is replaced.
   */
  grantUserPasscode(record: UserPasscodeRecord, now: number): Promise<GrantResult>
  /** Replaces the value of a live user passcode; `null` when none is live. Publishes an invalidation. */
  resetUserPasscode(
    accountId: string,
    userId: string,
    fields: Pick<UserPasscodeRecord, 'hash' | 'ciphertext' | 'hint' | 'grantedAt' | 'expiresAt'>,
  ): Promise<UserPasscodeRecord | null>
  /** Marks the user passcode revoked; `null` when there is none or it is revoked already. Publishes an invalidation. */
  revokeUserPasscode(accountId: string, userId: string, revokedAt: number): Promise<UserPasscodeRecord | null>
  /** The user's passcode, revoked or not, or `null`. */
  getUserPasscode(accountId: string, userId: string): Promise<UserPasscodeRecord | null>

  /** The account's setting; `'account'` when never set. */
  getAcceptedPasscodes(accountId: string): Promise<AcceptedPasscodes>
  /** Changes the account's setting. Publishes an invalidation. */
  setAcceptedPasscodes(accountId: string, accepted: AcceptedPasscodes): Promise<void>

  /**
   * Claims due notifications that are neither sent nor claimed by a live lease. Two
   * concurrent callers never receive the same claim.
   */
  claimNotifications(request: ClaimRequest): Promise<NotificationClaim[]>
  /** Records that the claimed notification was sent. `false` when the claim was lost. */
  completeNotification(claim: NotificationClaim, sentAt: number): Promise<boolean>
  /** Gives a claim back after a failed send, so the next pass retries it. */
  releaseNotification(claim: NotificationClaim): Promise<void>

  /**
   * Subscribes to invalidations published by any instance sharing this storage.
   * Returns the unsubscribe function.
   */
  subscribe?(listener: (invalidation: Invalidation) => void): () => void
  /** Releases connections or listeners the store opened itself. */
  close?(): Promise<void>
}
