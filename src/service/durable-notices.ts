import type { AuditChanges, AuditSigner, AuditTarget } from '../core/audit'
import type { AuditAppend } from '../ports/audit-log'
import { auditEntry } from './audit-entry'

/** One email as the mailer takes it. */
export interface NoticeMail {
  readonly subject: string
  readonly text: string
  readonly html: string
}

/** What sending durable emails (leaks, policies, credits) needs of the service. */
export interface NoticeContext {
  readonly now: () => number
  /** Signs the audit record of each email sent (SPEC §5.44). */
  readonly auditSigner: AuditSigner
  /** Who to email for the account; `null` when there is no mailer or no recipients, or they could not be resolved. */
  readonly recipients: (accountId: string) => Promise<readonly string[] | null>
  /** Sends one email within `sendTimeoutMs`; `false` when the send failed or timed out. */
  readonly deliver: (to: readonly string[], message: NoticeMail) => Promise<boolean>
  /** The longest a send may take (the `notifier.sendTimeoutMs` option). */
  readonly sendTimeoutMs: number
}

/** Why an email did not go: the mailer failed, or too little of the claim's lease was left to start it. */
export type NoticeUnsent = 'send_failed' | 'lease_too_short'

/** What the store's claim of due emails takes. */
export interface NoticeRequest {
  readonly now: number
  readonly leaseMs: number
  readonly limit: number
  readonly token: string
}

/**
 * One kind of durable email: the store's three steps for it (each `undefined` when the
 * store keeps no such emails), its message, its audit record and its report line.
 */
export interface NoticeKind<Claim extends { readonly accountId: string }, Result> {
  /** Claims due emails, oldest first. */
  readonly claim: (request: NoticeRequest) => Promise<readonly Claim[]> | undefined
  /** Records an email sent, with its audit record. */
  readonly complete: (claim: Claim, at: number, record: AuditAppend) => Promise<unknown> | undefined
  /** Gives a claim back after a failed send, so the next pass retries it. */
  readonly release: (claim: Claim) => Promise<unknown> | undefined
  /** What tells one email from another within a pass. */
  readonly key: (claim: Claim) => string
  readonly message: (claim: Claim) => NoticeMail
  /** What the `notification.sent` record names and changes. */
  readonly audit: (claim: Claim) => { readonly target: AuditTarget; readonly changes: AuditChanges }
  /** The pass's report line of one email. */
  readonly result: (claim: Claim, reason: NoticeUnsent | null) => Result
}

/** The audit target of an email about one passcode: the account passcode, or the user's. */
export function noticeTarget(claim: { readonly kind: 'account' | 'user'; readonly key: string; readonly name: string | null }): AuditTarget {
  return claim.kind === 'account' ? { type: 'passcode', id: claim.key, name: claim.name ?? claim.key } : { type: 'user', id: claim.key }
}

/**
 * Durable emails (leaks §5.42, policies §5.52, credits §5.50): each stays unsent in the
 * store until the mailer accepted it. The change that makes one sends it at once, under
 * the claim it took with it; a failed send gives the claim back, and the notifier's pass
 * (`notifyExpirations`) claims what is unsent, with `SKIP LOCKED` on PostgreSQL, and
 * sends it again. Exactly once when nothing crashes; a crash between the mailer's
 * acceptance and the store's record sends it once more after the lease (at least once).
 *
 * @example
 * ```ts
 * const notices = createDurableNotices(context, kind)
 * void notices.send(claim, claimedAt + leaseMs)
 * const report = await notices.pass({ leaseMs: 300_000, batchSize: 100 })
 * ```
 */
export function createDurableNotices<Claim extends { readonly accountId: string }, Result>(context: NoticeContext, kind: NoticeKind<Claim, Result>) {
  /** Mails the claim's email unless too little of its lease is left; why not when it did not go. */
  async function mail(claim: Claim, until: number): Promise<NoticeUnsent | null> {
    const to = await context.recipients(claim.accountId)
    if (to === null) return 'send_failed'
    if (context.now() + context.sendTimeoutMs >= until) return 'lease_too_short'
    return (await context.deliver(to, kind.message(claim))) ? null : 'send_failed'
  }

  /**
   * Sends one claimed email and records it; why not when it did not go (the claim given
   * back unless `hold`). As the expiry emails do, it starts no send that could outlast
   * the claim's lease (`until`): another runner could take the claim over meanwhile and
   * send it a second time.
   */
  async function deliver(claim: Claim, until: number, hold: boolean): Promise<NoticeUnsent | null> {
    const unsent = await mail(claim, until)
    if (unsent !== null) {
      // A release that fails only delays the retry until the lease runs out.
      if (!hold) await kind.release(claim)?.catch(() => undefined)
      return unsent
    }
    try {
      const at = context.now()
      const { target, changes } = kind.audit(claim)
      await kind.complete(claim, at, auditEntry(context.auditSigner, 'system', claim.accountId, at, 'notification.sent', target, changes))
    } catch {
      // The email went out; an unrecorded send may repeat once the lease ends (at least once beats never).
    }
    return null
  }

  /** Sends the email a change just made, under the claim it took until `until`; `false` when it did not go. */
  async function send(claim: Claim, until: number): Promise<boolean> {
    return (await deliver(claim, until, false)) === null
  }

  /** One pass over the unsent emails, oldest first; failed ones are given back at the end for the next pass. */
  async function pass(options: { readonly leaseMs: number; readonly batchSize: number }): Promise<Result[]> {
    const results: Result[] = []
    const unsent: Claim[] = []
    const seen = new Set<string>()
    try {
      for (;;) {
        const claimedAt = context.now()
        const claiming = kind.claim({ now: claimedAt, leaseMs: options.leaseMs, limit: options.batchSize, token: crypto.randomUUID() })
        if (claiming === undefined) break
        const claims = await claiming
        let fresh = 0
        for (const claim of claims) {
          // Handled earlier in this pass and claimed again after its lease ran out: it belongs to the next pass.
          const key = kind.key(claim)
          if (seen.has(key)) {
            unsent.push(claim)
            continue
          }
          seen.add(key)
          fresh++
          const reason = await deliver(claim, claimedAt + options.leaseMs, true)
          if (reason !== null) unsent.push(claim)
          results.push(kind.result(claim, reason))
        }
        if (claims.length < options.batchSize || fresh === 0) break
      }
    } finally {
      await Promise.allSettled(unsent.map(async (claim) => kind.release(claim)))
    }
    return results
  }

  return { send, pass }
}
