import type { AuditSigner } from '../../core/audit'
import type { PolicyNoticeClaim } from '../../ports/account-policy-part'
import type { PasscodeStore } from '../../ports/passcode-store'
import { auditEntry } from '../audit-entry'
import type { PolicyNoticeResult } from '../policy-notice-result'
import { policyMessage } from './policy-message'

/** What sending policy emails needs of the service: as for the leak emails. */
export interface PolicyNoticesContext {
  readonly store: PasscodeStore
  readonly now: () => number
  /** Signs the audit record of each email sent (SPEC §5.44). */
  readonly auditSigner: AuditSigner
  /** Who to email for the account; `null` when there is no mailer or no recipients, or they could not be resolved. */
  readonly recipients: (accountId: string) => Promise<readonly string[] | null>
  /** Sends one email within `sendTimeoutMs`; `false` when the send failed or timed out. */
  readonly deliver: (to: readonly string[], message: { readonly subject: string; readonly text: string; readonly html: string }) => Promise<boolean>
  /** The longest a send may take (the `notifier.sendTimeoutMs` option). */
  readonly sendTimeoutMs: number
}

type Unsent = NonNullable<PolicyNoticeResult['reason']>

/**
 * The policy emails (SPEC §5.52), durable as the leak emails are: the change that asks
 * for one sends it at once under the claim it took with it; a failed send gives the claim
 * back, and the notifier's pass claims what is unsent and sends it again.
 */
export function createPolicyNotices(context: PolicyNoticesContext) {
  const { store } = context

  async function deliver(claim: PolicyNoticeClaim, until: number, hold: boolean): Promise<Unsent | null> {
    const to = await context.recipients(claim.accountId)
    let unsent: Unsent | null = null
    if (to === null) unsent = 'send_failed'
    else if (context.now() + context.sendTimeoutMs >= until) unsent = 'lease_too_short'
    else if (!(await context.deliver(to, policyMessage(claim)))) unsent = 'send_failed'
    if (unsent !== null) {
      // A release that fails only delays the retry until the lease runs out.
      if (!hold) await store.releasePolicyNotice?.(claim).catch(() => undefined)
      return unsent
    }
    try {
      const at = context.now()
      const record = auditEntry(
        context.auditSigner,
        'system',
        claim.accountId,
        at,
        'notification.sent',
        { type: 'account' },
        {
          notification: { before: null, after: 'policy_violations' },
          count: { before: null, after: claim.count },
        },
      )
      await store.completePolicyNotice?.(claim, at, record)
    } catch {
      // The email went out; an unrecorded send may repeat once the lease ends (at least once beats never).
    }
    return null
  }

  return {
    /** Sends the email a policy change just asked for, under its claim until `until`; `false` when it did not go. */
    async send(claim: PolicyNoticeClaim, until: number): Promise<boolean> {
      return (await deliver(claim, until, false)) === null
    },
    /** One pass over the unsent policy emails; failed ones are given back at the end for the next pass. */
    async pass(options: { readonly leaseMs: number; readonly batchSize: number }): Promise<PolicyNoticeResult[]> {
      const claim = store.claimPolicyNotices?.bind(store)
      if (claim === undefined) return []
      const results: PolicyNoticeResult[] = []
      const unsent: PolicyNoticeClaim[] = []
      const seen = new Set<string>()
      try {
        for (;;) {
          const claimedAt = context.now()
          const claims = await claim({ now: claimedAt, leaseMs: options.leaseMs, limit: options.batchSize, token: crypto.randomUUID() })
          let fresh = 0
          for (const notice of claims) {
            if (seen.has(notice.accountId)) {
              unsent.push(notice)
              continue
            }
            seen.add(notice.accountId)
            fresh++
            const reason = await deliver(notice, claimedAt + options.leaseMs, true)
            if (reason !== null) unsent.push(notice)
            results.push({ accountId: notice.accountId, count: notice.count, sent: reason === null, reason })
          }
          if (claims.length < options.batchSize || fresh === 0) break
        }
      } finally {
        await Promise.allSettled(unsent.map(async (notice) => store.releasePolicyNotice?.(notice)))
      }
      return results
    },
  }
}

/** The policy emails' sender, as {@link createPolicyNotices} builds it. */
export type PolicyNotices = ReturnType<typeof createPolicyNotices>
