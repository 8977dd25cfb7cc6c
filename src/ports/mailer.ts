/** One email, ready to send. */
export interface MailMessage {
  /** Recipient addresses, as the host's `recipients` option gave them. */
  readonly to: readonly string[]
  /** The subject line, for example `Passcode "Acme" expires in 10 days`. */
  readonly subject: string
  /** The plain-text body. */
  readonly text: string
  /** The HTML body, with every value escaped. */
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
  /**
   * Sends one message; resolves once the mail server has accepted it.
   *
   * @param message - the recipients, subject and both bodies
   */
  send(message: MailMessage): Promise<void>
}
