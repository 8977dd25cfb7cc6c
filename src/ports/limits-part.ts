import type { CreditCrossing } from '../core/webhook-events'
import type { AuditAppend } from './audit-log'

/**
 * What an instance asks the store for on behalf of one credential (SPEC §5.50): a block
 * of credits and a block of slots of the rate window that holds `now`, either of them
 * 0 when not wanted. The store reads the credential's settings itself (never the
 * instance's, which may be older).
 *
 * @example
 * ```ts
 * const lease = await store.leaseLimits({ kind: 'account', accountId: 'acc_1', key: passcodeId, now: Date.now(), credits: 50, slots: 10,
 *   lowRatio: 0.1, notices: { token: crypto.randomUUID(), claimedUntil: Date.now() + 60_000 } })
 * ```
 */
export interface LimitsLeaseRequest {
  /** `account` for an account passcode, `user` for a user passcode. */
  readonly kind: 'account' | 'user'
  /** The credential's account. */
  readonly accountId: string
  /** The passcode id (`account`) or the user id (`user`). */
  readonly key: string
  /** The instant of the request, UTC milliseconds: picks the refill interval and the rate window. */
  readonly now: number
  /** Credits wanted, 0 or more. */
  readonly credits: number
  /** Slots of the current rate window wanted, 0 or more. */
  readonly slots: number
  /** The low-credits line as a fraction (0 to 1) of the full amount (the service's `passcodeLimits.lowCreditsRatio`). */
  readonly lowRatio: number
  /** The claim a notice this lease makes is taken with, for the instance that crossed to email it at once. */
  readonly notices: {
    /** The claim's opaque token, taken on a notice this lease makes. */
    readonly token: string
    /** Until when, UTC milliseconds, the claim holds it. */
    readonly claimedUntil: number
  }
}

/** What a lease handed out. */
export interface LimitsLease {
  /** The credits part; `null` when the credential has no credits (any more). */
  readonly credits: {
    /** Credits handed out, 0 when the store has none. */
    readonly granted: number
    /** What the store holds after this lease, for every other instance. */
    readonly balance: number
    /** The setting they were leased from: a return names it. */
    readonly epoch: string
    /** The start of the refill interval they were leased from (0 without a refill): a return names it. */
    readonly period: number
  } | null
  /** The rate part; `null` when the credential has no rate limit (any more). */
  readonly slots: {
    /** Slots handed out, 0 when the window is full (or passed). */
    readonly granted: number
    /** The start of the window they belong to, UTC milliseconds. */
    readonly windowStart: number
    /** The window's length, milliseconds. */
    readonly windowMs: number
  } | null
  /** The notices this lease crossed into (`credits.low`, `credits.exhausted`), claimed with the request's token. */
  readonly notices: readonly CreditNoticeClaim[]
}

/**
 * Unspent credits and unused slots an instance gives back (idle, or closing). Credits
 * go back only into the setting and refill interval they came from, slots only into
 * their window while it lasts: anything else would let them be spent twice.
 */
export interface LimitsReturn {
  /** `account` for an account passcode, `user` for a user passcode. */
  readonly kind: 'account' | 'user'
  /** The account it belongs to. */
  readonly accountId: string
  /** The passcode id (`account`) or the user id (`user`). */
  readonly key: string
  /** Credits to give back, with the epoch and period of their lease; 0 for none. */
  readonly credits: number
  /** The credits setting the lease came from (`LimitsLease.epoch`): a newer setting takes none back. */
  readonly epoch: string
  /** The refill interval the lease came from (`LimitsLease.period`): a later one takes none back. */
  readonly period: number
  /** Slots to give back, with the window of their lease; 0 for none. */
  readonly slots: number
  /** The window the slots came from, its start in UTC milliseconds. */
  readonly windowStart: number
  /** That window's length in milliseconds. */
  readonly windowMs: number
}

/** A credential's balance as the store holds it now (unleased credits), for lists. */
export interface CreditBalance {
  /** `account` for an account passcode, `user` for a user passcode. */
  readonly kind: 'account' | 'user'
  /** The passcode id (`account`) or the user id (`user`). */
  readonly key: string
  /** Credits the store holds now, the current refill applied. */
  readonly balance: number
}

/**
 * A low-credits or credits-exhausted notice (SPEC §5.50): made by the one lease that
 * crossed the line, fleet-wide, and emailed to the account's admins (durable, like the
 * leak emails: retried by the notifier's pass until sent). Its crossing's fields are
 * {@link CreditCrossing}'s, which also make its webhook event.
 */
export interface CreditNotice extends CreditCrossing {
  /** The notice's id. */
  readonly id: string
  /** The account it belongs to. */
  readonly accountId: string
  /** The account passcode's hint; `null` for a user passcode. */
  readonly hint: string | null
}

/** A notice whose email a runner claimed and must now send, then complete or release. */
export interface CreditNoticeClaim extends CreditNotice {
  /** Opaque token that proves this runner holds the claim. */
  readonly token: string
}

/** What {@link LimitsPart.claimCreditNotices} needs to decide what is due. */
export interface CreditNoticeRequest {
  /** The time of the claim, UTC milliseconds. */
  readonly now: number
  /** How long the claim holds the notices it takes, in milliseconds. */
  readonly leaseMs: number
  /** The most notices to claim. */
  readonly limit: number
  /** The claim's opaque token, which completing or releasing must present. */
  readonly token: string
}

/**
 * Limits and credits (SPEC §5.50), an optional part of a store, all or nothing: the
 * counters instances lease credits and window slots from, atomically, so a fleet
 * spends at most the balance and admits at most `max` per window, with no write per
 * request. A store without it cannot keep limits: `createPasscodeAuth` refuses to set
 * them.
 *
 * @example
 * ```ts
 * const limits: LimitsPart = memoryStore()
 * const lease = await limits.leaseLimits(request)
 * ```
 */
export interface LimitsPart {
  /**
   * Hands out up to the credits and slots asked for, in one atomic step (one statement
   * in SQL): never more than half of what is left of either, rounded up, never below 0
   * nor above the window's `max`. Applies a new setting (its epoch) or refill lazily.
   * `null` when the credential does not exist.
   */
  leaseLimits(request: LimitsLeaseRequest): Promise<LimitsLease | null>
  /** Gives back unspent credits and unused slots, in one write, into what they were leased from only. */
  returnLimits(returns: readonly LimitsReturn[], now: number): Promise<void>
  /** The balances of the account's credentials that have credits, as of `now`. */
  listCreditBalances(accountId: string, now: number): Promise<CreditBalance[]>
  /** Claims notices whose email is not sent and whose claim lapsed, oldest first; two callers never get the same. */
  claimCreditNotices(request: CreditNoticeRequest): Promise<CreditNoticeClaim[]>
  /** Records that the claimed notice's email was sent, with `audit`; `false` when the claim was lost. */
  completeCreditNotice(claim: CreditNoticeClaim, sentAt: number, audit: AuditAppend): Promise<boolean>
  /** Gives a claim back after a failed send, so the next pass retries it. */
  releaseCreditNotice(claim: CreditNoticeClaim): Promise<void>
}
