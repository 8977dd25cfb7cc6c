import { lintSource } from '@secretlint/core'
import type { SecretLintCoreResultMessage } from '@secretlint/types'
import { describe, expect, it } from 'vitest'
import { PASSCODE_PATTERN, generatePasscode } from '../../src/index'
import { creator, type PasscodeRuleOptions } from '../../src/secretlint/index'

/** The secretlint rule of passcode-auth/secretlint, run by secretlint's own engine on generated values and look-alikes. */

async function lint(content: string, options: PasscodeRuleOptions = {}, filePath = 'file.txt'): Promise<SecretLintCoreResultMessage[]> {
  const result = await lintSource({
    source: { filePath, content, contentType: 'text' },
    options: { config: { rules: [{ id: 'passcode-auth/secretlint', rule: creator, options }] } },
  })
  return result.messages
}

/** What each report points at: the text of its range, and its 1-based line and 0-based column. */
const found = (content: string, messages: readonly SecretLintCoreResultMessage[]) =>
  messages.map(({ range, loc }) => ({ text: content.slice(range[0], range[1]), line: loc.start.line, column: loc.start.column }))

const flip = (value: string) => value.slice(0, -1) + (value.endsWith('A') ? 'B' : 'A')

describe('passcode-auth/secretlint', () => {
  it('is a text scanner with the id it is loaded by', () => {
    expect(creator.meta).toEqual({ id: 'passcode-auth/secretlint', recommended: true, type: 'scanner', supportedContentTypes: ['text'] })
  })

  it('finds a value at the start, in the middle and at the end of a file', async () => {
    for (let i = 0; i < 50; i++) {
      const [a, b, c] = [generatePasscode(), generatePasscode(), generatePasscode()]
      const content = `${a}\nsome text ${b} more text\nlast line: ${c}`
      expect(found(content, await lint(content))).toEqual([
        { text: a, line: 1, column: 0 },
        { text: b, line: 2, column: 10 },
        { text: c, line: 3, column: 11 },
      ])
    }
  })

  it('finds values in JSON, YAML, a .env file and a shell line', async () => {
    const value = generatePasscode()
    const files = {
      'config.json': `{\n  "service": {\n    "passcode": "${value}"\n  }\n}\n`,
      'config.yaml': `service:\n  passcode: ${value}\n  other: '${value}'\n`,
      '.env': `ACCOUNT_ID=acc_1\nAPI_PASSCODE=${value}\n`,
      'call.sh': `curl -H 'X-Service-Account-Id: acc_1' -H "X-Service-Passcode: ${value}" https://api.example.com/v1/connect?partner=p\n`,
    }
    const counts: Record<string, number> = { 'config.json': 1, 'config.yaml': 2, '.env': 1, 'call.sh': 1 }
    for (const [file, content] of Object.entries(files)) {
      const messages = await lint(content, {}, file)
      expect(
        found(content, messages).map(({ text }) => text),
        file,
      ).toEqual(Array.from({ length: counts[file]! }, () => value))
    }
  })

  it('reports nothing for look-alikes: a wrong checksum, another prefix, a wrong length or case, inside a word', async () => {
    for (let i = 0; i < 50; i++) {
      const value = generatePasscode()
      const lookAlikes = [
        flip(value), // the shape holds, the checksum fails
        generatePasscode({ prefix: 'acme' }), // a passcode, but not of this prefix
        value.slice(0, -1), // one character short
        `${value}x`, // one character long
        value.replace('psc_', 'PSC_'),
        value.replace('psc_', 'pscx'),
        `xpsc_${value.slice(4)}`,
        `${value.slice(0, 10)}-${value.slice(11)}`,
      ]
      // The first two have the pattern's shape: only the checksum and the prefix tell them apart.
      expect(new RegExp(PASSCODE_PATTERN.source).test(lookAlikes[0]!)).toBe(true)
      const content = lookAlikes.map((text) => `token: ${text}`).join('\n')
      expect(found(content, await lint(content))).toEqual([])
    }
  })

  it('finds the passcodes of a custom prefix, or of several, and only those', async () => {
    const acme = generatePasscode({ prefix: 'acme' })
    const psc = generatePasscode()
    const content = `a=${acme}\nb=${psc}\nc=${flip(acme)}\n`
    expect(found(content, await lint(content, { prefix: 'acme' })).map(({ text }) => text)).toEqual([acme])
    expect(found(content, await lint(content, { prefix: ['acme', 'psc'] })).map(({ text }) => text)).toEqual([acme, psc])
    expect(found(content, await lint(content, { prefix: ['psc', 'psc'] })).map(({ text }) => text)).toEqual([psc])
  })

  it('refuses a prefix no passcode can have', async () => {
    for (const prefix of ['PSC', 'p', '1abc', 'psc_', 'abcdefghijklmnopq']) {
      await expect(lint('text', { prefix }), prefix).rejects.toThrow(/A passcode prefix is 2 to 16 characters/)
    }
    await expect(lint('text', { prefix: [] })).rejects.toThrow(/"prefix" names no prefix/)
  })

  it('never puts the value, or 6 characters of its secret, in what it reports', async () => {
    const values = [generatePasscode(), generatePasscode({ prefix: 'acme' })]
    const content = `one: ${values[0]}\ntwo: ${values[1]}\n`
    const messages = await lint(content, { prefix: ['psc', 'acme'] })
    expect(messages).toHaveLength(2)
    expect(messages.map(({ message }) => message)).toEqual([
      'found a passcode-auth passcode (psc_…): revoke or rotate it, then remove it from this file',
      'found a passcode-auth passcode (acme_…): revoke or rotate it, then remove it from this file',
    ])
    // The range is how secretlint points at the value (and masks it); the rest must not hold it.
    const reported = JSON.stringify(messages.map(({ range: _range, loc: _loc, ...rest }) => rest))
    for (const value of values) {
      const secret = value.slice(value.indexOf('_') + 1)
      for (let start = 0; start + 6 <= secret.length; start++) expect(reported).not.toContain(secret.slice(start, start + 6))
    }
  })
})
