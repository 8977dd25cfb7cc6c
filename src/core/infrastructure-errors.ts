import type { AuditBreak } from './audit-chain'
import { setClassName } from './class-name'
import { PasscodeAuthError } from './passcode-auth-error'

// The errors of what the service depends on: the store, its audit chain, the mailer.

/**
 * The passcode store failed. The message is generic on purpose; the store's own
 * error is kept as `cause` for the host's logs.
 *
 * @example
 * ```ts
 * if (error instanceof StorageError) reply.status(503)
 * ```
 */
export class StorageError extends PasscodeAuthError {
  static {
    setClassName(this, 'StorageError')
  }

  constructor(options?: { cause?: unknown }) {
    super('ERR_STORAGE_UNAVAILABLE', 'The passcode store is unavailable', options)
  }
}

/**
 * An account's audit trail does not verify where a reader needs it to (SPEC §5.44):
 * `auth.audit.list` refuses a page it cannot vouch for, and `auth.audit.export` stops at
 * the first break, rather than show a record that verification would not vouch for.
 * `at` and `reason` are those of `auth.audit.verify`'s answer.
 *
 * @example
 * ```ts
 * if (error instanceof AuditChainBrokenError) console.error(`record ${error.at}: ${error.reason}`)
 * ```
 */
export class AuditChainBrokenError extends PasscodeAuthError {
  static {
    setClassName(this, 'AuditChainBrokenError')
  }

  /** The sequence of the first record concerned. */
  readonly at: number
  /** What is wrong there. */
  readonly reason: AuditBreak

  /** @param failure - where verification broke; without it, record 0 and `changed` (as `new AuditChainBrokenError()` in a host's own tests). */
  constructor(failure: { readonly at: number; readonly reason: AuditBreak } = { at: 0, reason: 'changed' }) {
    super(
      'ERR_AUDIT_BROKEN',
      `The audit trail of this account does not verify at record ${failure.at} (${failure.reason.replace('_', ' ')}); the operator can check it with passcode-auth audit verify`,
    )
    this.at = failure.at
    this.reason = failure.reason
  }
}

/**
 * The passcode store did not answer within the deadline (`timeoutMs`).
 *
 * @example
 * ```ts
 * if (error instanceof StorageTimeoutError) reply.status(504)
 * ```
 */
export class StorageTimeoutError extends PasscodeAuthError {
  static {
    setClassName(this, 'StorageTimeoutError')
  }

  /** The deadline that passed, in milliseconds. */
  readonly timeoutMs: number

  constructor(timeoutMs: number) {
    super('ERR_STORAGE_TIMEOUT', `The passcode store did not answer within ${timeoutMs} ms`)
    this.timeoutMs = timeoutMs
  }
}

/**
 * A mailer could not deliver a message. The notifier counts it as failed and retries
 * on its next pass.
 *
 * @example
 * ```ts
 * throw new MailerError('SMTP server refused the recipient', { cause: smtpError })
 * ```
 */
export class MailerError extends PasscodeAuthError {
  static {
    setClassName(this, 'MailerError')
  }

  constructor(message: string, options?: { cause?: unknown }) {
    super('ERR_MAILER_FAILED', message, options)
  }
}

/**
 * The host's `recipients(accountId)` gave no address for an account that has a
 * notification due.
 *
 * @example
 * ```ts
 * report.failed[0].reason === 'ERR_NO_RECIPIENTS'
 * ```
 */
export class NoRecipientsError extends PasscodeAuthError {
  static {
    setClassName(this, 'NoRecipientsError')
  }

  constructor(accountId: string) {
    super('ERR_NO_RECIPIENTS', `No notification recipients are configured for account ${JSON.stringify(accountId)}`)
  }
}
