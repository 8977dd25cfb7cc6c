import type { AuditSigner } from '../../core/audit'
import type { LeakMark, LeakNoticeClaim, PasscodeStore } from '../../ports/passcode-store'
import { auditEntry } from '../audit-entry'
import type { LeakNoticeResult } from '../leak-notice-result'
import { leakMessage, type LeakMessageData } from './leak-message'

/** What sending leak emails needs of the service. */
export interface LeakNoticesContext {
  readonly store: PasscodeStore
  readonly now: () => number
  /** Signs the audit records of the emails sent (SPEC §5.44). */
  readonly auditSigner: AuditSigner
  /** Who to email for the account; `null` when there is no mailer or no recipients, or they could not be resolved. */
  readonly recipients: (accountId: string) => Promise<readonly string[] | null>
  /** Sends one email within `sendTimeoutMs`; `false` when the send failed or timed out. */
  readonly deliver: (to: readonly string[], message: { readonly subject: string; readonly text: string; readonly html: string }) => Promise<boolean>
  /** The longest a send may take (the `notifier.sendTimeoutMs` option). */
  readonly sendTimeoutMs: number
}

/** Why a leak email did not go: the mailer failed, or too little of the claim's lease was left to start it. */
type Unsent = NonNullable<LeakNoticeResult['reason']>

/** The email of a mark: names, hints and places, never the value. */
export function leakMessageData(mark: LeakMark): LeakMessageData {
  return {
    kind: mark.kind,
    accountId: mark.accountId,
    name: mark.kind === 'account' ? (mark.name ?? mark.key) : `user ${mark.key}`,
    hint: mark.hint,
    source: mark.source,
    url: mark.url,
    action: mark.action,
  }
}

/**
 * The leak emails (SPEC §5.42), durable: each mark stays "admins not told" until the
 * mailer accepted its email. The report that made the mark sends it at once, under the
 * claim it took with the mark; a failed send gives the claim back, and the notifier's
 * pass (`notifyExpirations`) claims what is unsent, with `SKIP LOCKED` on PostgreSQL, and
 * sends it again. Exactly once when nothing crashes; a crash between the mailer's
 * acceptance and the store's record sends it once more after the lease (at least once).
 */
export function createLeakNotices(context: LeakNoticesContext) {
  const { store } = context

  /** Mails the claim's email unless too little of its lease is left; why not when it did not go. */
  async function mail(claim: LeakNoticeClaim, until: number): Promise<Unsent | null> {
    const to = await context.recipients(claim.accountId)
    if (to === null) return 'send_failed'
    if (context.now() + context.sendTimeoutMs >= until) return 'lease_too_short'
    return (await context.deliver(to, leakMessage(leakMessageData(claim)))) ? null : 'send_failed'
  }

  /**
   * Sends one claimed email and records it; why not when it did not go (the claim given
   * back unless `hold`). As the expiry emails do, it starts no send that could outlast
   * the claim's lease (`until`): another runner could take the claim over meanwhile and
   * send it a second time.
   */
  async function deliver(claim: LeakNoticeClaim, until: number, hold: boolean): Promise<Unsent | null> {
    const unsent = await mail(claim, until)
    if (unsent !== null) {
      // A release that fails only delays the retry until the lease runs out.
      if (!hold) await store.releaseLeakNotice?.(claim).catch(() => undefined)
      return unsent
    }
    try {
      const at = context.now()
      const target =
        claim.kind === 'account'
          ? { type: 'passcode' as const, id: claim.key, name: claim.name ?? claim.key }
          : { type: 'user' as const, id: claim.key }
      const record = auditEntry(context.auditSigner, 'system', claim.accountId, at, 'notification.sent', target, {
        notification: { before: null, after: 'leak_reported' },
      })
      await store.completeLeakNotice?.(claim, at, record)
    } catch {
      // The email went out; an unrecorded send may repeat once the lease ends (at least once beats never).
    }
    return null
  }

  /** Sends the email of a mark the report just made, under the claim it took with it until `until`; `false` when it did not go. */
  async function send(claim: LeakNoticeClaim, until: number): Promise<boolean> {
    return (await deliver(claim, until, false)) === null
  }

  /** One pass over the unsent leak emails, oldest first; failed ones are given back at the end for the next pass. */
  async function pass(options: { readonly leaseMs: number; readonly batchSize: number }): Promise<LeakNoticeResult[]> {
    const claimLeakNotices = store.claimLeakNotices?.bind(store)
    if (claimLeakNotices === undefined) return []
    const results: LeakNoticeResult[] = []
    const unsent: LeakNoticeClaim[] = []
    const seen = new Set<string>()
    try {
      for (;;) {
        const claimedAt = context.now()
        const claims = await claimLeakNotices({ now: claimedAt, leaseMs: options.leaseMs, limit: options.batchSize, token: crypto.randomUUID() })
        let fresh = 0
        for (const claim of claims) {
          if (seen.has(claim.id)) {
            unsent.push(claim)
            continue
          }
          seen.add(claim.id)
          fresh++
          const reason = await deliver(claim, claimedAt + options.leaseMs, true)
          if (reason !== null) unsent.push(claim)
          results.push({
            accountId: claim.accountId,
            kind: claim.kind,
            key: claim.key,
            reportedAt: new Date(claim.reportedAt),
            sent: reason === null,
            reason,
          })
        }
        if (claims.length < options.batchSize || fresh === 0) break
      }
    } finally {
      await Promise.allSettled(unsent.map(async (claim) => store.releaseLeakNotice?.(claim)))
    }
    return results
  }

  return { send, pass }
}

/** The leak emails' sender, as {@link createLeakNotices} builds it. */
export type LeakNotices = ReturnType<typeof createLeakNotices>
