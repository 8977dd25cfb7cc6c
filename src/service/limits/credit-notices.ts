import type { AuditSigner } from '../../core/audit'
import type { CreditNoticeClaim } from '../../ports/limits-part'
import type { PasscodeStore } from '../../ports/passcode-store'
import { auditEntry } from '../audit-entry'
import type { CreditNoticeResult } from '../credit-notice-result'
import { creditMessage } from './credit-message'

/** What sending credit emails needs of the service. */
export interface CreditNoticesContext {
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

/**
 * The credit emails (SPEC §5.50), durable as the leak emails are: the one lease that
 * crossed the low line or found no credit makes the notice with its claim taken, and its
 * instance sends the email at once; a failed send gives the claim back, and the
 * notifier's pass (`notifyExpirations`) claims what is unsent and sends it again.
 * Exactly once when nothing crashes; at least once when something does.
 *
 * @example
 * ```ts
 * const notices = createCreditNotices(context)
 * void notices.send(claim, claim.at + 300_000)
 * ```
 */
export function createCreditNotices(context: CreditNoticesContext) {
  const { store } = context

  /** Sends one claimed email and records it; `false` (the claim given back unless `hold`) when it did not go. */
  async function deliver(claim: CreditNoticeClaim, until: number, hold: boolean): Promise<CreditNoticeResult['reason']> {
    const to = await context.recipients(claim.accountId)
    let reason: CreditNoticeResult['reason'] = null
    if (to === null) reason = 'send_failed'
    else if (context.now() + context.sendTimeoutMs >= until) reason = 'lease_too_short'
    else {
      const name = claim.kind === 'account' ? (claim.name ?? claim.key) : `user ${claim.key}`
      const sent = await context.deliver(to, creditMessage({ ...claim, name }))
      if (!sent) reason = 'send_failed'
    }
    if (reason !== null) {
      if (!hold) await store.releaseCreditNotice?.(claim).catch(() => undefined)
      return reason
    }
    try {
      const at = context.now()
      const target =
        claim.kind === 'account'
          ? { type: 'passcode' as const, id: claim.key, name: claim.name ?? claim.key }
          : { type: 'user' as const, id: claim.key }
      const record = auditEntry(context.auditSigner, 'system', claim.accountId, at, 'notification.sent', target, {
        notification: { before: null, after: claim.type === 'low' ? 'credits_low' : 'credits_exhausted' },
      })
      await store.completeCreditNotice?.(claim, at, record)
    } catch {
      // The email went out; an unrecorded send may repeat once the lease ends (at least once beats never).
    }
    return null
  }

  /** Sends the email of a notice a lease just made, under the claim it took until `until`; `false` when it did not go. */
  async function send(claim: CreditNoticeClaim, until: number): Promise<boolean> {
    return (await deliver(claim, until, false)) === null
  }

  /** One pass over the unsent credit emails, oldest first; failed ones are given back at the end for the next pass. */
  async function pass(options: { readonly leaseMs: number; readonly batchSize: number }): Promise<CreditNoticeResult[]> {
    const claimCreditNotices = store.claimCreditNotices?.bind(store)
    if (claimCreditNotices === undefined) return []
    const results: CreditNoticeResult[] = []
    const unsent: CreditNoticeClaim[] = []
    const seen = new Set<string>()
    try {
      for (;;) {
        const claimedAt = context.now()
        const claims = await claimCreditNotices({ now: claimedAt, leaseMs: options.leaseMs, limit: options.batchSize, token: crypto.randomUUID() })
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
            type: claim.type,
            at: new Date(claim.at),
            sent: reason === null,
            reason,
          })
        }
        if (claims.length < options.batchSize || fresh === 0) break
      }
    } finally {
      await Promise.allSettled(unsent.map(async (claim) => store.releaseCreditNotice?.(claim)))
    }
    return results
  }

  return { send, pass }
}

/** The credit emails' sender, as {@link createCreditNotices} builds it. */
export type CreditNotices = ReturnType<typeof createCreditNotices>
