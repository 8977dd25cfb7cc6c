import type { AuditEntry } from './audit'

/**
 * Every event type a webhook endpoint can subscribe to (SPEC §5.53). Where each comes
 * from is in docs/webhooks.md: all but the two `credits.*` ones are made from the audit
 * record of their change, in its transaction; the `credits.*` ones from the notice of the
 * lease that crossed the line (SPEC §5.50), in that lease's transaction.
 *
 * @example
 * ```ts
 * import { WEBHOOK_EVENT_TYPES } from 'passcode-auth/webhooks'
 *
 * const wanted = WEBHOOK_EVENT_TYPES.filter((type) => type.startsWith('passcode.'))
 * ```
 */
export const WEBHOOK_EVENT_TYPES = [
  'passcode.created',
  'passcode.updated',
  'passcode.rotated',
  'passcode.disabled',
  'passcode.enabled',
  'passcode.deleted',
  'passcode.expiring_soon',
  'passcode.expired',
  'passcode.leaked',
  'user_passcode.granted',
  'user_passcode.reset',
  'user_passcode.revoked',
  'user_passcode.leaked',
  'credits.low',
  'credits.exhausted',
] as const

/**
 * One of {@link WEBHOOK_EVENT_TYPES}.
 *
 * @example
 * ```ts
 * const type: WebhookEventType = 'passcode.rotated'
 * ```
 */
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number]

/**
 * The type of the event "Send test event" delivers to one endpoint, whatever it
 * subscribed to. No change makes it, and no endpoint can subscribe to it.
 */
export const WEBHOOK_TEST_EVENT = 'webhook.test'

/**
 * A value in an event's `data`: JSON, with instants as ISO 8601 texts.
 *
 * @example
 * ```ts
 * const data: WebhookJson = { passcode: { id: 'pc_1', name: 'Acme', hint: 'psc_…x9Qz' } }
 * ```
 */
export type WebhookJson = string | number | boolean | null | readonly WebhookJson[] | { readonly [key: string]: WebhookJson }

/**
 * An event as the outbox stores it: its type, when its change happened (epoch ms) and
 * its `data`, which names the passcode (id, name, hint) and never holds a value, hash
 * or key.
 *
 * @example
 * ```ts
 * const event: WebhookEvent = { type: 'passcode.deleted', at: Date.now(), data: { passcode: { id, name, hint } } }
 * ```
 */
export interface WebhookEvent {
  /** One of {@link WEBHOOK_EVENT_TYPES}, or {@link WEBHOOK_TEST_EVENT}. */
  readonly type: WebhookEventType | typeof WEBHOOK_TEST_EVENT
  /** When its change happened, epoch milliseconds (the audit record's `at`). */
  readonly at: number
  /** What a receiver reads under `data`. */
  readonly data: Readonly<Record<string, WebhookJson>>
}

/**
 * What the store knows of an audit record's target when it makes the record's events:
 * the hint of the passcode or user passcode, and an account passcode's expiry. Read in
 * the change's transaction (the row as the change left it, or as it was before a delete).
 */
export interface WebhookSubject {
  /** The hint (prefix and last 4 characters); `null` when the row is not known. */
  readonly hint: string | null
  /** An account passcode's expiry instant (epoch ms); `null` for none or unknown. */
  readonly expiresAt: number | null
}

/** An instant as an event's `data` writes it. */
export const webhookInstant = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString())

const after = (entry: AuditEntry, field: string): unknown => entry.changes[field]?.after ?? null
const textAfter = (entry: AuditEntry, field: string): string | null => {
  const value = after(entry, field)
  return typeof value === 'string' ? value : null
}

/**
 * The events an audit record makes (SPEC §5.53), in the order they are stored: the
 * mapping that the PostgreSQL trigger `webhook_events_from_audit` (migration 16) repeats
 * in SQL, and the memory store runs at its audit append. `[]` for an action no event
 * follows (a reveal, a failed email, a settings change, the webhooks' own records).
 *
 * @param entry - the audit record (or the entry the store appends)
 * @param subject - the target's hint and expiry, as the change left them
 * @example
 * ```ts
 * webhookEventsOf(record, { hint: 'psc_…x9Qz', expiresAt: null }).map((event) => event.type) // ['passcode.created']
 * ```
 */
