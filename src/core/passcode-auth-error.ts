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
