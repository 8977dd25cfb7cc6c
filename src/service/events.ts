import type { Principal } from '../core/entities'
import type { NotificationFailureReason, NotificationKind } from '../core/notifications'
import type { FailureReason } from '../protocol/outcomes'
import type { UpdatePasscodeInput } from './input-types'

/**
 * What every {@link AuditEvent} but `notifier.failed`, `usage.flush_failed`, `usage.prune_failed`, `config.no_pepper`, `config.no_audit_key`, `limiter.no_client_address` and `invalidations.*` carries.
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
  /** The account concerned. */
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
 * reasons, never a passcode value, pepper or key (nor a description: it is free text).
 */
export type AuditEvent =
  | (ManagementEventBase & {
      /** What happened; `passcode.disabled` and `passcode.enabled` only when the state changed (SPEC §5.38). */
      readonly type: 'passcode.created' | 'passcode.deleted' | 'passcode.disabled' | 'passcode.enabled'
      /** The passcode concerned. */
      readonly passcodeId: string
      /** Its name (after the change, for an update). */
      readonly name: string
      /** Its hint (prefix and last 4 characters), never the value. */
      readonly hint: string
    })
  | (ManagementEventBase & {
      /** What happened. */
      readonly type: 'passcode.updated'
      /** The passcode concerned. */
      readonly passcodeId: string
      /** Its name (after the change, for an update). */
      readonly name: string
      /** Its hint (prefix and last 4 characters), never the value. */
      readonly hint: string
      /** Which fields the update changed. */
      readonly changed: readonly (keyof UpdatePasscodeInput)[]
    })
  | (ManagementEventBase & {
      /** What happened. */
      readonly type: 'passcode.rotated'
      /** The passcode concerned. */
      readonly passcodeId: string
      /** Its name (after the change, for an update). */
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
      /** What happened. */
      readonly type: 'user_passcode.granted' | 'user_passcode.reset' | 'user_passcode.revoked' | 'user_passcode.revealed'
      /** The user whose passcode it is. */
      readonly userId: string
    })
  | (ManagementEventBase & {
      /** What happened. */
      readonly type: 'account.accepted_passcodes_changed'
      /** The new setting. */
      readonly acceptedPasscodes: 'account' | 'user' | 'both'
    })
  | (ManagementEventBase & {
      /** An account's passcode policy changed (SPEC §5.52). */
      readonly type: 'account.policy_changed'
      /** The policy now in force, and whether it is the account's own or the host's default. */
      readonly policy: {
        /** The longest a passcode may live, in days; `null`: no limit. */
        readonly maxLifetimeDays: number | null
        /** Whether a passcode must have an expiry. */
        readonly requireExpiry: boolean
        /** Whether a passcode must have a description. */
        readonly requireDescription: boolean
        /** `account`: the account's own policy; `default`: the host's `policy` option. */
        readonly source: 'account' | 'default'
      }
      /** How many live passcodes break it (made before it; they keep working). */
      readonly violations: number
    })
  | (EventBase & {
      /**
       * A live passcode was reported exposed and acted on (SPEC §5.42); once per
       * change: a second report of it emits nothing.
       */
      readonly type: 'passcode.leaked'
      /** An account passcode or a user passcode. */
      readonly kind: 'account' | 'user'
      /** The account passcode concerned (`kind: 'account'`). */
      readonly passcodeId?: string
      /** Its name (`kind: 'account'`). */
      readonly name?: string
      /** Its hint (prefix and last 4 characters), never the value (`kind: 'account'`). */
      readonly hint?: string
      /** The user whose passcode it is (`kind: 'user'`). */
      readonly userId?: string
      /** Who found it, as the report says. */
      readonly source: string
      /** Where it was found, when the report says. */
      readonly url: string | null
      /** What was done: an account passcode disabled or deleted, a user passcode revoked. */
      readonly action: 'disabled' | 'deleted' | 'revoked'
      /** Whether the account's recipients were emailed (false without a mailer, recipients, or when sending failed). */
      readonly notified: boolean
    })
  | (ManagementEventBase & {
      /** An admin changed a webhook endpoint (SPEC §5.53). */
      readonly type: 'webhook.endpoint_created' | 'webhook.endpoint_updated' | 'webhook.endpoint_deleted' | 'webhook.secret_rotated'
      /** The endpoint. */
      readonly endpointId: string
      /** Its URL without the query (which may hold a receiver's token); never its secret. */
      readonly url: string
    })
  | (EventBase & {
      /** An endpoint whose every attempt failed for 5 days was disabled; its admins are emailed. */
      readonly type: 'webhook.endpoint_disabled'
      /** The endpoint. */
      readonly endpointId: string
      /** Its URL without the query. */
      readonly url: string
    })
  | {
      /** A webhook delivery pass failed as a whole (storage down, say); the next pass tries again. */
      readonly type: 'webhook.dispatch_failed'
      /** When it happened, by the injected clock. */
      readonly at: Date
      /** What went wrong, without secrets. */
      readonly error: string
    }
  | (EventBase & {
      /**
       * A passcode's credits (SPEC §5.50) fell to the low line (`passcodeLimits.lowCreditsRatio`
       * of the full amount: `credits.low`) or a request found none left (`credits.exhausted`).
       * Once per crossing fleet-wide: reported by the instance whose lease crossed, and again
       * only after a refill or a new setting.
       */
      readonly type: 'credits.low' | 'credits.exhausted'
      /** An account passcode or a user passcode. */
      readonly kind: 'account' | 'user'
      /** The account passcode concerned (`kind: 'account'`). */
      readonly passcodeId?: string
      /** Its name (`kind: 'account'`). */
      readonly name?: string
      /** Its hint, never the value (`kind: 'account'`). */
      readonly hint?: string
      /** The user whose passcode it is (`kind: 'user'`). */
      readonly userId?: string
      /** Credits the store held after the lease that crossed (leased credits may still be spent). */
      readonly remaining: number
      /** The full amount the line is a fraction of: the refill amount, or the credits as set. */
      readonly full: number
      /** When the credits refill next; `null` without a refill. */
      readonly nextRefillAt: Date | null
    })
  | (EventBase & {
      /** What happened. */
      readonly type: 'auth.succeeded'
      /** Who authenticated. */
      readonly principal: Principal
    })
  | (EventBase & {
      /** What happened. */
      readonly type: 'auth.failed'
      /** Why, for logs only (every 400 reason gives the caller the same body). */
      readonly reason: FailureReason
      /** The HTTP status the caller got. */
      readonly statusCode: number
    })
  | (EventBase & {
      /** What happened. */
      readonly type: 'notification.sent' | 'notification.failed'
      /** The passcode concerned. */
      readonly passcodeId: string
      /** `expiring_soon` or `expired`. */
      readonly kind: NotificationKind
      /** The expiry instant the notification is about. */
      readonly expiresAt: Date
      /** Only on `notification.failed`: why the send failed. */
      readonly reason?: NotificationFailureReason
      /** Only on `notification.failed`: what went wrong, without secrets. */
      readonly error?: string
    })
  | {
      /** A notifier pass failed as a whole (storage down, say); the next pass tries again. */
      readonly type: 'notifier.failed'
      /** When it happened, by the injected clock. */
      readonly at: Date
      /** What went wrong, without secrets. */
      readonly error: string
    }
  | {
      /** A usage flush failed (SPEC §5.27): its entries are retried once with the next flush, then dropped. */
      readonly type: 'usage.flush_failed'
      /** When it happened, by the injected clock. */
      readonly at: Date
      /** How many passcodes the failed flush held. */
      readonly passcodes: number
      /** How many of them were dropped (already retried once; `close()` retries at once instead of at the next flush). */
      readonly dropped: number
      /** What went wrong, without secrets. */
      readonly error: string
    }
  | {
      /** Deleting daily usage counts older than `usage.retentionDays` failed (SPEC §5.41); the next day's flush tries again. */
      readonly type: 'usage.prune_failed'
      /** When it happened, by the injected clock. */
      readonly at: Date
      /** What went wrong, without secrets. */
      readonly error: string
    }
  | {
      /**
       * Reported once, at `createPasscodeAuth`, when `NODE_ENV` is `production` and new
       * hashes are plain SHA-256 (no `pepper`, or `null` first in the list): a stolen
       * database then lets anyone test guesses offline (SPEC §5.28).
       */
      readonly type: 'config.no_pepper'
      /** When it was reported. */
      readonly at: Date
      /** What to do about it, for an operator; names no secret. */
      readonly message: string
    }
  | {
      /**
       * Reported once, at `createPasscodeAuth`, when `NODE_ENV` is `production`, the store
       * keeps an audit trail and no `auditKeys` are configured: records then carry plain
       * SHA-256 hashes, which whoever can write the database can recompute (SPEC §5.44).
       */
      readonly type: 'config.no_audit_key'
      /** When it was reported. */
      readonly at: Date
      /** What to do about it, for an operator; names no secret. */
      readonly message: string
    }
  | {
      /**
       * Reported once per service, at the first request that reaches the per-address
       * limiter without a client address (SPEC §5.37): the adapter cannot see one (a
       * Fetch handler called without it, a Hono app without `clientAddress`) or the
       * caller of `authenticate` passed none. Such requests share one count, `unknown`,
       * so the per-address limit still applies to them, together.
       */
      readonly type: 'limiter.no_client_address'
      /** When it was reported. */
      readonly at: Date
      /** What it means and how to pass the address, for an operator. */
      readonly message: string
    }
  | (EventBase & {
      /**
       * Reported once per service, at the first request refused because a passcode with
       * an address allowlist (SPEC §5.49) came without a client address: the adapter
       * cannot see one (a Fetch handler called without it, a Hono app without
       * `clientAddress`) or the caller of `authenticate` passed none. Such a passcode is
       * refused (403 "Address not allowed") until the address is passed: fail closed.
       */
      readonly type: 'allowlist.no_client_address'
      /** What it means and how to pass the address, for an operator. */
      readonly message: string
    })
  | {
      /**
       * The store can no longer prove that it hears other instances' changes (SPEC §5.32):
       * its listening connection did not deliver a notification it sent itself. Until
       * `invalidations.proven`, no cached verification is trusted (each reads the store).
       * Reported once at start, with the fix, when `LISTEN` never worked (a pooler in
       * transaction mode without `listenConnectionString`, §5.33).
       */
      readonly type: 'invalidations.unproven'
      /** When it was reported. */
      readonly at: Date
      /** Why, and what an operator can do about it; names no secret. */
      readonly message: string
    }
  | {
      /** Delivery is proven again after `invalidations.unproven`: the caches were emptied and are trusted again. */
      readonly type: 'invalidations.proven'
      /** When it was reported. */
      readonly at: Date
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
      // A host's hook may return any thenable, whatever its declared type: its rejection is not the caller's.
      /* eslint-disable @typescript-eslint/no-unnecessary-type-assertion */
      const result = onEvent({ ...event, at: new Date(now()) } as AuditEvent)
      if (result !== undefined && typeof (result as Promise<void>).catch === 'function') {
        ;(result as Promise<void>).catch(() => {})
      }
      /* eslint-enable @typescript-eslint/no-unnecessary-type-assertion */
    } catch {
      // The audit hook is the host's; its failure is not the caller's.
    }
  }
}
