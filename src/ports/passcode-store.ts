import type { AcceptedPasscodes, AccountPasscodeExpiry, AccountPasscodeRecord, UserPasscodeRecord } from '../core/entities'
import type { RateLimitSetting, StoredCredits } from '../core/limits'
import type { NotificationKind } from '../core/notifications'
import type { AuditAppend, AuditLog } from './audit-log'
import type { CreditBalance, CreditNoticeClaim, CreditNoticeRequest, LimitsLease, LimitsLeaseRequest, LimitsReturn } from './limits-part'
import type { WebhookStore } from './webhook-store'
import type { AccountPolicy } from '../core/policy'
import type { PolicyNoticeClaim, PolicyNoticeRequest } from './account-policy-part'

export type { NotificationKind }

/** A credential found by its hash, with the owning account's setting (one lookup). */
export type CredentialMatch =
  | {
      /** The hash is an account passcode's (its current or, within the overlap, its previous value). */
      readonly kind: 'account'
      /** The matching passcode. */
      readonly record: AccountPasscodeRecord
      /** Which passcodes the owning account accepts (SPEC §5.11). */
      readonly acceptedPasscodes: AcceptedPasscodes
    }
  | {
      /** The hash is a user passcode's. */
      readonly kind: 'user'
      /** The matching user passcode, revoked or not. */
      readonly record: UserPasscodeRecord
      /** Which passcodes the owning account accepts (SPEC §5.11). */
      readonly acceptedPasscodes: AcceptedPasscodes
    }

/** Result of {@link PasscodeStore.createAccountPasscode}. */
export type CreateResult =
  | {
      /** Done. */
      readonly ok: true
      /** The record as stored now. */
      readonly record: AccountPasscodeRecord
    }
  | {
      /** Refused; nothing was written. */
      readonly ok: false
      /** The account holds the maximum already, or the name is taken. */
      readonly reason: 'cap_reached' | 'duplicate_name'
    }

/** Fields an edit may change; `nameKey` travels with `name`. */
export interface AccountPasscodePatch {
  /** A new name (normalised and trimmed). */
  readonly name?: string
  /** The key of the new name, given whenever `name` is. */
  readonly nameKey?: string
  /** A new expiry as chosen, given with `expiresAt`. */
  readonly expiry?: AccountPasscodeExpiry
  /** The new expiry instant (UTC milliseconds), `null` for `'forever'`. */
  readonly expiresAt?: number | null
  /** A new binding (normalised names), or `null` to unbind (SPEC §5.25). */
  readonly partners?: readonly string[] | null
  /** A new description (checked and normalised), `''` for none (SPEC §5.39). */
  readonly description?: string
  /** Disables (the instant) or enables (`null`) the passcode (SPEC §5.38). */
  readonly disabledAt?: number | null
  // Restricted passcodes (SPEC §5.48, §5.49, §5.51)
  /** New scopes (sorted, no repeats), `null` for every scope. */
  readonly scopes?: readonly string[] | null
  /** New address ranges (canonical text), `[]` for any address. */
  readonly allowedAddresses?: readonly string[]
  /** New metadata, `null` for none. */
  readonly metadata?: AccountPasscodeRecord['metadata']
  /** New tags, `[]` for none. */
  readonly tags?: readonly string[]
  /** A new rate limit, or `null` to remove it (SPEC §5.50). */
  readonly rateLimit?: RateLimitSetting | null
  /** New credits (a new epoch), or `null` to remove them (SPEC §5.50). */
  readonly credits?: StoredCredits | null
  /** The time of the edit, UTC milliseconds. */
  readonly updatedAt: number
}

/**
 * A rotation (SPEC §5.26): the new value's hash and hint replace the current ones.
 * With `previousHashEndsAt`, the current hash becomes the previous one until then,
 * replacing any earlier previous hash; with `null`, the current value stops at once.
 */
