import { readdirSync, readFileSync, statSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { ts } from '../helpers/typescript'

/**
 * docs/troubleshooting.md quotes messages; each must still be what its source says. An
 * entry is a `###` heading holding the message as a code span, with the line "From: …"
 * under it. The messages of the command, the library and the client are checked against
 * src/: each run of text between the parts that vary (`<…>`, `…`, an upper-case setting
 * name the code may interpolate) appears in the code. TypeScript's are checked against
 * the compiler's own messages. The HTTP answers are the protocol's bodies: their `error`
 * text is in src/protocol/ and `code` is the status. The messages of tsx and Node (the
 * project setup's) are theirs, shown as they print them and not checked here.
 */

const root = path.resolve(import.meta.dirname, '../..')
const guide = readFileSync(path.join(root, 'docs/troubleshooting.md'), 'utf8')

interface Entry {
  readonly section: string
  readonly message: string
  readonly from: string
}

function entries(): Entry[] {
  const found: Entry[] = []
  let section = ''
  const lines = guide.split('\n')
  for (const [index, line] of lines.entries()) {
    if (line.startsWith('## ')) section = line.slice(3)
    const heading = /^### (`+) ?(.*?) ?\1$/.exec(line)
    if (heading === null) continue
    const from = lines.slice(index + 1).find((next) => next.trim() !== '') ?? ''
    found.push({ section, message: heading[2]!, from })
  }
  return found
}

/** The text of every source file under `folder`. */
function sources(folder: string): string {
  return readdirSync(folder)
    .map((name) => path.join(folder, name))
    .map((file) => (statSync(file).isDirectory() ? sources(file) : file.endsWith('.ts') ? readFileSync(file, 'utf8') : ''))
    .join('\n')
}

const code = sources(path.join(root, 'src'))

/**
 * The runs of fixed text of a quoted message, 12 characters or more: what lies between
 * the parts the code fills in (`<…>` and `…` in the guide; a `code span`, a number, an
 * error code in parentheses or a SETTING_NAME in the message), without the quotes and
 * brackets around them.
 */
const fixedRuns = (message: string) =>
  message
    .split(/<[^>]+>|…|`[^`]*`|\([A-Z]+\)|\b\d+\b|\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b/)
    .map((run) => run.replace(/^[\s"'(),.;:]+|[\s"'(),.;:]+$/g, ''))
    .filter((run) => run.length >= 12)

const escape = (text: string) => text.replace(/[.*+?^$()|[\]\\{}]/g, '\\$&')

/**
 * Whether a quoted TypeScript message is that code's message: its quoted arguments and
 * `<…>` parts stand for the compiler's `{0}` arguments, and a closing ` …` for the rest.
 */
function isTypescriptMessage(code: number, quoted: string): boolean {
  // The compiler's table of messages: there at run time, left out of its public types.
  const table = (ts as unknown as { Diagnostics: Record<string, { code: number; message: string }> }).Diagnostics
  const message = Object.values(table).find((diagnostic) => diagnostic.code === code)?.message
  if (message === undefined) return false
  const cut = quoted.endsWith(' …')
  const pattern = escape(cut ? quoted.slice(0, -2) : quoted)
    .replace(/'[^']*'/g, "'.+'")
    .replace(/<[^>]+>/g, '.+')
  return new RegExp(`^${pattern}${cut ? '' : '$'}`).test(message.replace(/\{\d+\}/g, 'X'))
}

describe('docs/troubleshooting.md', () => {
  const all = entries()

  it('has entries for the project setup, the command, the library, HTTP answers and the client, each saying where it comes from', () => {
    expect(new Set(all.map((entry) => entry.section))).toEqual(
      new Set(['Setting up a project', 'The `passcode-auth` command and the reference server', 'The library', 'Answers over HTTP', 'The client']),
    )
    expect(all.length).toBeGreaterThan(25)
    for (const entry of all) expect(entry.from, entry.message).toMatch(/^From: /)
  })

  it.each(all.filter((entry) => !['Setting up a project', 'Answers over HTTP'].includes(entry.section)).map((entry) => [entry.message]))(
    'quotes the code: %s',
    (message) => {
      const runs = fixedRuns(message)
      expect(runs.length, message).toBeGreaterThan(0)
      for (const run of runs) expect(code.includes(run), `"${run}" is not in src/`).toBe(true)
    },
  )

  it.each(all.filter((entry) => entry.section === 'Setting up a project').map((entry) => [entry.message, entry.from]))(
    'quotes TypeScript, or says the message is tsx’s or Node’s: %s',
    (message, from) => {
      const diagnostic = /^error TS(\d+): (.*)$/.exec(message)
      if (diagnostic === null) {
        expect(from).toMatch(/^From: (tsx|Node)\b/)
        return
      }
      expect(from).toMatch(/^From: TypeScript\b/)
      expect(isTypescriptMessage(Number(diagnostic[1]), diagnostic[2]!)).toBe(true)
    },
  )

  it.each(all.filter((entry) => entry.section === 'Answers over HTTP').map((entry) => [entry.message]))('quotes the protocol: %s', (message) => {
    const [, status, body] = /^(\d{3}) (\{.*\})$/.exec(message) ?? []
    const parsed = JSON.parse(body!) as { status: string; error: string; code: number }
    expect(parsed.status).toBe('fail')
    expect(parsed.code).toBe(Number(status))
    const protocol = sources(path.join(root, 'src/protocol'))
    for (const run of parsed.error
      .split(/<[^>]+>/)
      .map((text) => text.trim())
      .filter(Boolean))
      expect(protocol).toContain(`'${run}`)
  })
})
