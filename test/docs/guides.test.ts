import { existsSync, readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { COMMANDS } from '../../src/cli/commands/index'
import { SETTINGS } from '../../src/cli/config'
import { EXIT_CODES } from '../../src/cli/exit-codes'
import { parseCommandLine } from '../../src/cli/run-cli'
import { codeBlocks } from './markdown-blocks'

/**
 * The guides in docs/: their links resolve, the README links each of them, and the CLI
 * guide matches the command (every command line of the guides parses, every command and
 * setting is described). That their TypeScript compiles and runs against the package as
 * published, is tested by test/package/doc-blocks.test.ts.
 */

const root = path.resolve(import.meta.dirname, '../..')
const read = (file: string) => readFileSync(path.join(root, file), 'utf8')
const guides = readdirSync(path.join(root, 'docs')).filter((file) => file.endsWith('.md'))

/** Splits a shell command line into words (quotes, no expansions). */
function shellWords(line: string): string[] {
  return [...line.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)].map((match) => match[1] ?? match[2] ?? match[3]!)
}

/** The `passcode-auth` arguments of a shell line, or undefined when it runs no such command. */
function commandArgs(line: string): string[] | undefined {
  const match = /(?:^|\s|\$\()(?:passcode-auth|npm run(?: -s)? cli --) (.*)$/.exec(line.replace(/^(\w+=\S+\s+)+/, ''))
  if (match === null) return undefined
  return shellWords(match[1]!.split(/\s(?:\||>|\|\|)\s|\)\s*$/)[0]!)
}

describe('docs/', () => {
  it('has only links that resolve', () => {
    for (const file of ['README.md', ...guides.map((guide) => `docs/${guide}`)]) {
      const links = [...read(file).matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)].map((match) => match[1]!).filter((link) => !/^[a-z]+:/.test(link))
      for (const link of links) expect(existsSync(path.join(root, path.dirname(file), link)), `${file} → ${link}`).toBe(true)
    }
  })

  it('has an index, docs/README.md, that links every other guide and both OpenAPI documents', () => {
    const index = read('docs/README.md')
    for (const file of [...guides.filter((guide) => guide !== 'README.md'), 'openapi.json', 'management-openapi.json'])
      expect(index, file).toContain(`](${file})`)
  })

  it('is linked from the README, every guide and the OpenAPI document', () => {
    const readme = read('README.md')
    for (const file of [...guides, 'openapi.json']) expect(readme, file).toContain(`(docs/${file})`)
  })
})

describe('docs/cli.md', () => {
  const guide = read('docs/cli.md')
  const lines = guides.flatMap((file) =>
    codeBlocks(read(`docs/${file}`))
      .filter((block) => block.lang === 'sh')
      .flatMap((block) => block.code.split('\n')),
  )

  it('shows command lines that the command accepts, in the guides and in --help examples', () => {
    const documented = [...lines, ...COMMANDS.flatMap((command) => command.examples ?? [])].map(commandArgs).filter((args) => args !== undefined)
    expect(documented.length).toBeGreaterThan(15)
    for (const args of documented) expect(() => parseCommandLine(args), args.join(' ')).not.toThrow()
  })

  it('shows every command and describes every setting and exit code', () => {
    const shown = lines.map(commandArgs).filter((args) => args !== undefined)
    for (const command of COMMANDS) {
      expect(
        shown.some((args) => command.path.every((word, i) => args[i] === word)),
        command.path.join(' '),
      ).toBe(true)
    }
    for (const setting of Object.values(SETTINGS)) {
      expect(guide, setting.env).toContain(`| \`${setting.env}\` |`)
      if ('flag' in setting) expect(guide, setting.flag).toContain(`\`--${setting.flag}\``)
    }
    for (const code of Object.values(EXIT_CODES)) expect(guide).toMatch(new RegExp(`^\\| ${code} \\|`, 'm'))
  })
})
