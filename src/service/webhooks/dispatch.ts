import { canonicalJson, type AuditSigner } from '../../core/audit'
import { PasscodeAuthError } from '../../core/errors'
import { webhookInstant } from '../../core/webhook-events'
import { nextWebhookAttempt, WEBHOOK_DISABLE_AFTER_MS, WEBHOOK_MAX_RESPONSE_BYTES, WEBHOOK_TIMEOUT_MS } from '../../core/webhook-schedule'
import { webhookSecretKey } from '../../core/webhook-secret'
import { signWebhook } from '../../core/webhook-signature'
import type { PasscodeStore } from '../../ports/passcode-store'
import type { WebhookSender } from '../../ports/webhook-sender'
import type { WebhookAttemptOutcome, WebhookDeliveryClaim, WebhookEvent, WebhookNoticeClaim } from '../../ports/webhook-store'
import { auditEntry } from '../audit-entry'
import { storeCall } from '../deadline'
import type { EventInput } from '../events'
import { webhookDisabledMessage } from './webhook-message'
import { shownUrl, webhookStoreOf } from './webhook-store-of'

/**
 * What one delivery pass did: attempts that succeeded, failed and will be retried,
 * failed for good, and the endpoints it disabled.
 *
 * @example
 * ```ts
 * const report = await auth.webhooks.dispatch()
 * console.log(`${report.succeeded} delivered, ${report.retrying} to retry`)
 * ```
 */
export interface WebhookDispatchReport {
  /** Attempts answered 2xx in time. */
  readonly succeeded: number
  /** Attempts that failed with retries left. */
  readonly retrying: number
  /** Deliveries that failed for good (no retry left, or their endpoint is disabled). */
  readonly failed: number
  /** Endpoints disabled because their every attempt failed for 5 days. */
  readonly disabled: readonly string[]
  /** Emails about disabled endpoints that went out. */
  readonly noticesSent: number
  /** Whether the pass stopped at its bound with more due: the dispatcher runs the next one at once. */
  readonly more: boolean
}

/** What a delivery pass receives from the service. */
export interface DispatchContext {
  readonly store: PasscodeStore
  readonly now: () => number
  readonly emit: ((event: EventInput) => void) | undefined
  /** Signs the audit records of disabled endpoints and of their emails (SPEC §5.44). */
  readonly auditSigner: AuditSigner
  readonly sender: WebhookSender | undefined
  readonly allowPrivateAddresses: boolean
  /** Claims per store call, attempts in flight at once, how long a claim is held. */
  readonly options: { readonly batchSize: number; readonly concurrency: number; readonly leaseMs: number }
  /** Who to email for the account; `null` without a mailer or recipients, or when they could not be resolved. */
  readonly recipients: (accountId: string) => Promise<readonly string[] | null>
  /** Sends one email; `false` when it failed or timed out. */
  readonly deliver: (to: readonly string[], message: { readonly subject: string; readonly text: string; readonly html: string }) => Promise<boolean>
  /** The longest a send may take. */
  readonly sendTimeoutMs: number
}

/** Passes end after this many full batches, so a pass is bounded however much is due; the next pass goes on. */
const MAX_BATCHES_PER_PASS = 20

/**
 * The body of an event (Standard Webhooks: `{type, timestamp, data}`), the same bytes on
 * every attempt: `data` in canonical JSON (keys sorted), the change's instant in ISO 8601.
 */
export function webhookBody(event: WebhookEvent): string {
  return `{"type":${JSON.stringify(event.type)},"timestamp":${JSON.stringify(webhookInstant(event.at))},"data":${canonicalJson(event.data)}}`
}

/**
 * The headers of one attempt: `webhook-id` (the delivery's), `webhook-timestamp` (whole
 * seconds, this attempt's) and `webhook-signature`, one `v1,` signature per secret
 * (two during a rotation's overlap), space-separated.
 */
export function webhookHeaders(id: string, secrets: readonly string[], timestamp: number, body: string): Record<string, string> {
  const signatures = secrets.flatMap((secret) => {
    const key = webhookSecretKey(secret)
    return key === undefined ? [] : [signWebhook(key, id, timestamp, body)]
  })
  return {
    'content-type': 'application/json',
    'user-agent': 'passcode-auth-webhooks',
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signatures.join(' '),
  }
}

/** Runs `work` over `items`, at most `limit` at a time; results in the items' order. */
async function mapLimited<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length)
  let next = 0
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++
      results[index] = await work(items[index]!)
    }
  }
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker))
  return results
}

/**
 * Builds `auth.webhooks.dispatch()` (SPEC §5.53): claims due attempts in batches, sends
 * each (signed, within 15 s, no redirects, at most 64 KiB of the answer read), and
 * records every batch's outcomes in one store call, with each failed attempt's next
 * one (5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h, then failed). A claim holds for
 * `leaseMs`; an attempt starts only while the lease outlasts its deadline, so no other
 * dispatcher takes it over while it may still be on the way. A dispatcher that dies
 * leaves its claims to lapse: another sends them again, with the same `webhook-id`.
 */
