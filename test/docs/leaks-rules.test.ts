import { readFileSync } from 'node:fs'
import path from 'node:path'
import { lintSource } from '@secretlint/core'
import { describe, expect, it } from 'vitest'
import { PASSCODE_PATTERN, generatePasscode, isWellFormedPasscode } from '../../src/index'
import { creator } from '../../src/secretlint/index'
import { DELETED_LEAKED_PASSCODE_ADVICE, LEAKED_OVERLAP_REFUSAL, LEAKED_PASSCODE_ADVICE, LEAKED_USER_PASSCODE_ADVICE } from '../../src/core/labels'

/** The scanner rules of docs/leaks.md, parsed out of the guide, against generated values and look-alikes. */

const guide = readFileSync(path.resolve(import.meta.dirname, '../../docs/leaks.md'), 'utf8')
const block = (language: string) => {
  const match = new RegExp('```' + language + '\\n([\\s\\S]*?)```').exec(guide)
  if (match === null) throw new Error(`no ${language} block in docs/leaks.md`)
  return match[1]!
}
const regexes = {
  pattern: block('regex').trim(),
  gitleaks: /regex = '''(.*)'''/.exec(block('toml'))![1]!,
  trufflehog: /passcode: '(.*)'/.exec(block('yaml'))![1]!,
}

const values = Array.from({ length: 200 }, () => generatePasscode())
const flip = (value: string) => value.slice(0, -1) + (value.endsWith('A') ? 'B' : 'A')
const embed = (value: string) => `API_PASSCODE=${value}\n"passcode": "${value}", x-service-passcode: ${value};`

describe('docs/leaks.md scanner rules', () => {
  it('documents the pattern the package exports', () => {
    expect(regexes.pattern).toBe(PASSCODE_PATTERN.source)
  })

  for (const [name, source] of Object.entries(regexes)) {
    it(`${name}: finds every generated value in text, whole`, () => {
      const regex = new RegExp(source, 'g')
      for (const value of values) {
        const found = [...embed(value).matchAll(regex)].map((match) => match[1] ?? match[0])
        expect(found).toEqual([value, value, value])
      }
    })

    it(`${name}: finds no look-alike of another shape`, () => {
      const regex = new RegExp(source, 'g')
      const [value] = values
      const lookAlikes = [
        value!.slice(0, -1), // one character short
        `${value}x`, // one character long
        value!.replace('psc_', 'pscx'),
        value!.replace('psc_', 'PSC_'),
        `xpsc_${value!.slice(4)}`,
        value!.slice(0, 10) + '-' + value!.slice(11),
      ]
      for (const text of lookAlikes) expect([...text.matchAll(regex)], text).toEqual([])
    })
  }

  it('the checksum drops matches of the right shape whose last character changed', () => {
    for (const value of values) {
      expect(new RegExp(regexes.gitleaks).test(flip(value))).toBe(true)
      expect(isWellFormedPasscode(flip(value))).toBe(false)
      expect(isWellFormedPasscode(value)).toBe(true)
    }
  })
})

describe('docs/leaks.md secretlint configuration', () => {
  const config = JSON.parse(block('json')) as { rules: { id: string; options?: Record<string, unknown> }[] }
  /** The guide's `.secretlintrc.json`, its rule ids taken as secretlint would load them from the package. */
  const lint = async (filePath: string, content: string) => {
    const rules = config.rules.map(({ id, options }) => {
      expect(id).toBe('passcode-auth/secretlint')
      return { id, rule: creator, options: options ?? {} }
    })
    const { messages } = await lintSource({ source: { filePath, content, contentType: 'text' }, options: { config: { rules } } })
    return messages
  }

  it('finds every generated value in text, and no look-alike', async () => {
    for (const value of values.slice(0, 50)) {
      const messages = await lint('leak.txt', `${embed(value)}\n${embed(flip(value))}\n${embed(value.slice(0, -1))}`)
      expect(messages.map(({ range }) => embed(value).slice(range[0], range[1]))).toEqual([value, value, value])
    }
  })

  it('prints what the guide shows, without the value', async () => {
    const value = values[0]!
    const [message] = await lint('.env', `API_PASSCODE=${value}\n`)
    const shown = block('text').trim().split('\n')
    expect(shown[0]).toBe('.env')
    expect(shown[1]).toBe(
      `  ${message!.loc.start.line}:${message!.loc.start.column}  error  [${message!.messageId}] ${message!.message}  ${message!.ruleId}`,
    )
    expect(shown[1]).not.toContain(value.slice(4))
  })
})

describe('docs/leaks.md advice (SPEC 5.45)', () => {
  it('quotes the advice the email and the dashboard give, word for word', () => {
    const prose = guide.replace(/\n> ?/g, ' ').replace(/\s+/g, ' ')
    for (const advice of [LEAKED_PASSCODE_ADVICE, LEAKED_USER_PASSCODE_ADVICE, DELETED_LEAKED_PASSCODE_ADVICE, LEAKED_OVERLAP_REFUSAL]) {
      expect(prose).toContain(advice)
    }
  })
})
