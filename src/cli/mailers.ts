import { InvalidOptionsError, type Mailer, type MailMessage } from '../index'
import type { MailConfig } from './config'
import { CliError } from './exit-codes'

/** A mailer for the command, with what to tell the operator about it. */
export interface CliMailer extends Mailer {
  /** `console` or `SMTP mail.example.com:587` (never the login). */
  readonly description: string
  close(): void
}

/**
 * Prints each email instead of sending it: the default of the reference server, so
 * that expiry notifications are visible without an SMTP server.
 */
export function consoleMailer(write: (text: string) => void): CliMailer {
  return {
    description: 'console (notification emails are printed here)',
    async send(message: MailMessage) {
      write(`--- email to ${message.to.join(', ')} ---\nSubject: ${message.subject}\n\n${message.text.trimEnd()}\n--- end of email ---\n`)
    },
    close() {
      // Nothing to close: the text went to the stream as it was sent.
    },
  }
}

/** The SMTP mailer of `PASSCODE_AUTH_SMTP_URL` (`smtp://` STARTTLS when offered, `smtps://` TLS). */
async function smtpFromUrl(config: Extract<MailConfig, { kind: 'smtp' }>): Promise<CliMailer> {
  const { smtpMailer } = await import('../mailers/smtp/index')
  const { url } = config
  const secure = url.protocol === 'smtps:'
  const port = url.port === '' ? undefined : Number(url.port)
  try {
    const mailer = smtpMailer({
      from: config.from,
      host: url.hostname,
      ...(port !== undefined && { port }),
      secure,
      ...(url.username !== '' && { auth: { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) } }),
    })
    return {
      description: `SMTP ${url.hostname}:${port ?? (secure ? 465 : 587)}`,
      send: (message) => mailer.send(message),
      close: () => mailer.close(),
    }
  } catch (error) {
    if (error instanceof InvalidOptionsError) {
      const setting = error.option === 'from' ? 'PASSCODE_AUTH_MAIL_FROM' : 'PASSCODE_AUTH_SMTP_URL'
      throw new CliError('ERR_SETTING', `Invalid setting ${setting}: ${error.message.replace(/^Invalid passcode-auth option `[^`]+`: /, '')}`, {
        setting,
      })
    }
    throw error
  }
}

/** The mailer the settings ask for. */
export function createCliMailer(config: MailConfig, write: (text: string) => void): Promise<CliMailer> {
  return config.kind === 'smtp' ? smtpFromUrl(config) : Promise.resolve(consoleMailer(write))
}
