import type { SecretLintRuleCreator } from '@secretlint/types'
import { DEFAULT_PASSCODE_PREFIX, isWellFormedPasscode, passcodePattern } from '../core/passcode-format'

/**
 * What `.secretlintrc.json` may set in the rule's `options`.
 *
 * @example
 * ```json
 * { "rules": [{ "id": "passcode-auth/secretlint", "options": { "prefix": ["acme", "psc"] } }] }
 * ```
 */
export interface PasscodeRuleOptions {
  /**
   * The prefix of the passcodes to find: the `prefix` option the host gave
   * `createPasscodeAuth`, or several, for a host that changed its prefix and still has
   * passcodes with the old one. Each is 2 to 16 characters of `[a-z0-9]` starting with a
   * letter; another value makes the rule throw when secretlint loads it.
   *
   * @default 'psc'
   */
  readonly prefix?: string | readonly string[]
}

// The message names the prefix only, never the value: secretlint prints the file, line
// and column of each report, which is what a reader needs to find and remove it.
const messages = {
  PASSCODE: {
    en: (props: { PREFIX: string }) => `found a passcode-auth passcode (${props.PREFIX}_…): revoke or rotate it, then remove it from this file`,
  },
}

/**
 * The secretlint rule of passcode-auth: it reports each passcode value in a text file,
 * found with the passcode pattern of the configured prefix and kept only when its
 * checksum holds, so look-alikes are not reported. Each report gives the value's range
 * (secretlint shows its line and column and masks it) and a message that names the
 * prefix, never the value. Its id is `passcode-auth/secretlint`, the name secretlint
 * loads it by.
 *
 * @example
 * `.secretlintrc.json`:
 * ```json
 * { "rules": [{ "id": "passcode-auth/secretlint", "options": { "prefix": "acme" } }] }
 * ```
 * or through `@secretlint/core`:
 * ```ts
 * import { lintSource } from '@secretlint/core'
 * import { creator } from 'passcode-auth/secretlint'
 *
 * const result = await lintSource({
 *   source: { filePath: '.env', content: 'API_PASSCODE=…', contentType: 'text' },
 *   options: { config: { rules: [{ id: 'passcode-auth/secretlint', rule: creator, options: {} }] } },
 * })
 * for (const message of result.messages) console.log(message.loc.start.line, message.message)
 * ```
 */
export const creator: SecretLintRuleCreator<PasscodeRuleOptions> = {
  messages,
  meta: {
    id: 'passcode-auth/secretlint',
    recommended: true,
    type: 'scanner',
    supportedContentTypes: ['text'],
  },
  create(context, options) {
    const prefixes = new Set(options.prefix === undefined ? [DEFAULT_PASSCODE_PREFIX] : [options.prefix].flat())
    if (prefixes.size === 0) throw new TypeError('passcode-auth/secretlint: "prefix" names no prefix')
    // passcodePattern throws a TypeError for a prefix that no passcode can have.
    const patterns = [...prefixes].map((prefix) => ({ prefix, pattern: passcodePattern(prefix) }))
    const t = context.createTranslator(messages)
    return {
      file(source) {
        for (const { prefix, pattern } of patterns) {
          for (const match of source.content.matchAll(pattern)) {
            if (!isWellFormedPasscode(match[0])) continue
            context.report({ message: t('PASSCODE', { PREFIX: prefix }), range: [match.index, match.index + match[0].length] })
          }
        }
      },
    }
  },
}
