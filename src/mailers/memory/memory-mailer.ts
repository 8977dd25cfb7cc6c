import type { Mailer, MailMessage } from '../../ports/mailer'

/** A {@link Mailer} that keeps messages in memory, for tests and local development. */
export interface MemoryMailer extends Mailer {
  /** Every message accepted so far, oldest first. */
  readonly messages: readonly MailMessage[]
  /** Forgets the recorded messages. */
  clear(): void
}

/**
 * The in-memory mailer: records every message instead of sending it. Messages are
 * frozen copies, so later changes by the sender do not alter the record.
 *
 * @example
 * ```ts
 * import { memoryMailer } from 'passcode-auth/memory'
 *
 * const mailer = memoryMailer()
 * await mailer.send({ to: ['ops@example.com'], subject: 'Hi', text: 'Hi', html: '<p>Hi</p>' })
 * mailer.messages.length // 1
 * ```
 */
export function memoryMailer(): MemoryMailer {
  const messages: MailMessage[] = []
  return {
    messages,
    async send(message) {
      messages.push(Object.freeze({ ...message, to: Object.freeze([...message.to]) }))
    },
    clear() {
      messages.length = 0
    },
  }
}