export function createDispatch(context: DispatchContext): () => Promise<WebhookDispatchReport> {
  const { now, options } = context

  async function attempt(claim: WebhookDeliveryClaim, claimedAt: number, sender: WebhookSender): Promise<WebhookAttemptOutcome | undefined> {
    const settle = (statusCode: number | null, error: string | null): WebhookAttemptOutcome => {
      const at = now()
      const ok = error === null
      const next = ok || !claim.enabled ? null : nextWebhookAttempt(claim.attempts + 1, at)
      return {
        id: claim.id,
        token: claim.token,
        at,
        ok,
        statusCode,
        error,
        state: ok ? 'succeeded' : next === null ? 'failed' : 'pending',
        nextAttemptAt: next,
      }
    }
    if (!claim.enabled) return settle(null, 'The endpoint is disabled')
    // Too little of the lease left to finish: leave it to lapse; the next pass sends it.
    if (now() + WEBHOOK_TIMEOUT_MS >= claimedAt + options.leaseMs) return undefined
    const body = webhookBody(claim.event)
    const headers = webhookHeaders(claim.id, claim.secrets, Math.floor(now() / 1000), body)
    try {
      const result = await sender.send({
        url: claim.url,
        headers,
        body,
        timeoutMs: WEBHOOK_TIMEOUT_MS,
        maxResponseBytes: WEBHOOK_MAX_RESPONSE_BYTES,
        allowPrivateAddresses: context.allowPrivateAddresses,
      })
      const error = result.error ?? (result.statusCode !== null && result.statusCode >= 200 && result.statusCode < 300 ? null : 'No 2xx answer')
      return settle(result.statusCode, error)
    } catch {
      // A sender must not throw; one that does failed this attempt, not the pass.
      return settle(null, 'The sender failed')
    }
  }

  async function notices(): Promise<number> {
    const hooks = webhookStoreOf(context.store)
    const claimedAt = now()
    const claims = await storeCall(() =>
      hooks.claimNotices({ now: claimedAt, leaseMs: options.leaseMs, limit: options.batchSize, token: crypto.randomUUID() }),
    )
    let sent = 0
    for (const claim of claims) if (await notice(claim, claimedAt)) sent++
    return sent
  }

  async function notice(claim: WebhookNoticeClaim, claimedAt: number): Promise<boolean> {
    const hooks = webhookStoreOf(context.store)
    const { endpoint } = claim
    const to = await context.recipients(endpoint.accountId)
    const room = now() + context.sendTimeoutMs < claimedAt + options.leaseMs
    if (to === null || !room || !(await context.deliver(to, webhookDisabledMessage(endpoint, shownUrl(endpoint.url))))) {
      await hooks.releaseNotice(claim).catch(() => undefined)
      return false
    }
    const at = now()
    const record = auditEntry(
      context.auditSigner,
      'system',
      endpoint.accountId,
      at,
      'notification.sent',
      { type: 'webhook', id: endpoint.id },
      {
        notification: { before: null, after: 'webhook_disabled' },
      },
    )
    // The email went out; an unrecorded send may repeat once the lease ends (at least once).
    await hooks.completeNotice(claim, at, record).catch(() => false)
    return true
  }

  return async function dispatch() {
    const hooks = webhookStoreOf(context.store)
    const { sender } = context
    let succeeded = 0
    let retrying = 0
    let failed = 0
    const disabled: string[] = []
    let more = false
    try {
      if (sender === undefined)
        throw new PasscodeAuthError('ERR_CONFIGURATION', 'No webhook sender on this runtime: pass `webhooks.sender` to createPasscodeAuth')
      for (let batch = 0; batch < MAX_BATCHES_PER_PASS; batch++) {
        const claimedAt = now()
        const claims = await storeCall(() =>
          hooks.claimDeliveries({ now: claimedAt, leaseMs: options.leaseMs, limit: options.batchSize, token: crypto.randomUUID() }),
        )
        const outcomes = (await mapLimited(claims, options.concurrency, (claim) => attempt(claim, claimedAt, sender))).filter(
          (outcome): outcome is WebhookAttemptOutcome => outcome !== undefined,
        )
        const gone =
          outcomes.length === 0 ? [] : await storeCall(() => hooks.completeDeliveries(outcomes, WEBHOOK_DISABLE_AFTER_MS, context.auditSigner))
        for (const outcome of outcomes) {
          if (outcome.ok) succeeded++
          else if (outcome.state === 'pending') retrying++
          else failed++
        }
        for (const endpoint of gone) {
          disabled.push(endpoint.id)
          context.emit?.({ type: 'webhook.endpoint_disabled', accountId: endpoint.accountId, endpointId: endpoint.id, url: shownUrl(endpoint.url) })
        }
        more = claims.length >= options.batchSize
        if (!more) break
      }
      const noticesSent = await notices()
      return { succeeded, retrying, failed, disabled, noticesSent, more }
    } catch (error) {
      const message = error instanceof PasscodeAuthError ? error.message : 'The webhook delivery pass failed'
      context.emit?.({ type: 'webhook.dispatch_failed', error: message })
      throw error
    }
  }
}
