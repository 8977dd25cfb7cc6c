import type { LeakMark, LeakNoticeClaim, PasscodeStore } from '../../ports/passcode-store'
import { createDurableNotices, noticeTarget, type NoticeContext } from '../durable-notices'
import type { LeakNoticeResult } from '../leak-notice-result'
import { leakMessage, type LeakMessageData } from './leak-message'

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
 * claim it took with the mark; the notifier's pass sends again what is unsent.
 *
 * @example
 * ```ts
 * const notices = createLeakNotices({ store, ...context })
 * void notices.send(claim, claimedAt + 300_000)
 * ```
 */
export function createLeakNotices(context: NoticeContext & { readonly store: PasscodeStore }) {
  const { store } = context
  return createDurableNotices<LeakNoticeClaim, LeakNoticeResult>(context, {
    claim: (request) => store.claimLeakNotices?.(request),
    complete: (claim, at, record) => store.completeLeakNotice?.(claim, at, record),
    release: (claim) => store.releaseLeakNotice?.(claim),
    key: (claim) => claim.id,
    message: (claim) => leakMessage(leakMessageData(claim)),
    audit: (claim) => ({ target: noticeTarget(claim), changes: { notification: { before: null, after: 'leak_reported' } } }),
    result: (claim, reason) => ({
      accountId: claim.accountId,
      kind: claim.kind,
      key: claim.key,
      reportedAt: new Date(claim.reportedAt),
      sent: reason === null,
      reason,
    }),
  })
}

/** The leak emails' sender, as {@link createLeakNotices} builds it. */
export type LeakNotices = ReturnType<typeof createLeakNotices>
