import { InvalidOptionsError } from '../core/errors'
import type { PasscodeAuth } from '../service/create-passcode-auth'

/**
 * Checks, when an adapter is created, that `auth` is what `createPasscodeAuth`
 * returned, so a wrong argument fails at start-up rather than on the first request.
 *
 * @param factory - the adapter's name, for the message, e.g. `requirePasscode`
 * @example
 * ```ts
 * assertPasscodeAuth(auth, 'connectHandler')
 * ```
 */
export function assertPasscodeAuth(auth: unknown, factory: string): asserts auth is PasscodeAuth {
  const candidate = auth as Partial<PasscodeAuth> | null | undefined
  if (
    typeof candidate !== 'object' ||
    candidate === null ||
    typeof candidate.authenticate !== 'function' ||
    typeof candidate.verifyRequest !== 'function' ||
    typeof candidate.connect !== 'function'
  ) {
    throw new InvalidOptionsError('auth', `${factory} needs the object that createPasscodeAuth() returns`)
  }
}

/**
 * Checks an adapter's options object: absent or a plain object with only the known
 * keys, each accepted by its check. Unknown keys are refused so a typo does not
 * silently fall back to a default.
 *
 * @param checks - option name → returns an error message, or `undefined` when the value is fine
 * @example
 * ```ts
 * checkAdapterOptions(options, 'requirePasscode', {
 *   onRefusal: (value) => (value === undefined || value === 'respond' || value === 'next' ? undefined : "must be 'respond' or 'next'"),
 * })
 * ```
 */
export function checkAdapterOptions(
  options: unknown,
  factory: string,
  checks: Readonly<Record<string, (value: unknown) => string | undefined>>,
): void {
  if (options === undefined) return
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new InvalidOptionsError('options', `${factory} options must be an object`)
  }
  for (const [key, value] of Object.entries(options)) {
    const check = checks[key]
    if (check === undefined) {
      throw new InvalidOptionsError(key, `unknown option of ${factory}; known: ${Object.keys(checks).join(', ')}`)
    }
    const problem = check(value)
    if (problem !== undefined) throw new InvalidOptionsError(key, problem)
  }
}
