import type { CreditNoticeClaim } from '../../ports/limits-part'
import type { PasscodeStore } from '../../ports/passcode-store'
import type { CreditNoticeResult } from '../credit-notice-result'
import { createDurableNotices, noticeTarget, type NoticeContext } from '../durable-notices'
import { creditMessage } from './credit-message'

/**
 * The credit emails (SPEC §5.50), durable as the leak emails are: the one lease that
 * crossed the low line or found no credit makes the notice with its claim taken, and its
 * instance sends the email at once; the notifier's pass sends again what is unsent.
 *
 * @example
 * ```ts
 * const notices = createCreditNotices({ store, ...context })
 * void notices.send(claim, claim.at + 300_000)
 * ```
 */
export function createCreditNotices(context: NoticeContext & { readonly store: PasscodeStore }) {
  const { store } = context
  return createDurableNotices<CreditNoticeClaim, CreditNoticeResult>(context, {
    claim: (request) => store.claimCreditNotices?.(request),
    complete: (claim, at, record) => store.completeCreditNotice?.(claim, at, record),
    release: (claim) => store.releaseCreditNotice?.(claim),
    key: (claim) => claim.id,
    message: (claim) => creditMessage({ ...claim, name: claim.kind === 'account' ? (claim.name ?? claim.key) : `user ${claim.key}` }),
    audit: (claim) => ({
      target: noticeTarget(claim),
      changes: { notification: { before: null, after: claim.type === 'low' ? 'credits_low' : 'credits_exhausted' } },
    }),
    result: (claim, reason) => ({
      accountId: claim.accountId,
      kind: claim.kind,
      key: claim.key,
      type: claim.type,
      at: new Date(claim.at),
      sent: reason === null,
      reason,
    }),
  })
}

/** The credit emails' sender, as {@link createCreditNotices} builds it. */
export type CreditNotices = ReturnType<typeof createCreditNotices>
