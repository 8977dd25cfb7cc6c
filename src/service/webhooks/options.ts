import { z } from 'zod'
import type { WebhookSender } from '../../ports/webhook-sender'
import { objectWithMethods } from '../option-checks'

/** The `webhooks` option (SPEC §5.53), with its defaults stated once. */
export const webhooksSchema = z
  .object({
    allowPrivateAddresses: z.boolean().default(false),
    sender: objectWithMethods<WebhookSender>('a WebhookSender (an object with check(url, policy) and send(request))', 'check', 'send').optional(),
    batchSize: z.number().int().min(1).max(1_000).default(100),
    concurrency: z.number().int().min(1).max(1_000).default(50),
    leaseMs: z.number().int().min(20_000).max(3_600_000).default(60_000),
  })
  .strict()