export interface PasscodeRotation {
  /** The hash of the new value. */
  readonly hash: string
  /** The hint of the new value. */
  readonly hint: string
  /** Until when the replaced value keeps verifying (UTC milliseconds); `null` for no overlap. */
  readonly previousHashEndsAt: number | null
  /** The time of the rotation, UTC milliseconds. */
  readonly updatedAt: number
  /** The id of the pepper that keyed `hash` (SPEC §5.28). @default null (unknown) */
  readonly pepperId?: string | null
}

/**
 * A credential that verified under an older pepper (or under an unknown one), to be
 * stored again under the current pepper (SPEC §5.28): `fromHash` is the hash that
 * matched, `toHash` the current pepper's (the same when only the id was unknown).
 *
 * @example
 * ```ts
 * const moved = await store.rehashCredential?.(rehash) // false when the credential changed meanwhile
 * ```
 */
export interface Rehash {
  /** An account passcode or a user passcode. */
  readonly kind: 'account' | 'user'
  /** The account the credential belongs to. */
  readonly accountId: string
  /** The passcode ID (`account`) or the user ID (`user`). */
  readonly id: string
  /** The stored hash that matched; the row moves only while it still holds this one. */
  readonly fromHash: string
  /** The hash under the current pepper. */
  readonly toHash: string
  /** The current pepper's id, stored beside the new hash. */
  readonly pepperId: string
}

/**
 * One passcode's recent use, as an instance batches it (SPEC §5.27): the latest
 * instant it authenticated and, when that batch saw a `/v1/connect`, the partner of
 * the latest one.
 */
export type UsageEntry =
  | {
      /** An account passcode was used. */
      readonly kind: 'account'
      /** Its account. */
      readonly accountId: string
      /** The passcode. */
      readonly passcodeId: string
      /** The latest use in the batch, UTC milliseconds. */
      readonly at: number
      /** The partner of that use when it was a `/v1/connect`, else `null`. */
      readonly partner: string | null
    }
  | {
      /** A user passcode was used. */
      readonly kind: 'user'
      /** Its account. */
      readonly accountId: string
      /** The user. */
      readonly userId: string
      /** The latest use in the batch, UTC milliseconds. */
      readonly at: number
      /** The partner of that use when it was a `/v1/connect`, else `null`. */
      readonly partner: string | null
    }

/** Result of {@link PasscodeStore.updateAccountPasscode}. */
/**
 * How a request with a credential ended, as usage over time counts it (SPEC §5.41):
 * a success, or a refusal that matched the credential (its expiry, its disabled or
 * revoked state, a partner it may not reach on `/v1/connect`, a value a rotation
 * replaced after its overlap ended, a scope its route needs that it lacks, or an
 * address outside its ranges).
 */
export type UsageOutcome =
  | 'succeeded'
  | 'expired'
  | 'disabled'
  | 'revoked'
  | 'wrong_partner'
  | 'rotated_out'
  // SPEC §5.48, §5.49: a valid credential without a scope its route needs, or from an address outside its ranges.
  | 'missing_scope'
  | 'address'
  // SPEC §5.50: the passcode's own rate limit and credits refused it (429).
  | 'rate_limited'
  | 'credits_exhausted'

/**
 * A number of requests of one credential on one UTC day with one outcome, as an
 * instance counted them since its last flush. Stores add `n` to what they hold.
 */
export interface UsageCount {
  /** `account` for an account passcode, `user` for a user passcode. */
  readonly kind: 'account' | 'user'
  /** The credential's account. */
  readonly accountId: string
  /** The passcode id (`account`) or the user id (`user`). */
  readonly key: string
  /** The UTC day, `YYYY-MM-DD`. */
  readonly day: string
  /** The partner (normalised) of a `/v1/connect`, `''` for any other request or an unknown partner. */
  readonly partner: string
  /** How the requests ended. */
  readonly outcome: UsageOutcome
  /** How many requests. */
  readonly n: number
}

/** Which credential's daily counts to read, from which UTC day on. */
export interface UsageQuery {
  /** `account` for an account passcode, `user` for a user passcode. */
  readonly kind: 'account' | 'user'
  /** The credential's account. */
  readonly accountId: string
  /** The passcode id (`account`) or the user id (`user`). */
  readonly key: string
  /** The first day to read, `YYYY-MM-DD`. */
  readonly from: string
}

