import type { AuditSigner } from '../../core/audit'
import { ConfigurationError, PasscodeAuthError } from '../../core/errors'
import { DAY_MS } from '../../core/time'
import type { NotificationClaim } from '../../ports/passcode-store'
import type { z } from 'zod'
import type { PasscodeStore } from '../../ports/passcode-store'
import { storeCall } from '../deadline'
import type { EventInput } from '../events'
import { auditEntry, passcodeTarget } from '../audit-entry'
import { DeliveryFailure, render, resolveRecipients, sendWithin } from './notification-delivery'
import { defaultNotificationTemplates, notificationMessageData } from './notification-messages'
import type { CreditNoticeResult } from '../credit-notice-result'
import type { LeakNoticeResult } from '../leak-notice-result'
import type { PolicyNoticeResult } from '../policy-notice-result'
import type { mailerSchema, notifierSchema, recipientsSchema, templatesSchema } from './options'
import type { FailedNotification, NotificationReport, NotificationReportItem, SentNotification, SkippedNotification } from './notification-report'

const claimKey = (claim: NotificationClaim): string => `${claim.passcodeId}\u0000${claim.kind}\u0000${claim.expiresAt}`

/** The report line's fields an audit event carries (the name stays out of notification events). */
const eventFields = ({ accountId, passcodeId, kind, expiresAt }: NotificationReportItem) => ({ accountId, passcodeId, kind, expiresAt })

/** What a notifier pass receives from the service: the store, the clock, the audit hook, its telemetry and its options. */
export interface NotifierContext {
  readonly store: PasscodeStore
  /** Epoch ms from the injected clock. */
  readonly now: () => number
  readonly emit: ((event: EventInput) => void) | undefined
  /** Signs the audit records of the emails sent and failed (SPEC §5.44). */
  readonly auditSigner: AuditSigner
  /** Counts a notification sent or failed; `undefined` without the `telemetry` option. */
  readonly telemetry: { notification(kind: string, result: 'sent' | 'failed'): void } | undefined
  /** The leak emails (SPEC §5.42) whose first send failed: each pass sends them again. */
  readonly leaks?: { pass(options: { readonly leaseMs: number; readonly batchSize: number }): Promise<LeakNoticeResult[]> } | undefined
  /** The policy emails (SPEC §5.52) whose first send failed: each pass sends them again. */
  readonly policies?: { pass(options: { readonly leaseMs: number; readonly batchSize: number }): Promise<PolicyNoticeResult[]> } | undefined
  /** The credit emails (SPEC §5.50) whose first send failed: each pass sends them again. */
  readonly credits?: { pass(options: { readonly leaseMs: number; readonly batchSize: number }): Promise<CreditNoticeResult[]> } | undefined
  readonly options: {
    readonly limits: { readonly expiringSoonDays: number }
    readonly notifier: z.output<typeof notifierSchema>
    readonly templates: z.output<typeof templatesSchema>
    readonly mailer?: z.output<typeof mailerSchema> | undefined
    readonly recipients?: z.output<typeof recipientsSchema> | undefined
  }
}

/**
 * Builds `auth.notifyExpirations()`: one notifier pass (SPEC §5.14). It claims due
 * notifications from the store in batches, sends each through the mailer, records a
 * send only after the mailer accepted it, and gives every failed claim back at the end
 * of the pass, so the next pass (of this or any runner) retries it. Holding failed
 * claims until the end keeps one pass from retrying the same email over and over.
 */
