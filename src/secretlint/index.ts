/**
 * The secretlint rule that finds passcode values in files (docs/leaks.md): name it
 * `passcode-auth/secretlint` in `.secretlintrc.json`. Loads the passcode format only.
 *
 * @module passcode-auth/secretlint
 */
export { creator } from './passcode-rule'
export type { PasscodeRuleOptions } from './passcode-rule'
