import type { ConnectionOptions } from 'node:tls'
import { z } from 'zod'
import { InvalidOptionsError } from '../../core/errors'

/** Options of {@link smtpMailer}. */
export interface SmtpMailerOptions {
  /** The sender, `notifications@example.com` or `Example <notifications@example.com>`. Required. */
  from: string
  /** The SMTP server's host name or IP address. @default 'localhost' */
  host?: string
  /** The server's port. @default 465 when `secure`, else 587 */
  port?: number
  /** TLS from the first byte (port 465). When `false`, STARTTLS is used if the server offers it. @default false */
  secure?: boolean
  /** Fail unless the server upgrades the connection with STARTTLS. @default false */
  requireTLS?: boolean
  /** Never use STARTTLS, even when offered (local test servers). @default false */
  ignoreTLS?: boolean
  /** Login. Never appears in errors. */
  auth?: {
    /** The user name. */
    user: string
    /** The password. */
    pass: string
  }
  /** Passed to `tls.connect`, for example `{ servername, ca, rejectUnauthorized }`. */
  tls?: ConnectionOptions
  /** How long to wait for the TCP (or TLS) connection, in ms. @default 10000 */
  connectionTimeoutMs?: number
  /** How long to wait for the server's greeting once connected, in ms. @default 10000 */
  greetingTimeoutMs?: number
  /** How long the connection may stay silent during a send, in ms. @default 30000 */
  socketTimeoutMs?: number
  /** Keep connections open and reuse them (call `close()` on shutdown). @default false */
  pool?: boolean
  /** Host name the client announces in `EHLO`. @default the machine's host name */
  name?: string
  /** Where replies go, when not to `from`. */
  replyTo?: string
}

/**
 * Timeout defaults, far below nodemailer's own (2 min, 30 s, 10 min) so a dead server fails a pass quickly.
 *
 * @example
 * ```ts
 * import { SMTP_DEFAULT_TIMEOUTS, smtpMailer } from 'passcode-auth/smtp'
 *
 * // A slow relay: twice the default socket timeout, the others as they are.
 * const mailer = smtpMailer({ host: 'smtp.example.com', from: 'alerts@example.com', socketTimeoutMs: 2 * SMTP_DEFAULT_TIMEOUTS.socketTimeoutMs })
 * ```
 */
export const SMTP_DEFAULT_TIMEOUTS = Object.freeze({
  /** Default of {@link SmtpMailerOptions.connectionTimeoutMs}. */
  connectionTimeoutMs: 10_000,
  /** Default of {@link SmtpMailerOptions.greetingTimeoutMs}. */
  greetingTimeoutMs: 10_000,
  /** Default of {@link SmtpMailerOptions.socketTimeoutMs}. */
  socketTimeoutMs: 30_000,
})

// One mailbox with an optional display name; no line breaks, so no header injection.
const MAILBOX = /^(?:[^<>\r\n]*<[^\s@<>]+@[^\s@<>]+>|[^\s@<>]+@[^\s@<>]+)$/
const mailbox = z
  .string({ error: 'must be a string' })
  .trim()
  .refine((value) => MAILBOX.test(value) && !/[\u0000-\u001f\u007f]/.test(value), {
    message: 'must be an email address, optionally with a display name: Name <address@example.com>',
  })
const timeout = z.number({ error: 'must be a number of milliseconds' }).int('must be whole milliseconds').min(1).max(600_000)

const schema = z
  .object({
    from: mailbox,
    host: z.string().trim().min(1, 'must not be blank').default('localhost'),
    port: z.number({ error: 'must be a number' }).int().min(1).max(65_535).optional(),
    secure: z.boolean().default(false),
    requireTLS: z.boolean().default(false),
    ignoreTLS: z.boolean().default(false),
    auth: z
      .object({
        user: z.string({ error: 'must be a string' }).min(1, 'must not be empty'),
        pass: z.string({ error: 'must be a string' }),
      })
      .strict()
      .optional(),
    tls: z.custom<ConnectionOptions>((value) => typeof value === 'object' && value !== null, { message: 'must be an object' }).optional(),
    connectionTimeoutMs: timeout.default(SMTP_DEFAULT_TIMEOUTS.connectionTimeoutMs),
    greetingTimeoutMs: timeout.default(SMTP_DEFAULT_TIMEOUTS.greetingTimeoutMs),
    socketTimeoutMs: timeout.default(SMTP_DEFAULT_TIMEOUTS.socketTimeoutMs),
    pool: z.boolean().default(false),
    name: z.string().trim().min(1).optional(),
    replyTo: mailbox.optional(),
  })
  .strict()
  .refine((options) => !(options.requireTLS && options.ignoreTLS), {
    message: 'requireTLS and ignoreTLS exclude each other',
    path: ['ignoreTLS'],
  })

/** Options after validation and defaults. */
export type ResolvedSmtpOptions = z.output<typeof schema> & { port: number }

/**
 * Validates the options at once. Errors name the option and never echo values,
 * which may be credentials.
 */
export function resolveSmtpOptions(options: unknown): ResolvedSmtpOptions {
  if (typeof options !== 'object' || options === null) {
    throw new InvalidOptionsError('options', 'smtpMailer needs an options object with at least `from`')
  }
  const result = schema.safeParse(options)
  if (!result.success) {
    const issue = result.error.issues[0]!
    const path = issue.path.length > 0 ? issue.path.join('.') : 'options'
    const message =
      issue.code === 'unrecognized_keys'
        ? `unknown option ${issue.keys.map((key) => `\`${key}\``).join(', ')}`
        : path === 'from' && (options as { from?: unknown }).from === undefined
          ? 'is required: the sender address, for example notifications@example.com'
          : issue.message
    throw new InvalidOptionsError(path, message)
  }
  return { ...result.data, port: result.data.port ?? (result.data.secure ? 465 : 587) }
}
