import type { PolicyNoticeClaim } from '../../ports/account-policy-part'
import type { PasscodeStore } from '../../ports/passcode-store'
import { createDurableNotices, type NoticeContext } from '../durable-notices'
import type { PolicyNoticeResult } from '../policy-notice-result'
import { policyMessage } from './policy-message'

/**
 * The policy emails (SPEC §5.52), durable as the leak emails are: the change that asks
 * for one sends it at once under the claim it took with it; the notifier's pass sends
 * again what is unsent. One email an account: a pass tells them apart by account.
 *
 * @example
 * ```ts
 * const notices = createPolicyNotices({ store, ...context })
 * void notices.send(claim, claimedAt + 300_000)
 * ```
 */
export function createPolicyNotices(context: NoticeContext & { readonly store: PasscodeStore }) {
  const { store } = context
  return createDurableNotices<PolicyNoticeClaim, PolicyNoticeResult>(context, {
    claim: (request) => store.claimPolicyNotices?.(request),
    complete: (claim, at, record) => store.completePolicyNotice?.(claim, at, record),
    release: (claim) => store.releasePolicyNotice?.(claim),
    key: (claim) => claim.accountId,
    message: (claim) => policyMessage(claim),
    audit: (claim) => ({
      target: { type: 'account' },
      changes: { notification: { before: null, after: 'policy_violations' }, count: { before: null, after: claim.count } },
    }),
    result: (claim, reason) => ({ accountId: claim.accountId, count: claim.count, sent: reason === null, reason }),
  })
}

/** The policy emails' sender, as {@link createPolicyNotices} builds it. */
export type PolicyNotices = ReturnType<typeof createPolicyNotices>
