/** One email, ready to send. */
export interface MailMessage {
  readonly to: readonly string[]
  readonly subject: string
  readonly text: string
  readonly html: string
}

/**
 * Sends email. Throw (ideally a `MailerError`) when the message was not accepted;
 * the notifier then retries on its next pass.
 *
 * @example
 * ```ts
 * const mailer: Mailer = { send: async (message) => { await transport.sendMail(message) } }
 * ```
 */
export interface Mailer {
  send(message: MailMessage): Promise<void>
}