export function createNotifyExpirations(context: NotifierContext): () => Promise<NotificationReport> {
  const { store, options, emit, telemetry } = context
  const windowMs = options.limits.expiringSoonDays * DAY_MS
  const { leaseMs, batchSize, sendTimeoutMs } = options.notifier
  const templates = { ...defaultNotificationTemplates, ...options.templates }

  return async function notifyExpirations() {
    const startedAt = context.now()
    const sent: SentNotification[] = []
    const failed: FailedNotification[] = []
    const skipped: SkippedNotification[] = []
    // Every claim of this pass that was not sent; all are given back at the end.
    const unsent = new Set<NotificationClaim>()
    const seen = new Set<string>()
    const recipientsByAccount = new Map<string, Promise<string[]>>()
    let leaks: LeakNoticeResult[] | undefined
    let policies: PolicyNoticeResult[] | undefined
    let credits: CreditNoticeResult[] | undefined

    try {
      const { mailer, recipients } = options
      if (mailer === undefined) {
        throw new ConfigurationError('notifyExpirations needs a mailer: pass the `mailer` option to createPasscodeAuth')
      }
      if (recipients === undefined) {
        throw new ConfigurationError('notifyExpirations needs to know who to email: pass the `recipients` option to createPasscodeAuth')
      }

      const deliver = async (claim: NotificationClaim, claimedAt: number): Promise<void> => {
        const current = await storeCall(() => store.getAccountPasscode(claim.accountId, claim.passcodeId))
        const item = {
          accountId: claim.accountId,
          passcodeId: claim.passcodeId,
          name: current?.name ?? claim.name,
          kind: claim.kind,
          expiresAt: new Date(claim.expiresAt),
        }
        const skip = (reason: SkippedNotification['reason']) => {
          skipped.push({ ...item, reason })
        }
        if (current === null) {
          skip('passcode_deleted')
          return
        }
        if (current.expiresAt !== claim.expiresAt) {
          skip('expiry_changed')
          return
        }
        // Disabled after the claim: no email (SPEC §5.38); claims skip it from now on.
        if (current.disabledAt != null) {
          skip('passcode_disabled')
          return
        }

        let to: string[]
        try {
          let pending = recipientsByAccount.get(claim.accountId)
          if (pending === undefined) {
            pending = resolveRecipients(recipients, claim.accountId, sendTimeoutMs)
            recipientsByAccount.set(claim.accountId, pending)
          }
          to = await pending
          const data = notificationMessageData({ ...claim, name: current.name, hint: current.hint }, context.now())
          const content = render(templates[claim.kind], data)
          // A send may take up to sendTimeoutMs; starting one on a nearly spent lease
          // would let another runner take the claim over and send it a second time.
          if (context.now() + sendTimeoutMs >= claimedAt + leaseMs) {
            skip('lease_too_short')
            return
          }
          await sendWithin(mailer, { to, ...content }, sendTimeoutMs)
        } catch (error) {
          if (!(error instanceof DeliveryFailure)) throw error
          failed.push({ ...item, reason: error.reason, message: error.message })
          const log = store.audit
          const record = auditEntry(context.auditSigner, 'system', claim.accountId, context.now(), 'notification.failed', passcodeTarget(current), {
            notification: { before: null, after: claim.kind },
            reason: { before: null, after: error.reason },
          })
          if (log !== undefined) await storeCall(() => log.append(record))
          emit?.({ type: 'notification.failed', ...eventFields(item), reason: error.reason, error: error.message })
          telemetry?.notification(item.kind, 'failed')
          return
        }

        unsent.delete(claim)
        let recorded = false
        try {
          const at = context.now()
          const record = auditEntry(context.auditSigner, 'system', claim.accountId, at, 'notification.sent', passcodeTarget(current), {
            notification: { before: null, after: claim.kind },
          })
          recorded = await store.completeNotification(claim, at, record)
        } catch {
          // The email went out; an unrecorded send may repeat once the lease ends,
          // which the spec prefers to a lost notification.
        }
        sent.push({ ...item, to, recorded })
        emit?.({ type: 'notification.sent', ...eventFields(item) })
        telemetry?.notification(item.kind, 'sent')
      }

      for (;;) {
        const claimedAt = context.now()
        const claims = await storeCall(() =>
          store.claimNotifications({ now: claimedAt, windowMs, leaseMs, limit: batchSize, token: crypto.randomUUID() }),
        )
        for (const claim of claims) unsent.add(claim)
        let fresh = 0
        for (const claim of claims) {
          const key = claimKey(claim)
          // Handled earlier in this pass and claimed again after its lease ran out:
          // it belongs to the next pass.
          if (seen.has(key)) continue
          seen.add(key)
          fresh++
          await deliver(claim, claimedAt)
        }
        if (claims.length < batchSize || fresh === 0) break
      }
      leaks = await context.leaks?.pass({ leaseMs, batchSize })
      policies = await context.policies?.pass({ leaseMs, batchSize })
      credits = await context.credits?.pass({ leaseMs, batchSize })
    } catch (error) {
      const message = error instanceof PasscodeAuthError ? error.message : 'The notifier pass failed'
      emit?.({ type: 'notifier.failed', error: message })
      throw error
    } finally {
      // A release that fails only delays the retry until the lease runs out.
      await Promise.allSettled([...unsent].map(async (claim) => store.releaseNotification(claim)))
    }

    return {
      startedAt: new Date(startedAt),
      sent,
      failed,
      skipped,
      ...(leaks !== undefined && leaks.length > 0 && { leaks }),
      ...(policies !== undefined && policies.length > 0 && { policies }),
      ...(credits !== undefined && credits.length > 0 && { credits }),
    }
  }
}
