import type { AuditAppend } from './audit-log'

/**
 * A confirmed leak to act on (SPEC §5.42), as `auth.leaks.report` hands it to
 * {@link LeaksPart.reportLeak}: which credential (by the hash that matched, so a
 * concurrent rotation or reset wins), what to do, where it was found, and the claim on
 * its email the reporter holds while it sends it.
 *
 * @example
 * ```ts
 * const mark = await store.reportLeak?.({ id: crypto.randomUUID(), kind: 'account', accountId: 'acc_1', key: passcodeId, hash,
 *   action: 'disable', at: Date.now(), url: 'https://github.com/o/r/blob/main/.env', source: 'github', token: crypto.randomUUID(), claimedUntil: Date.now() + 60_000 },
 *   record) // the `passcode.leak_reported` entry and its signer (AuditAppend)
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
 * if (claim !== undefined) await store.completeLeakNotice?.(claim, Date.now(), record) // after the mailer accepted it, with its record
 * ```
 */
export interface LeakNoticeClaim extends LeakMark {
  /** Opaque token that proves this runner holds the claim. */
  readonly token: string
}

/**
 * What {@link LeaksPart.claimLeakNotices} needs to decide what is due.
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
 * Leaks (SPEC §5.42), an optional part of {@link PasscodeStore}, all or nothing:
 * without it `auth.leaks.report` labels tokens but cannot act.
 *
 * @example
 * ```ts
 * const leaks: LeaksPart = memoryStore()
 * const open = await leaks.listLeakMarks('acc_1')
 * ```
 */
export interface LeaksPart {
  /**
   * Acts on a confirmed leak (SPEC §5.42) in one transaction, only if the credential
   * still holds `report.hash` and has no open leak mark: disables (keeping an earlier
   * disable's instant) or deletes the account passcode, or revokes the user passcode
   * (only while it is not revoked), stores the mark with its email claimed by
   * `report.token`, appends `audit`, and publishes an invalidation. Of concurrent reports
   * of one credential exactly one changes it. Resolves the mark, or `null` when nothing
   * changed. Optional: without it `auth.leaks.report` labels tokens but cannot act.
   * Its `audit` record names an account passcode as the row it acted on and shows
   * `disabled` only when this report disabled it (`leakReportedEntry`). A disable whose
   * `report.hash` is the passcode's current hash (not its previous one) sets its
   * `valueLeaked`, disabled before or not (SPEC §5.45), which an enable or an edit keeps.
   */
  reportLeak(report: LeakReport, audit: AuditAppend): Promise<LeakMark | null>
  /** The open leak marks of the account (see {@link LeakMark}), oldest first. */
  listLeakMarks(accountId: string): Promise<LeakMark[]>
  /**
   * Claims leak marks whose email is not sent and whose claim lapsed (`claimedUntil`
   * passed), open or not, oldest first; two concurrent callers never get the same one.
   */
  claimLeakNotices(request: LeakNoticeRequest): Promise<LeakNoticeClaim[]>
  /** Records that the claimed leak email was sent, with `audit`; `false` when the claim was lost. */
  completeLeakNotice(claim: LeakNoticeClaim, sentAt: number, audit: AuditAppend): Promise<boolean>
  /** Gives a leak email's claim back after a failed send, so the next pass retries it. */
  releaseLeakNotice(claim: LeakNoticeClaim): Promise<void>
}