export function webhookEventsOf(entry: AuditEntry, subject: WebhookSubject): WebhookEvent[] {
  const { target, actor, at } = entry
  if (target.type === 'account' || target.type === 'webhook') return []
  const subjectData: Record<string, WebhookJson> =
    target.type === 'passcode'
      ? { passcode: { id: target.id, name: target.name, hint: subject.hint } }
      : { userPasscode: { userId: target.id, hint: subject.hint } }
  const base: Record<string, WebhookJson> = { ...subjectData, actor }
  const event = (type: WebhookEvent['type'], extra: Record<string, WebhookJson> = {}): WebhookEvent => ({ type, at, data: { ...base, ...extra } })
  const onPasscode = target.type === 'passcode'
  switch (entry.action) {
    case 'passcode.created':
    case 'passcode.disabled':
    case 'passcode.enabled':
    case 'passcode.deleted':
      return onPasscode ? [event(entry.action)] : []
    case 'passcode.updated':
    case 'passcode.partners_changed':
      return onPasscode ? [event('passcode.updated', { changed: Object.keys(entry.changes).sort() })] : []
    case 'passcode.rotated': {
      const ends = after(entry, 'previousValueEndsAt')
      return onPasscode ? [event('passcode.rotated', { previousValueEndsAt: webhookInstant(typeof ends === 'number' ? ends : null) })] : []
    }
    case 'user_passcode.granted':
    case 'user_passcode.reset':
    case 'user_passcode.revoked':
      return onPasscode ? [] : [event(entry.action)]
    case 'passcode.leak_reported': {
      const action = textAfter(entry, 'action')
      const leaked = event(onPasscode ? 'passcode.leaked' : 'user_passcode.leaked', {
        source: textAfter(entry, 'source'),
        url: textAfter(entry, 'url'),
        action,
      })
      // The change the report made, as its own event too (as onEvent reports it).
      if (!onPasscode) return [leaked, event('user_passcode.revoked')]
      if (action === 'deleted') return [leaked, event('passcode.deleted')]
      return 'disabled' in entry.changes ? [leaked, event('passcode.disabled')] : [leaked]
    }
    case 'notification.sent': {
      const kind = textAfter(entry, 'notification')
      if (!onPasscode || (kind !== 'expiring_soon' && kind !== 'expired')) return []
      return [event(`passcode.${kind}`, { expiresAt: webhookInstant(subject.expiresAt) })]
    }
    default:
      return []
  }
}

/**
 * A credit crossing (SPEC §5.50): what the lease that crossed the low line, or found no
 * credits left, knows of it. A store's `CreditNotice` carries these fields (with
 * the hint of an account passcode only); its webhook event is made of them, with the
 * hint of a user passcode too.
 *
 * @example
 * ```ts
 * const crossing: CreditCrossing = { kind: 'user', key: 'u_1', type: 'exhausted', at: Date.now(), balance: 0, full: 100, nextRefillAt: null, name: null, hint: 'psc_…Cd34' }
 * ```
 */
export interface CreditCrossing {
  /** `account` for an account passcode, `user` for a user passcode. */
  readonly kind: 'account' | 'user'
  /** The passcode id (`account`) or the user id (`user`). */
  readonly key: string
  /** `low` (the balance fell to the low line) or `exhausted` (a request found none left). */
  readonly type: 'low' | 'exhausted'
  /** When the lease crossed, epoch milliseconds. */
  readonly at: number
  /** The balance after the lease that crossed. */
  readonly balance: number
  /** The full amount (the refill amount, or the credits as set). */
  readonly full: number
  /** When the balance refills next (epoch ms); `null` without a refill. */
  readonly nextRefillAt: number | null
  /** The account passcode's name; `null` for a user passcode. */
  readonly name: string | null
  /** The passcode's or user passcode's hint; `null` when the row is not known. */
  readonly hint: string | null
}

/**
 * The event of a credit crossing (SPEC §5.50, §5.53): `credits.low` or
 * `credits.exhausted`, naming the passcode (id, name, hint) or the user passcode (user ID,
 * hint) as the other events do, with the system as actor, the balance left (`remaining`),
 * the full amount and the next refill. The memory store stores it in the lease's step;
 * PostgreSQL's trigger `webhook_events_from_credit_notice` (migration 18) repeats it in SQL
 * on the notice's insert, in the lease's statement.
 *
 * @param crossing - the notice of the lease that crossed, with the hint
 * @example
 * ```ts
 * const event = creditWebhookEvent({ kind: 'account', key: 'pc_1', type: 'low', at: Date.now(), balance: 90, full: 1000, nextRefillAt: null, name: 'Acme', hint: 'psc_…x9Qz' })
 * event.type // 'credits.low'
 * ```
 */
export function creditWebhookEvent(crossing: CreditCrossing): WebhookEvent {
  const subject: Record<string, WebhookJson> =
    crossing.kind === 'account'
      ? { passcode: { id: crossing.key, name: crossing.name, hint: crossing.hint } }
      : { userPasscode: { userId: crossing.key, hint: crossing.hint } }
  return {
    type: crossing.type === 'low' ? 'credits.low' : 'credits.exhausted',
    at: crossing.at,
    data: {
      ...subject,
      actor: { type: 'system' },
      remaining: crossing.balance,
      full: crossing.full,
      nextRefillAt: webhookInstant(crossing.nextRefillAt),
    },
  }
}

/**
 * The audit record of an endpoint the dispatcher disabled because its every attempt
 * failed for 5 days (SPEC §5.53): by the system, in the transaction that disables it.
 *
 * @example
 * ```ts
 * const entry = webhookDisabledEntry({ id: 'ep_1', accountId: 'acc_1', failingSince }, Date.now())
 * ```
 */
export function webhookDisabledEntry(
  endpoint: { readonly id: string; readonly accountId: string; readonly failingSince: number | null },
  at: number,
): AuditEntry {
  return {
    accountId: endpoint.accountId,
    at,
    actor: { type: 'system' },
    action: 'webhook.endpoint_disabled',
    target: { type: 'webhook', id: endpoint.id },
    changes: { enabled: { before: true, after: false }, failingSince: { before: null, after: endpoint.failingSince } },
    requestId: null,
    clientAddress: null,
  }
}
