import { z } from 'zod'
import type { Mailer } from '../../ports/mailer'
import type { NotificationRecipients } from '../../ports/recipients'
import { functionOption, noOptions, objectWithMethods } from '../option-checks'
import type { NotificationTemplate } from './notification-messages'

/**
 * The options the expiry notifier owns: `mailer`, `recipients`, `templates` and the
 * `notifier` tuning, each default stated once, here.
 */

/** The `mailer` option. */
export const mailerSchema = objectWithMethods<Mailer>('a Mailer (an object with send(message))', 'send')

/** The `recipients` option. */
export const recipientsSchema = functionOption<NotificationRecipients>('a function (accountId) => string[]')

const template = functionOption<NotificationTemplate>('a function (data) => { subject, text, html }')

/** The `templates` option: either built-in email replaced, or none. */
export const templatesSchema = z.object({ expiring_soon: template.optional(), expired: template.optional() }).strict().prefault(noOptions)

/**
 * The `notifier` option: lease, batch size and send timeout with their defaults. The
 * lease must outlast a send, so that no other runner takes over a claim whose email
 * is still on the way.
 */
export const notifierSchema = z
  .object({
    leaseMs: z.number().int().min(1_000).max(86_400_000).default(300_000),
    batchSize: z.number().int().min(1).max(1_000).default(50),
    sendTimeoutMs: z.number().int().min(1).max(600_000).default(30_000),
  })
  .strict()
  .refine((notifier) => notifier.leaseMs > notifier.sendTimeoutMs, {
    message: 'leaseMs must be greater than sendTimeoutMs',
    path: ['leaseMs'],
  })
  .prefault(noOptions)