/** One stored daily count, as `listUsageCounts` answers it. */
export interface StoredUsageCount {
  /** The UTC day, `YYYY-MM-DD`. */
  readonly day: string
  /** The partner of a `/v1/connect`, `''` for any other request. */
  readonly partner: string
  /** How the requests ended. */
  readonly outcome: UsageOutcome
  /** How many requests, from every instance. */
  readonly n: number
}

/** What an edit of an account passcode answers: the record as stored, or why nothing was written. */
export type UpdateResult =
  | {
      /** Done. */
      readonly ok: true
      /** The record as stored now. */
      readonly record: AccountPasscodeRecord
    }
  | {
      /** Refused; nothing was written. */
      readonly ok: false
      /** No such passcode in the account, or the new name is taken. */
      readonly reason: 'not_found' | 'duplicate_name'
    }

/** Result of {@link PasscodeStore.grantUserPasscode}. */
export type GrantResult =
  | {
      /** Done. */
      readonly ok: true
      /** The record as stored now. */
      readonly record: UserPasscodeRecord
    }
  | {
      /** Refused; nothing was written. */
      readonly ok: false
      /** The user holds a live (not revoked) passcode already. */
      readonly reason: 'already_granted'
    }

/**
 * A notification a runner has claimed and must now send, then complete or release.
 * Deduplication is per passcode, kind and expiry instant, so an edit that moves the
 * expiry re-arms both notifications.
 */
export interface NotificationClaim {
  /** The passcode the notification is about. */
  readonly passcodeId: string
  /** Its account. */
  readonly accountId: string
  /** Its name, for the message. */
  readonly name: string
  /** Its hint, for the message (never the value). */
  readonly hint: string
  /** `expiring_soon` or `expired`. */
  readonly kind: NotificationKind
  /** The expiry instant the notification is for (UTC milliseconds); a new expiry re-arms it. */
  readonly expiresAt: number
  /** Opaque token that proves this runner holds the claim. */
  readonly token: string
}

