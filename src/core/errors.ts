import type { AuditBreak } from './audit-chain'
import { setClassName } from './class-name'

/**
 * Every `code` a {@link PasscodeAuthError} can carry. Switch on it rather than on
 * the class when errors cross a process or package boundary.
 */
export type PasscodeAuthErrorCode =
  | 'ERR_INVALID_INPUT'
  | 'ERR_INVALID_OPTIONS'
  | 'ERR_CONFIGURATION'
  | 'ERR_FORBIDDEN'
  | 'ERR_NOT_FOUND'
  | 'ERR_CAP_REACHED'
  | 'ERR_DUPLICATE_NAME'
  | 'ERR_REACTIVATION_REFUSED'
  | 'ERR_ROTATION_REFUSED'
  | 'ERR_ALREADY_GRANTED'
  | 'ERR_STORAGE_UNAVAILABLE'
  | 'ERR_STORAGE_TIMEOUT'
  | 'ERR_MAILER_FAILED'
  | 'ERR_NO_RECIPIENTS'
  | 'ERR_PASSCODE_REFUSED'
  | 'ERR_AUDIT_BROKEN'

/**
 * Base class of every error passcode-auth throws on purpose. Messages never contain
 * passcode values, peppers or keys.
 *
 * @example
 * ```ts
 * import { PasscodeAuthError } from 'passcode-auth'
 *
 * try {
 *   await auth.passcodes.create(actor, 'acc_1', { name: 'Partner A', expiry: 90 })
 * } catch (error) {
 *   if (error instanceof PasscodeAuthError && error.code === 'ERR_CAP_REACHED') {
 *     // tell the admin to delete an old passcode first
 *   }
 *   throw error
 * }
 * ```
 */
export class PasscodeAuthError extends Error {
  static {
    setClassName(this, 'PasscodeAuthError')
  }

  /** A machine-readable identifier of the kind of failure. */
  readonly code: PasscodeAuthErrorCode

  constructor(code: PasscodeAuthErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.code = code
    this.name = new.target.name
  }
}

/**
 * One field of an input failed validation.
 *
 * @example
 * ```ts
 * // error.field === 'expiry', error.message names the rule that failed
 * await auth.passcodes.create(admin, 'acc_1', { name: 'x', expiry: 0 }).catch((e) => e.field)
 * ```
 */
export class InvalidInputError extends PasscodeAuthError {
  static {
    setClassName(this, 'InvalidInputError')
  }

  /** Dotted path of the offending field, for example `expiry` or `validity.days`. */
  readonly field: string

  constructor(field: string, message: string) {
    super('ERR_INVALID_INPUT', `Invalid ${field}: ${message}`)
    this.field = field
  }
}

/**
 * A create, edit, grant or reset would break the account's policy (SPEC §5.52): an
 * {@link InvalidInputError} (`ERR_INVALID_INPUT`, 400 in the management API) on the
 * field at fault, whose message names the rule, as `rule` does.
 *
 * @example
 * ```ts
 * await auth.passcodes.create(admin, 'acc_1', { name: 'Acme', expiry: 'forever' }).catch((error) => {
 *   if (error instanceof PolicyViolationError) console.log(error.field, error.rule) // 'expiry' 'requireExpiry'
 * })
 * ```
 */
export class PolicyViolationError extends InvalidInputError {
  static {
    setClassName(this, 'PolicyViolationError')
  }

  /** The rule of the account's policy the input breaks. */
  readonly rule: 'maxLifetimeDays' | 'requireExpiry' | 'requireDescription'

  constructor(field: string, rule: PolicyViolationError['rule'], message: string) {
    super(field, `${message} (the account's policy, ${rule})`)
    this.rule = rule
  }
}

/**
 * An option given to a factory such as `createPasscodeAuth` is invalid. The message
 * names the option.
 *
 * @example
 * ```ts
 * createPasscodeAuth({ store, timeoutMs: -1 }) // throws InvalidOptionsError: timeoutMs …
 * ```
 */
export class InvalidOptionsError extends PasscodeAuthError {
  static {
    setClassName(this, 'InvalidOptionsError')
  }

  /** Dotted path of the offending option. */
  readonly option: string

  constructor(option: string, message: string) {
    super('ERR_INVALID_OPTIONS', `Invalid passcode-auth option \`${option}\`: ${message}`)
    this.option = option
  }
}

