import { setClassName } from '../core/class-name'

/**
 * Every `code` a {@link ConnectError} can carry. Switch on it rather than on the class
 * when errors cross a realm or package boundary.
 */
export type ConnectErrorCode =
  | 'ERR_INVALID_OPTIONS'
  | 'ERR_MALFORMED_PASSCODE'
  | 'ERR_INVALID_CREDENTIALS'
  | 'ERR_MISSING_PARTNER'
  | 'ERR_PASSCODE_EXPIRED'
  | 'ERR_PARTNER_NOT_WHITELISTED'
  | 'ERR_ADDRESS_NOT_ALLOWED'
  | 'ERR_MISSING_SCOPE'
  | 'ERR_RATE_LIMITED'
  | 'ERR_SERVER'
  | 'ERR_TIMEOUT'
  | 'ERR_NETWORK'
  | 'ERR_UNEXPECTED_RESPONSE'
  | 'ERR_ABORTED'

/**
 * Base class of every error the connect client throws. Messages, `toJSON` and
 * `util.inspect` output never contain the passcode: no error is ever given it.
 *
 * @example
 * ```ts
 * import { ConnectError } from 'passcode-auth/client'
 *
 * try {
 *   await client.connect('acme')
 * } catch (error) {
 *   if (error instanceof ConnectError) console.warn(error.code, error.message)
 *   else throw error
 * }
 * ```
 */
export class ConnectError extends Error {
  static {
    setClassName(this, 'ConnectError')
  }

  /** A machine-readable identifier of the kind of failure. */
  readonly code: ConnectErrorCode

  constructor(code: ConnectErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.code = code
    this.name = new.target.name
  }

  /** Name, code, message and the subclass's own fields (status, partner…), for structured logs. */
  toJSON(): Record<string, unknown> {
    return { ...(this as object), name: this.name, code: this.code, message: this.message }
  }
}

/**
 * An option of `createConnectClient` is invalid; thrown at creation. The message names
 * the option and never echoes its value.
 *
 * @example
 * ```ts
 * createConnectClient({ region: 'mars', regions: { eu: 'https://eu.example' }, accountId, passcode })
 * // InvalidClientOptionsError: Invalid connect client option `region`: unknown region "mars" (known: eu)
 * ```
 */
export class InvalidClientOptionsError extends ConnectError {
  static {
    setClassName(this, 'InvalidClientOptionsError')
  }

  /** Dotted path of the offending option. */
  readonly option: string

  constructor(option: string, message: string) {
    super('ERR_INVALID_OPTIONS', `Invalid connect client option \`${option}\`: ${message}`)
    this.option = option
  }
}

/**
 * The passcode does not have the format of SPEC §5.5 (bad shape or checksum); no
 * request was sent. Only with `validatePasscodeFormat: true`.
 *
 * @example
 * ```ts
 * const result = await client.check('acme')
 * if (!result.ok && result.code === 'ERR_MALFORMED_PASSCODE') askForThePasscodeAgain()
 * ```
 */
export class MalformedPasscodeError extends ConnectError {
  static {
    setClassName(this, 'MalformedPasscodeError')
  }

  constructor() {
    super('ERR_MALFORMED_PASSCODE', 'The passcode is not well formed (expected <prefix>_<secret><checksum>); no request was sent')
  }
}