/** What {@link PasscodeStore.claimNotifications} needs to decide what is due. */
export interface ClaimRequest {
  /** The current time, UTC milliseconds, from the service's clock. */
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
 * A confirmed leak to act on (SPEC §5.42), as `auth.leaks.report` hands it to
 * {@link PasscodeStore.reportLeak}: which credential (by the hash that matched, so a
 * concurrent rotation or reset wins), what to do, where it was found, and the claim on
 * its email the reporter holds while it sends it.
 *
 * @example
 * ```ts
 * const mark = await store.reportLeak?.({ id: crypto.randomUUID(), kind: 'account', accountId: 'acc_1', key: passcodeId, hash,
 *   action: 'disable', at: Date.now(), url: 'https://github.com/o/r/blob/main/.env', source: 'github', token: crypto.randomUUID(), claimedUntil: Date.now() + 60_000 })
 * ```
 */
export interface LeakReport {
  /** A fresh id for the mark. */
  readonly id: string
  /** `account` for an account passcode, `user` for a user passcode. */
  readonly kind: 'account' | 'user'
  /** The credential's account. */
  readonly accountId: string
  /** The passcode id (`account`) or the user id (`user`). */
  readonly key: string
  /** The stored hash that matched (an account passcode's current or previous one). */
  readonly hash: string
  /** `disable` or `delete` an account passcode; a user passcode is always revoked (`revoke`). */
  readonly action: 'disable' | 'delete' | 'revoke'
  /** When, UTC milliseconds. */
  readonly at: number
  /** Where it was found, when known. */
  readonly url: string | null
  /** Who found it. */
  readonly source: string
  /** The claim on the mark's email the reporter takes with it. */
  readonly token: string
  /** Until when that claim holds (UTC milliseconds); then the notifier's pass may take the email over. */
  readonly claimedUntil: number
}

/**
 * A leak mark (SPEC §5.42): a credential found in public, where, what was done to it
 * and whether its account's admins were told. It is open until an admin acts (an
 * account passcode enabled, rotated or deleted; a user passcode granted again or
 * reset): an open mark is what the dashboard shows as a banner and a row mark, and what
 * makes a second report of the same value change nothing. Never the value.
 *
 * @example
 * ```ts
 * const open = await store.listLeakMarks?.('acc_1') // the open marks of the account
 * ```
 */
export interface LeakMark {
  /** The mark's id. */
  readonly id: string
  /** `account` for an account passcode, `user` for a user passcode. */
  readonly kind: 'account' | 'user'
  /** The credential's account. */
  readonly accountId: string
  /** The passcode id (`account`) or the user id (`user`). */
  readonly key: string
  /** When it was reported, UTC milliseconds. */
  readonly reportedAt: number
  /** Where it was found; `null` when the report did not say. */
  readonly url: string | null
  /** Who found it. */
  readonly source: string
  /** What was done to it. */
  readonly action: 'disabled' | 'deleted' | 'revoked'
  /** The account passcode's name at the time; `null` for a user passcode. */
  readonly name: string | null
  /** The account passcode's hint at the time; `null` for a user passcode. */
  readonly hint: string | null
  /** When the admins were emailed about it; `null` while they have not been (the notifier's pass retries). */
  readonly notifiedAt: number | null
}

/**
 * A leak mark whose email a runner has claimed and must now send, then complete or release.
 *
 * @example
 * ```ts
 * const [claim] = (await store.claimLeakNotices?.({ now: Date.now(), leaseMs: 300_000, limit: 1, token: crypto.randomUUID() })) ?? []
 * if (claim !== undefined) await store.completeLeakNotice?.(claim, Date.now()) // after the mailer accepted it
 * ```
 */
export interface LeakNoticeClaim extends LeakMark {
  /** Opaque token that proves this runner holds the claim. */
  readonly token: string
}

/**
 * What {@link PasscodeStore.claimLeakNotices} needs to decide what is due.
 *
 * @example
 * ```ts
 * const request: LeakNoticeRequest = { now: Date.now(), leaseMs: 300_000, limit: 50, token: crypto.randomUUID() }
 * ```
 */
export interface LeakNoticeRequest {
  /** The current time, UTC milliseconds. */
  readonly now: number
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
 *
 * A store shared by a fleet proves that it still hears the others (SPEC §5.32; the
 * PostgreSQL store sends itself a notification every `proofIntervalMs`). When it cannot,
 * it says `{ type: 'unproven' }`: subscribers drop everything and trust no cache (each
 * verification reads the store) until `{ type: 'proven' }`, after which they drop
 * everything once more and cache again. A store that cannot miss anything (memory,
 * PGlite) never says either. Each proof heard back also says `{ type: 'fresh', until }`:
 * every change committed before that proof was sent has been heard, so subscribers may
 * answer from what they hold until `until` and not after it without a newer one (a
 * process so starved that its proofs run late then reads the store, whatever its own
 * timers did). A store that never says it leaves caches unbounded by it.
 *
 * @example
 * ```ts
 * let trusted = true
 * store.subscribe?.((invalidation) => {
 *   if (invalidation.type === 'unproven' || invalidation.type === 'proven') trusted = invalidation.type === 'proven'
 *   cache.clear() // or drop only what a credential invalidation names
 * })
 * ```
 */
export type Invalidation =
  | {
      /** One account passcode changed or went. */
      readonly type: 'account_passcode'
      /** Its account. */
      readonly accountId: string
      /** The passcode. */
      readonly passcodeId: string
    }
  | {
      /** One user passcode changed or went. */
      readonly type: 'user_passcode'
      /** Its account. */
      readonly accountId: string
      /** The user. */
      readonly userId: string
    }
  | {
      /** Everything cached for an account (its accepted-passcodes setting changed). */
      readonly type: 'account'
      /** The account. */
      readonly accountId: string
    }
  | {
      /** Everything cached (the store may have missed invalidations, e.g. after a reconnect). */
      readonly type: 'all'
    }
  | {
      /** The store can no longer prove it hears other instances' changes: drop everything and cache nothing until `proven`. */
      readonly type: 'unproven'
      /** Why, and what an operator can do about it; no secret. */
      readonly message: string
    }
  | {
      /** Delivery is proven again: drop everything (changes may have been missed meanwhile), then cache again. */
      readonly type: 'proven'
    }
  | {
      /** A proof came back: every change committed before it was sent has been heard. Nothing is dropped. */
      readonly type: 'fresh'
      /**
       * Until when what is held may answer without a newer proof: a `performance.now()`
       * instant of this process (monotonic; a wall clock set back cannot extend it).
       */
      readonly until: number
    }

/**
 * Where passcodes live. The store owns atomicity: the cap and name uniqueness are
 * checked in the same transaction (or lock) as the insert, and verification is one
 * lookup by hash. Instants are epoch milliseconds (UTC). Implementations: memory
 * (reference) and PostgreSQL/PGlite; `test/conformance/store.ts` is the contract.
 *
 * Each write method takes an optional trailing `audit` record (SPEC §5.40, §5.44): the
 * store appends its entry to the account's audit chain in the same transaction as the
 * change, signed by its signer in the process (the key never goes to the database), and
 * only when the change happens (a refusal or a `null` result writes none). Where the entry
 * was made from a read before the change, the store takes the values that read gave
 * from the row as it changes it, and an entry it cannot encode fails the write whole.
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
  createAccountPasscode(record: AccountPasscodeRecord, maxPerAccount: number, audit?: AuditAppend): Promise<CreateResult>
  /**
   * Applies a patch; keeps name uniqueness atomic. Publishes an invalidation when the
   * name, expiry, binding, disabled state, scopes, address ranges, metadata, rate limit or
   * credits change (a description or tags alone change nothing a verification reads). Its `audit` record shows the edited fields, before
   * and after, and a passcode target's name as in the row it changed, not as in the
   * entry, which was made from an earlier read (`editedPasscodeEntry`, core/audit-fields.ts).
   */
  updateAccountPasscode(accountId: string, passcodeId: string, patch: AccountPasscodePatch, audit?: AuditAppend): Promise<UpdateResult>
  /**
   * Replaces the passcode's hash and hint, keeping the old hash as the previous one
   * for the overlap (see {@link PasscodeRotation}), unless the passcode has an open leak
   * mark: a leaked value gets no overlap, whatever `previousHashEndsAt` asks (SPEC
   * §5.45); the mark is closed. `null` when there is no such passcode. Publishes an invalidation. Its `audit` record shows `previousValueEndsAt`
   * before and after, and a passcode target's name, as in the row it changed
   * (`rotatedPasscodeEntry`, core/audit-fields.ts).
   */
  rotateAccountPasscode(accountId: string, passcodeId: string, rotation: PasscodeRotation, audit?: AuditAppend): Promise<AccountPasscodeRecord | null>
  /**
   * Deletes at once (its current and previous value); returns the deleted record, or
   * `null`. Publishes an invalidation. Its `audit` record shows the fields and a passcode
   * target's name of the row it deleted (`deletedPasscodeEntry`, core/audit-fields.ts).
   */
  deleteAccountPasscode(accountId: string, passcodeId: string, audit?: AuditAppend): Promise<AccountPasscodeRecord | null>
  /** One passcode of the account, or `null`. */
  getAccountPasscode(accountId: string, passcodeId: string): Promise<AccountPasscodeRecord | null>
  /** Every non-deleted passcode of the account, oldest first. */
  listAccountPasscodes(accountId: string): Promise<AccountPasscodeRecord[]>