/**
 * The host's configuration does not allow the operation, for example granting a user
 * passcode without `encryptionKeys`.
 *
 * @example
 * ```ts
 * // without encryptionKeys:
 * await auth.userPasscodes.grant(admin, 'acc_1', 'u_1', { validity: { type: 'infinite' } })
 * // → ConfigurationError (code ERR_CONFIGURATION)
 * ```
 */
export class ConfigurationError extends PasscodeAuthError {
  static {
    setClassName(this, 'ConfigurationError')
  }

  constructor(message: string) {
    super('ERR_CONFIGURATION', message)
  }
}

/**
 * The actor may not perform the operation (SPEC §2, §3, §5.13).
 *
 * @example
 * ```ts
 * await auth.passcodes.create({ userId: 'u_2', role: 'member' }, 'acc_1', input) // ForbiddenError
 * ```
 */
export class ForbiddenError extends PasscodeAuthError {
  static {
    setClassName(this, 'ForbiddenError')
  }

  constructor(message: string) {
    super('ERR_FORBIDDEN', message)
  }
}

/**
 * The passcode or user passcode does not exist (or no longer does).
 *
 * @example
 * ```ts
 * await auth.passcodes.delete(admin, 'acc_1', 'no-such-id') // NotFoundError
 * ```
 */
export class NotFoundError extends PasscodeAuthError {
  static {
    setClassName(this, 'NotFoundError')
  }

  constructor(message: string) {
    super('ERR_NOT_FOUND', message)
  }
}

/**
 * The account already holds the maximum number of passcodes (SPEC §5.9).
 *
 * @example
 * ```ts
 * // the 101st create on one account
 * error.code === 'ERR_CAP_REACHED' && error.limit === 100
 * ```
 */
export class CapReachedError extends PasscodeAuthError {
  static {
    setClassName(this, 'CapReachedError')
  }

  /** The cap that was reached. */
  readonly limit: number

  constructor(limit: number) {
    super('ERR_CAP_REACHED', `The account already has the maximum of ${limit} passcodes; delete one first`)
    this.limit = limit
  }
}

/**
 * Another passcode of the account has the same name, compared case-insensitively
 * after trimming (SPEC §5.10).
 *
 * @example
 * ```ts
 * await auth.passcodes.create(admin, 'acc_1', { name: 'partner a', expiry: 30 })
 * // after 'Partner A' exists → DuplicateNameError
 * ```
 */
export class DuplicateNameError extends PasscodeAuthError {
  static {
    setClassName(this, 'DuplicateNameError')
  }

  constructor(name: string) {
    super('ERR_DUPLICATE_NAME', `A passcode named ${JSON.stringify(name)} already exists in this account`)
  }
}

/**
 * An edit would bring an expired passcode back to life and the host did not enable
 * `allowReactivation` (SPEC §5.8).
 *
 * @example
 * ```ts
 * await auth.passcodes.update(admin, 'acc_1', expiredId, { expiry: 30 }) // ReactivationRefusedError
 * ```
 */
export class ReactivationRefusedError extends PasscodeAuthError {
  static {
    setClassName(this, 'ReactivationRefusedError')
  }

  constructor() {
    super(
      'ERR_REACTIVATION_REFUSED',
      'The passcode has expired; a new expiry would reactivate it, which this service does not allow (option allowReactivation)',
    )
  }
}

/**
 * A rotation of an expired passcode (SPEC §5.26): rotation keeps the expiry, so the
 * new value would be expired too. Give the passcode a new expiry with an edit first.
 *
 * @example
 * ```ts
 * await auth.passcodes.rotate(admin, 'acc_1', expiredId, { overlapMinutes: 60 }) // RotationRefusedError
 * ```
 */
export class RotationRefusedError extends PasscodeAuthError {
  static {
    setClassName(this, 'RotationRefusedError')
  }

  constructor() {
    super('ERR_ROTATION_REFUSED', 'The passcode has expired; rotation keeps the expiry, so give it a new expiry with an edit first')
  }
}

/**
 * The user already holds a live user passcode: reset or revoke it instead.
 *
 * @example
 * ```ts
 * await auth.userPasscodes.grant(admin, 'acc_1', 'u_1', { validity: { type: 'infinite' } }) // twice → AlreadyGrantedError
 * ```
 */
export class AlreadyGrantedError extends PasscodeAuthError {
  static {
    setClassName(this, 'AlreadyGrantedError')
  }

  constructor() {
    super('ERR_ALREADY_GRANTED', 'The user already has a user passcode; reset or revoke it instead')
  }
}

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
