import { setClassName } from './class-name'
import { PasscodeAuthError } from './passcode-auth-error'

// The errors of an operation the account's state or the actor's role refuses.

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
 * The account already holds the maximum number of something: passcodes (SPEC §5.9), or
 * webhook endpoints (SPEC §5.53, 20). A 409 in the HTTP APIs (SPEC §5.29).
 *
 * @example
 * ```ts
 * // the 101st create on one account
 * error.code === 'ERR_CAP_REACHED' && error.limit === 100
 * new CapReachedError(20, 'webhook endpoints').message
 * // 'The account already has the maximum of 20 webhook endpoints; delete one first'
 * ```
 */
export class CapReachedError extends PasscodeAuthError {
  static {
    setClassName(this, 'CapReachedError')
  }

  /** The cap that was reached. */
  readonly limit: number

  /**
   * @param limit - The cap that was reached.
   * @param what - What was capped, plural, as the message names it. @default 'passcodes'
   */
  constructor(limit: number, what = 'passcodes') {
    super('ERR_CAP_REACHED', `The account already has the maximum of ${limit} ${what}; delete one first`)
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
