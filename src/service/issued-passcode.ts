import { setClassName } from '../core/class-name'

/**
 * A passcode value handed out once, with the view of what was stored. The value is
 * reachable only through `.value` (or destructuring); it is left out of
 * `JSON.stringify`, `util.inspect`, `console.log`, spreading and `Object.keys`, so
 * that logging the result by mistake leaks nothing (SPEC §5.19).
 *
 * @example
 * ```ts
 * const { passcode, value } = await auth.passcodes.create(admin, 'acc_1', { name: 'Acme', expiry: 90 })
 * showOnce(value) // store it now: it cannot be retrieved again
 * console.log(JSON.stringify(await auth.passcodes.create(admin, 'acc_1', { name: 'B', expiry: 1 })))
 * // {"passcode":{…}} — no value
 * ```
 */
export class IssuedPasscode<View> {
  static {
    setClassName(this, 'IssuedPasscode')
  }

  readonly #value: string
  /** What was stored: name, hint, expiry, status. */
  readonly passcode: View

  constructor(passcode: View, value: string) {
    this.passcode = passcode
    this.#value = value
  }

  /** The passcode value. Shown once: the service keeps only its hash. */
  get value(): string {
    return this.#value
  }

  /** The view alone: `JSON.stringify` never shows the value. */
  toJSON(): {
    /** What was stored. */
    passcode: View
  } {
    return { passcode: this.passcode }
  }

  /** `[IssuedPasscode]`: string conversion never shows the value. */
  toString(): string {
    return '[IssuedPasscode]'
  }

  [Symbol.for('nodejs.util.inspect.custom')](): { passcode: View; value: string } {
    return { passcode: this.passcode, value: '[redacted]' }
  }
}
