import { setClassName } from './class-name'
import { PasscodeAuthError } from './passcode-auth-error'

// The errors of a bad input, option or configuration: the caller's to fix.

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
 * field at fault, whose message names the rule, as `rule` does. Not exported on its own
 * (the root entry keeps its values few): catch it as an `InvalidInputError` named
 * `PolicyViolationError`.
 *
 * @example
 * ```ts
 * await auth.passcodes.create(admin, 'acc_1', { name: 'Acme', expiry: 'forever' }).catch((error) => {
 *   if (error instanceof InvalidInputError && error.name === 'PolicyViolationError') console.log(error.field) // 'expiry'
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
