import type { Principal } from '../core/entities'
import type { NotificationKind } from '../core/notifications'
import type { FailureReason } from '../protocol/outcomes'
import type { NotificationFailureReason } from './notifier/notification-report'

/**
 * What every {@link AuditEvent} but `notifier.failed` and `usage.flush_failed` carries.
 *
 * @example
 * ```ts
 * const onEvent = (event: AuditEvent) => {
 *   if (event.type !== 'notifier.failed') log.info({ type: event.type, account: event.accountId, at: event.at.toISOString() })
 * }
 * ```
 */
export interface EventBase {
  /** When it happened, by the injected clock. */
  readonly at: Date
  readonly accountId: string
}

/**
 * What every management {@link AuditEvent} (`passcode.*`, `user_passcode.*`,
 * `account.*`) carries on top of {@link EventBase}: who did it.
 *
 * @example
 * ```ts
 * const onEvent = (event: AuditEvent) => {
 *   if ('actorUserId' in event) audit.write({ type: event.type, by: event.actorUserId, account: event.accountId })
 * }
 * ```
 */
export interface ManagementEventBase extends EventBase {
  /** The user who performed the operation. */
  readonly actorUserId: string
}

/**
 * What the `onEvent` hook receives (SPEC §5.18). Events carry IDs, names, hints and
 * reasons, never a passcode value, pepper or key.
 */
export type AuditEvent =
  | (ManagementEventBase & {
      readonly type: 'passcode.created' | 'passcode.deleted'
      readonly passcodeId: string
      readonly name: string
      readonly hint: string
    })
  | (ManagementEventBase & {
      readonly type: 'passcode.updated'
      readonly passcodeId: string
      readonly name: string
      readonly hint: string
      readonly changed: readonly ('name' | 'expiry' | 'partners')[]
    })
  | (ManagementEventBase & {
      readonly type: 'passcode.rotated'
      readonly passcodeId: string
      readonly name: string
      /** The hint of the new value. */
      readonly hint: string
      /** The hint of the value it replaced. */
      readonly previousHint: string
      /** How long the replaced value keeps working. */
      readonly overlapMinutes: number
      /** When the replaced value stops working; `null` when it stopped at once. */
      readonly previousValueEndsAt: Date | null
    })
  | (ManagementEventBase & {
      readonly type: 'user_passcode.granted' | 'user_passcode.reset' | 'user_passcode.revoked' | 'user_passcode.revealed'
      readonly userId: string
    })
  | (ManagementEventBase & {
      readonly type: 'account.accepted_passcodes_changed'
      readonly acceptedPasscodes: 'account' | 'user' | 'both'
    })
  | (EventBase & { readonly type: 'auth.succeeded'; readonly principal: Principal })
  | (EventBase & {
      readonly type: 'auth.failed'
      readonly reason: FailureReason
      readonly statusCode: number
    })
  | (EventBase & {
      readonly type: 'notification.sent' | 'notification.failed'
      readonly passcodeId: string
      readonly kind: NotificationKind
      readonly expiresAt: Date
      /** Only on `notification.failed`: why the send failed. */
      readonly reason?: NotificationFailureReason
      /** Only on `notification.failed`: what went wrong, without secrets. */
      readonly error?: string
    })
  | { readonly type: 'notifier.failed'; readonly at: Date; readonly error: string }
  | {
      /** A usage flush failed (SPEC §5.27): its entries are retried once with the next flush, then dropped. */
      readonly type: 'usage.flush_failed'
      readonly at: Date
      /** How many passcodes the failed flush held. */
      readonly passcodes: number
      /** How many of them were dropped (already retried once, or the service is closing). */
      readonly dropped: number
      readonly error: string
    }

/** The type names of {@link AuditEvent}. */
export type AuditEventType = AuditEvent['type']

/** Distributes `Omit` over a union, so each event keeps its own fields. */
export type EventInput = AuditEvent extends infer E ? (E extends AuditEvent ? Omit<E, 'at'> : never) : never

/**
 * Wraps the host's hook so that a throwing or rejecting hook never breaks the
 * operation that emitted the event. Returns `undefined` when there is no hook, so
 * hot paths can skip building events at all.
 */
export function createEmitter(
  onEvent: ((event: AuditEvent) => void | Promise<void>) | undefined,
  now: () => number,
): ((event: EventInput) => void) | undefined {
  if (onEvent === undefined) return undefined
  return (event) => {
    try {
      const result = onEvent({ ...event, at: new Date(now()) } as AuditEvent)
      if (result !== undefined && typeof (result as Promise<void>).catch === 'function') {
        ;(result as Promise<void>).catch(() => {})
      }
    } catch {
      // The audit hook is the host's; its failure is not the caller's.
    }
  }
}
