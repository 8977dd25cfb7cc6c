import nodemailer from 'nodemailer'
import { MailerError } from '../../core/errors'
import type { Mailer, MailMessage } from '../../ports/mailer'
import { resolveSmtpOptions, type ResolvedSmtpOptions, type SmtpMailerOptions } from './smtp-options'

/** A {@link Mailer} over SMTP: what {@link smtpMailer} returns. */
export interface SmtpMailer extends Mailer {
  /** Connects and logs in without sending, to check the configuration at start-up. Throws a `MailerError`. */
  verify(): Promise<void>
  /** Closes pooled connections. Harmless without `pool`. */
  close(): void
}

interface NodemailerError {
  code?: unknown
  responseCode?: unknown
  command?: unknown
}

/**
 * Turns a nodemailer error into a `MailerError` whose message says what failed in
 * words of our own: nodemailer's messages quote server responses, which may echo
 * a login. The original stays as `cause` for the host's logs.
 */
function toMailerError(error: unknown, options: ResolvedSmtpOptions): MailerError {
  if (error instanceof MailerError) return error
  const { code, responseCode } = (typeof error === 'object' && error !== null ? error : {}) as NodemailerError
  const server = `${options.host}:${options.port}`
  const status = typeof responseCode === 'number' ? ` (SMTP ${responseCode})` : ''
  const text = (() => {
    switch (code) {
      case 'ECONNECTION':
      case 'ESOCKET':
        return `Could not connect to the SMTP server ${server}`
      case 'ETIMEDOUT':
        return `The SMTP server ${server} did not answer in time`
      case 'EDNS':
        return `Could not resolve the SMTP server host ${options.host}`
      case 'ETLS':
        return `TLS with the SMTP server ${server} failed`
      case 'EAUTH':
      case 'ENOAUTH':
        return `The SMTP server ${server} refused the login${status}`
      case 'EENVELOPE':
        return `The SMTP server ${server} refused the sender or every recipient${status}`
      case 'EMESSAGE':
        return `The SMTP server ${server} did not accept the message${status}`
      default:
        return `Sending through the SMTP server ${server} failed${typeof code === 'string' && /^E[A-Z]+$/.test(code) ? ` (${code})` : ''}${status}`
    }
  })()
  return new MailerError(text, { cause: error })
}

/**
 * A mailer that sends through an SMTP server with nodemailer (an optional peer
 * dependency: `npm install nodemailer`). Options are validated at once and a bad one
 * throws an `InvalidOptionsError` naming it. Each send fails with a `MailerError`
 * (no credentials in its message), which the expiry notifier counts as failed and
 * retries on its next pass. Timeouts default to 10 s to connect, 10 s for the
 * greeting and 30 s of silence during a send.
 *
 * @param options - see {@link SmtpMailerOptions}; `from` is required
 * @example
 * ```ts
 * import { createPasscodeAuth } from 'passcode-auth'
 * import { smtpMailer } from 'passcode-auth/smtp'
 *
 * const mailer = smtpMailer({
 *   host: 'smtp.example.com',
 *   port: 587,
 *   auth: { user: process.env.SMTP_USER!, pass: process.env.SMTP_PASS! },
 *   from: 'Passcodes <no-reply@example.com>',
 * })
 * const auth = createPasscodeAuth({ store, mailer, recipients: (accountId) => adminEmails(accountId) })
 * ```
 */
export function smtpMailer(options: SmtpMailerOptions): SmtpMailer {
  const resolved = resolveSmtpOptions(options)
  const transport = nodemailer.createTransport({
    host: resolved.host,
    port: resolved.port,
    secure: resolved.secure,
    requireTLS: resolved.requireTLS,
    ignoreTLS: resolved.ignoreTLS,
    ...(resolved.auth !== undefined && { auth: { user: resolved.auth.user, pass: resolved.auth.pass } }),
    ...(resolved.tls !== undefined && { tls: resolved.tls }),
    ...(resolved.name !== undefined && { name: resolved.name }),
    connectionTimeout: resolved.connectionTimeoutMs,
    greetingTimeout: resolved.greetingTimeoutMs,
    socketTimeout: resolved.socketTimeoutMs,
    // DNS gets the connection budget too, so a dead resolver cannot stall a pass.
    dnsTimeout: resolved.connectionTimeoutMs,
    ...(resolved.pool && { pool: true }),
    logger: false,
    debug: false,
  })

  return {
    async send(message: MailMessage) {
      try {
        const info = await transport.sendMail({
          from: resolved.from,
          ...(resolved.replyTo !== undefined && { replyTo: resolved.replyTo }),
          to: [...message.to],
          subject: message.subject,
          text: message.text,
          html: message.html,
        })
        // nodemailer resolves when at least one recipient was accepted; the others are
        // typically permanent refusals, which a retry would not fix.
        if (Array.isArray(info.accepted) && info.accepted.length === 0) {
          throw new MailerError(`The SMTP server ${resolved.host}:${resolved.port} accepted none of the recipients`)
        }
      } catch (error) {
        throw toMailerError(error, resolved)
      }
    },
    async verify() {
      try {
        await transport.verify()
      } catch (error) {
        throw toMailerError(error, resolved)
      }
    },
    close() {
      transport.close()
    },
  }
}
