import { InvalidOptionsError } from '../core/errors'
import { ownOptions, printableName } from '../core/own-data'
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
 * Checks, when a dashboard mount is created, that its options carry a `session`
 * function (JavaScript hosts can pass anything).
 *
 * @param signature - the function's shape for the message, e.g. `(req) => { accountId, actor } | undefined`
 * @example
 * ```ts
 * assertSessionOption(options, '(req) => { accountId, actor } | undefined')
 * ```
 */
export function assertSessionOption(options: unknown, signature: string): void {
  if (typeof (options as { session?: unknown } | null | undefined)?.session !== 'function') {
    throw new InvalidOptionsError('session', `must be a function ${signature}`)
  }
}

/**
 * Checks an adapter's options object: absent or a plain object with only the known
 * keys, each accepted by its check. Unknown keys are refused so a typo does not
 * silently fall back to a default; a `__proto__`, `constructor` or `prototype` key is
 * one. Returns the options to use: their own properties in an object without a
 * prototype, so that a polluted `Object.prototype` sets no option (`ownOptions`).
 *
 * @param checks - option name → returns an error message, or `undefined` when the value is fine
 * @example
 * ```ts
 * options = checkAdapterOptions(options, 'requirePasscode', {
 *   onRefusal: (value) => (value === undefined || value === 'respond' || value === 'next' ? undefined : "must be 'respond' or 'next'"),
 * })
 * ```
 */
export function checkAdapterOptions<T>(options: T, factory: string, checks: Readonly<Record<string, (value: unknown) => string | undefined>>): T {
  if (options === undefined) return options
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new InvalidOptionsError('options', `${factory} options must be an object`)
  }
  const own = ownOptions(options)
  for (const [key, value] of Object.entries(own)) {
    const check = Object.hasOwn(checks, key) ? checks[key] : undefined
    if (check === undefined) {
      const known = Object.keys(checks)
      throw new InvalidOptionsError(printableName(key), `unknown option of ${factory}; known: ${known.length === 0 ? 'none yet' : known.join(', ')}`)
    }
    const problem = check(value)
    if (problem !== undefined) throw new InvalidOptionsError(key, problem)
  }
  return own
}

/**
 * The check of `onRefusal`, the option of the guards that can pass a refusal on to the
 * host's own error handling (`requirePasscode` in Express, Koa and Hono, and the
 * Fastify plugin) instead of answering it.
 *
 * @example
 * ```ts
 * options = checkAdapterOptions(options, 'requirePasscode', { onRefusal: checkOnRefusal })
 * ```
 */
export function checkOnRefusal(value: unknown): string | undefined {
  return value === undefined || value === 'respond' || value === 'next' ? undefined : "must be 'respond' or 'next'"
}

/**
 * Checks a dashboard mount's `basePath` when the mount is created and returns it
 * without trailing slashes: `''` (the root) or a path such as `/settings`.
 *
 * @example
 * ```ts
 * const base = dashboardBasePath(options.basePath) // '/settings/' → '/settings'
 * ```
 */
export function dashboardBasePath(value: unknown): string {
  const base = typeof value === 'string' ? value.replace(/\/+$/, '') : undefined
  if (base === undefined || (base !== '' && !base.startsWith('/'))) throw new InvalidOptionsError('basePath', 'must be a path such as "/settings"')
  return base
}

/**
 * The check of `scopes`, the option of every guard (SPEC §5.48): a non-empty list of
 * names. Whether each is declared by the service's `scopes` option is checked next, by
 * `auth.requiredScopes`, which names the first that is not.
 *
 * @example
 * ```ts
 * checkAdapterOptions(options, 'requirePasscode', { scopes: checkScopes })
 * ```
 */
export function checkScopes(value: unknown): string | undefined {
  if (value === undefined) return undefined
  return Array.isArray(value) && value.length > 0 && value.every((scope) => typeof scope === 'string')
    ? undefined
    : "must be a non-empty list of the scopes the route needs, like ['events:write']"
}
