import type { AuditAppend } from './audit-log'
import type { AccountPolicy } from '../core/policy'

/**
 * The email that tells an account's admins how many of its passcodes break a policy set
 * after them (SPEC §5.52): one per policy change that finds any, durable like the leak
 * emails (claimed, sent, recorded; retried by the notifier's pass until sent). An account
 * has at most one: a newer change replaces one not sent yet.
 *
 * @example
 * ```ts
 * const [claim] = (await store.claimPolicyNotices?.({ now: Date.now(), leaseMs: 300_000, limit: 1, token: crypto.randomUUID() })) ?? []
 * ```
 */
export interface PolicyNotice {
  /** The account whose admins it is for. */
  readonly accountId: string
  /** The policy as set. */
  readonly policy: AccountPolicy
  /** How many passcodes (account and user) broke it when it was set. */
  readonly count: number
  /** When the policy was set, UTC milliseconds. */
  readonly setAt: number
  /** When the admins were emailed; `null` while they have not been. */
  readonly notifiedAt: number | null
}

/**
 * A policy email a runner has claimed and must now send, then complete or release.
 *
 * @example
 * ```ts
 * // `record`: the `notification.sent` entry and its signer (AuditAppend)
 * if (claim !== undefined) await store.completePolicyNotice?.(claim, Date.now(), record)
 * ```
 */
export interface PolicyNoticeClaim extends PolicyNotice {
  /** Opaque token that proves this runner holds the claim. */
  readonly token: string
}

/**
 * The email a policy change asks for, and the claim its setter takes on it while it
 * sends it at once.
 *
 * @example
 * ```ts
 * const notice: PolicyNoticeRequest = { policy, setAt: Date.now(), count: 3, token: crypto.randomUUID(), claimedUntil: Date.now() + 300_000 }
 * ```
 */
export interface PolicyNoticeRequest {
  /** The policy the passcodes break: the account's new one, or the host's default when it went back to it. */
  readonly policy: AccountPolicy
  /** When the policy was set, UTC milliseconds. */
  readonly setAt: number
  /** How many passcodes break the new policy (more than 0). */
  readonly count: number
  /** The claim the setter takes on the email. */
  readonly token: string
  /** Until when that claim holds (UTC milliseconds); then the notifier's pass may take it over. */
  readonly claimedUntil: number
}

/**
 * Accounts' policies (SPEC §5.52), an optional part of a store: without it every account
 * has the host's default (the `policy` option) and `auth.accounts.setPolicy` throws a
 * `ConfigurationError`.
 *
 * @example
 * ```ts
 * const policy = await store.getAccountPolicy?.('acc_1') // null: the host's default applies
 * ```
 */
export interface AccountPolicyPart {
  /** The account's own policy, or `null` when it has none (the host's default applies). */
  getAccountPolicy(accountId: string): Promise<AccountPolicy | null>
  /**
   * Sets the account's policy (`null`: back to the host's default), with its audit record
   * (`policyChangedEntry`: each rule before and after, from the row) and, when `notice`
   * is given, its email, claimed by `notice.token`; without one, an email not sent yet is
   * dropped (it counted against a policy no longer set). One transaction. Publishes no
   * invalidation: a policy changes no credential. Resolves the policy it replaced.
   */
  setAccountPolicy(
    accountId: string,
    policy: AccountPolicy | null,
    notice: PolicyNoticeRequest | null,
    audit: AuditAppend,
  ): Promise<AccountPolicy | null>
  /** Claims policy emails not sent whose claim lapsed, oldest first; two concurrent callers never get the same one. */
  claimPolicyNotices(request: {
    readonly now: number
    readonly leaseMs: number
    readonly limit: number
    readonly token: string
  }): Promise<PolicyNoticeClaim[]>
  /** Records that the claimed email was sent, with `audit`; `false` when the claim was lost (a newer policy replaced it). */
  completePolicyNotice(claim: PolicyNoticeClaim, sentAt: number, audit: AuditAppend): Promise<boolean>
  /** Gives a claim back after a failed send, so the next pass retries it. */
  releasePolicyNotice(claim: PolicyNoticeClaim): Promise<void>
}