  /**
   * The verification lookup: one indexed read by hash, across account and user
   * passcodes, that also finds an account passcode by its previous hash (whether its
   * overlap has ended is the caller's check, against `previousHashEndsAt`), in one
   * statement (one snapshot): a rotation that moves the hash to the previous one is seen
   * whole or not at all.
   */
  findCredentialByHash(hash: string): Promise<CredentialMatch | null>
  /**
   * The verification lookup of one value under several peppers (SPEC §5.28, §5.34): for
   * each of `hashes`, what {@link PasscodeStore.findCredentialByHash} answers for it, in
   * the same order, all read from one state of the store (one statement, so one snapshot,
   * in SQL; without yielding in memory). A write that moves the credential from one of
   * these hashes to another ({@link PasscodeStore.rehashCredential} by an instance on
   * another step of a pepper change), alone or with a rotation, a disable or an enable,
   * is then seen whole or not at all: one of the hashes finds the credential, in the state
   * before the write or after it. Lookups of the hashes one after the other could each
   * miss it, the row having moved between them.
   *
   * Called only while the `pepper` option has more than one pepper (one pepper is one
   * {@link PasscodeStore.findCredentialByHash}). Optional: without it the service reads
   * the hashes one by one in the order a re-hash moves them (the previous peppers', the
   * current one's, then the next ones'), which never misses a moving credential on a
   * store where each read sees every write that finished before it started, and costs
   * more reads: a value under the current pepper takes one read per previous pepper more.
   *
   * @example
   * ```ts
   * const [current, previous] = await store.findCredentialsByHashes!([currentHash, previousHash])
   * const match = current ?? previous // null: no credential holds either
   * ```
   */
  findCredentialsByHashes?(hashes: readonly string[]): Promise<readonly (CredentialMatch | null)[]>

