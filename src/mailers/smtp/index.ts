/**
 * Expiry emails over SMTP: `smtpMailer(options)`, on nodemailer.
 *
 * @module passcode-auth/smtp
 */
export { smtpMailer } from './smtp-mailer'
export type { SmtpMailer } from './smtp-mailer'
export { SMTP_DEFAULT_TIMEOUTS } from './smtp-options'
export type { SmtpMailerOptions } from './smtp-options'
export { MailerError } from '../../core/errors'