  /**
   * Stores a credential's hash again under the current pepper (SPEC §5.28), only if its
   * hash is still `fromHash` (a concurrent reset or rotation wins); `true` when written.
   * No invalidation: the credential and its value are unchanged. Optional: without it,
   * hashes stay under the pepper that made them. A store that has it and is shared by
   * instances of a fleet implements {@link PasscodeStore.findCredentialsByHashes} too, or
   * answers each read with every write that finished before it started (see there).
   */
  rehashCredential?(rehash: Rehash): Promise<boolean>
  /**
   * How many stored hashes (account and user passcodes, not deleted) each pepper id
   * keys at `now`: each current hash, and the previous hash of a rotation whose overlap
   * has not ended at `now` (`previousHashEndsAt`), under the pepper that keyed it
   * (`previousPepperId`, SPEC §5.47); hashes whose pepper is unknown are counted under
   * `null`. Optional. It counts every hash, so its cost grows with the tables (on
   * PostgreSQL one read of each table: about 5 s at 10 million passcodes): for a pepper
   * rotation, not for a schedule.
   */
  countHashesByPepper?(now: number): Promise<ReadonlyMap<string | null, number>>

  /**
   * Records a batch of uses in one write (one statement in SQL): for each entry whose
   * instant is later than the stored `lastUsedAt`, sets it and `lastUsedPartner` to the
   * entry's partner, `null` included: the pair comes from one request (SPEC §5.46), so a
   * use with no partner clears the one before. Entries of deleted passcodes are skipped. Publishes nothing: usage
   * never invalidates a cache. Resolves how many passcodes were written.
   */
  recordUsage(entries: readonly UsageEntry[]): Promise<number>

  /**
   * Adds a batch of daily counts (SPEC §5.41) to the stored ones, in one write (one
   * `INSERT ... ON CONFLICT DO UPDATE SET n = n + excluded.n` in SQL), so counts from
   * many instances add up. Called by the same batched flush as `recordUsage`, never
   * on a request. Optional: a store without it keeps no usage history.
   */
  recordUsageCounts?(counts: readonly UsageCount[]): Promise<void>
  /** One credential's daily counts from `query.from` on, oldest day first. Optional, with `recordUsageCounts`. */
  listUsageCounts?(query: UsageQuery): Promise<StoredUsageCount[]>
  /**
   * Deletes at most `limit` daily counts of days before `before` (`YYYY-MM-DD`);
   * resolves how many it deleted, so that the caller repeats while it got `limit`.
   */
  pruneUsageCounts?(before: string, limit: number): Promise<number>

  /**
   * Stores a user passcode unless the user holds one that is neither revoked nor
   * expired at `now`; a revoked or expired one is replaced.
   */
  grantUserPasscode(record: UserPasscodeRecord, now: number, audit?: AuditAppend): Promise<GrantResult>
  /**
   * Replaces the value of a live user passcode; `null` when none is live. Publishes an
   * invalidation. Its `audit` record shows `expiresAt` before and after as in the row it
   * changed (`resetUserPasscodeEntry`, core/audit-fields.ts).
   */
  resetUserPasscode(
    accountId: string,
    userId: string,
    fields: Pick<UserPasscodeRecord, 'hash' | 'ciphertext' | 'hint' | 'grantedAt' | 'expiresAt' | 'pepperId'>,
    audit?: AuditAppend,
  ): Promise<UserPasscodeRecord | null>
  /** Marks the user passcode revoked; `null` when there is none or it is revoked already. Publishes an invalidation. */
  revokeUserPasscode(accountId: string, userId: string, revokedAt: number, audit?: AuditAppend): Promise<UserPasscodeRecord | null>
  /** The user's passcode, revoked or not, or `null`. */
  getUserPasscode(accountId: string, userId: string): Promise<UserPasscodeRecord | null>
  /** Every user passcode of the account, revoked and expired ones included, by user ID (code-point order). */
  listUserPasscodes(accountId: string): Promise<UserPasscodeRecord[]>

  /** The account's setting; `'account'` when never set. */
  getAcceptedPasscodes(accountId: string): Promise<AcceptedPasscodes>
  /**
   * Changes the account's setting. Publishes an invalidation. Its `audit` record shows
   * `acceptedPasscodes` before (as stored when it changed) and after (`acceptedPasscodesEntry`).
   */
  setAcceptedPasscodes(accountId: string, accepted: AcceptedPasscodes, audit?: AuditAppend): Promise<void>

  /**
   * Claims due notifications that are neither sent nor claimed by a live lease, of
   * passcodes that are not disabled (SPEC §5.38). Two concurrent callers never receive
   * the same claim, and a call answers fewer than `limit` claims only when nothing more
   * was due and free of a live lease (the notifier ends its pass on a short batch). Its cost follows what is due, not what is stored: a store reads
   * only passcodes whose email is not sent for their current expiry (the SQL store
   * through partial indexes, with `SKIP LOCKED`).
   */
  claimNotifications(request: ClaimRequest): Promise<NotificationClaim[]>
  /** Records that the claimed notification was sent. `false` when the claim was lost. */
  completeNotification(claim: NotificationClaim, sentAt: number, audit?: AuditAppend): Promise<boolean>
  /** Gives a claim back after a failed send, so the next pass retries it. */
  releaseNotification(claim: NotificationClaim): Promise<void>

  /**
   * Acts on a confirmed leak (SPEC §5.42) in one transaction, only if the credential
   * still holds `report.hash` and has no open leak mark: disables (keeping an earlier
   * disable's instant) or deletes the account passcode, or revokes the user passcode
   * (only while it is not revoked), stores the mark with its email claimed by
   * `report.token`, appends `audit`, and publishes an invalidation. Of concurrent reports
   * of one credential exactly one changes it. Resolves the mark, or `null` when nothing
   * changed. Optional: without it `auth.leaks.report` labels tokens but cannot act.
   * Its `audit` record names an account passcode as the row it acted on and shows
   * `disabled` only when this report disabled it (`leakReportedEntry`).
   */
  reportLeak?(report: LeakReport, audit?: AuditAppend): Promise<LeakMark | null>
  /** The open leak marks of the account (see {@link LeakMark}), oldest first. */
  listLeakMarks?(accountId: string): Promise<LeakMark[]>
  /**
   * Claims leak marks whose email is not sent and whose claim lapsed (`claimedUntil`
   * passed), open or not, oldest first; two concurrent callers never get the same one.
   */
  claimLeakNotices?(request: LeakNoticeRequest): Promise<LeakNoticeClaim[]>
  /** Records that the claimed leak email was sent, with `audit`; `false` when the claim was lost. */
  completeLeakNotice?(claim: LeakNoticeClaim, sentAt: number, audit?: AuditAppend): Promise<boolean>
  /** Gives a leak email's claim back after a failed send, so the next pass retries it. */
  releaseLeakNotice?(claim: LeakNoticeClaim): Promise<void>

  // Accounts' policies (SPEC §5.52): see AccountPolicyPart (account-policy-part.ts), all or none.
  /** See `AccountPolicyPart.getAccountPolicy`. */
  getAccountPolicy?(accountId: string): Promise<AccountPolicy | null>
  /** See `AccountPolicyPart.setAccountPolicy`. */
  setAccountPolicy?(
    accountId: string,
    policy: AccountPolicy | null,
    notice: PolicyNoticeRequest | null,
    audit?: AuditAppend,
  ): Promise<AccountPolicy | null>
  /** See `AccountPolicyPart.claimPolicyNotices`. */
  claimPolicyNotices?(request: {
    readonly now: number
    readonly leaseMs: number
    readonly limit: number
    readonly token: string
  }): Promise<PolicyNoticeClaim[]>
  /** See `AccountPolicyPart.completePolicyNotice`. */
  completePolicyNotice?(claim: PolicyNoticeClaim, sentAt: number, audit?: AuditAppend): Promise<boolean>
  /** See `AccountPolicyPart.releasePolicyNotice`. */
  releasePolicyNotice?(claim: PolicyNoticeClaim): Promise<void>

  // Limits and credits (SPEC §5.50): see LimitsPart (limits-part.ts), all or none.
  /** See `LimitsPart.leaseLimits`. */
  leaseLimits?(request: LimitsLeaseRequest): Promise<LimitsLease | null>
  /** See `LimitsPart.returnLimits`. */
  returnLimits?(returns: readonly LimitsReturn[], now: number): Promise<void>
  /** See `LimitsPart.listCreditBalances`. */
  listCreditBalances?(accountId: string, now: number): Promise<CreditBalance[]>
  /** See `LimitsPart.claimCreditNotices`. */
  claimCreditNotices?(request: CreditNoticeRequest): Promise<CreditNoticeClaim[]>
  /** See `LimitsPart.completeCreditNotice`. */
  completeCreditNotice?(claim: CreditNoticeClaim, sentAt: number, audit?: AuditAppend): Promise<boolean>
  /** See `LimitsPart.releaseCreditNotice`. */
  releaseCreditNotice?(claim: CreditNoticeClaim): Promise<void>

  /**
   * Subscribes to invalidations published by any instance sharing this storage.
   * Returns the unsubscribe function.
   */
  subscribe?(listener: (invalidation: Invalidation) => void): () => void
  /**
   * The audit trail (SPEC §5.40): reading, appending what changes nothing, pruning.
   * Optional for stores written before it; without it `auth.audit` throws a
   * `ConfigurationError` and write methods ignore their `audit` argument.
   */
  readonly audit?: AuditLog
  /**
   * Webhook endpoints and the event outbox (SPEC §5.53), in this same storage: each
   * change's events are stored in its transaction. Optional for stores written before
   * it; without it `auth.webhooks` throws a `ConfigurationError`.
   */
  readonly webhooks?: WebhookStore

  /** Releases connections or listeners the store opened itself. */
  close?(): Promise<void>
}

/**
 * A store whose parts come together for webhooks (SPEC §5.53): the passcodes, their
 * audit trail and the outbox, one storage, so that an event commits with its change.
 *
 * @example
 * ```ts
 * const store: PasscodeStoreWithWebhooks = memoryStore()
 * await store.webhooks.listEndpoints('acc_1')
 * ```
 */
export type PasscodeStoreWithWebhooks = PasscodeStore & {
  /** The audit trail, whose appends fill the webhook outbox. */
  readonly audit: AuditLog
  /** Webhook endpoints, the outbox and its deliveries. */
  readonly webhooks: WebhookStore
}
