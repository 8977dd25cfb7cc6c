import { existsSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { globSync } from 'tinyglobby'
import { describe, expect, it } from 'vitest'

/**
 * docs/spec-decisions.md is where a reader of the code looks up a rule the source cites
 * as "SPEC §5.x": every rule cited in src/ has its row, and each row's "Where" and
 * "Tests" name files that exist and test names that some test file holds. Files are
 * only read: no server, no child process.
 */

const ROOT = path.resolve(import.meta.dirname, '../..')
const PAGE = 'docs/spec-decisions.md'
const page = readFileSync(path.join(ROOT, PAGE), 'utf8')

/** A table row's cells as GitHub renders them: split on every `|` not escaped as `\|`, code spans included. */
function cellsOf(line: string): string[] {
  const cells = line
    .trim()
    .split(/(?<!\\)\|/)
    .map((cell) => cell.trim().replaceAll('\\|', '|'))
  return cells.slice(1, -1)
}

interface Row {
  readonly line: number
  readonly rule: string
  /** The rule's number as `[chapter, item]` (`§5.14` → `[5, 14]`, `§2 cap` → `[2, 0]`). */
  readonly number: readonly [number, number]
  readonly cells: readonly string[]
}

/** The rows of the first table, "Rule | Behaviour | Where | Tests". */
function ruleRows(): Row[] {
  const lines = page.split('\n')
  const header = lines.findIndex((line) => /^\|\s*Rule\s*\|\s*Behaviour\s*\|\s*Where\s*\|\s*Tests\s*\|$/.test(line))
  if (header === -1) throw new Error(`${PAGE} has no "Rule | Behaviour | Where | Tests" table`)
  const rows: Row[] = []
  for (let index = header + 2; index < lines.length && lines[index]!.startsWith('|'); index++) {
    const cells = cellsOf(lines[index]!)
    const match = /^§(\d+)(?:\.(\d+))?/.exec(cells[0] ?? '')
    if (match === null) throw new Error(`${PAGE}:${index + 1}: a row whose rule is not "§x" or "§x.y": ${cells[0]}`)
    rows.push({ line: index + 1, rule: cells[0]!, number: [Number(match[1]), Number(match[2] ?? 0)], cells })
  }
  return rows
}

const rows = ruleRows()
const where = (row: Row) => `${PAGE}:${row.line} (${row.rule})`

/** The numbers of a citation's list: "§5.4–5.6" is 5.4, 5.5 and 5.6; a whole chapter ("§2") is left out. */
function numbersOf(list: string): string[] {
  const numbers: string[] = []
  for (const [, chapter, from, to] of list.matchAll(/§?(\d+)\.(\d+)(?:\s*[–-]\s*§?\1\.(\d+))?/g)) {
    for (let item = Number(from); item <= Number(to ?? from); item++) numbers.push(`${chapter}.${item}`)
  }
  return numbers
}

/**
 * "SPEC §5.14", "SPEC 5.14", "SPEC §5.4–5.6, §5.11", "SPEC §6 and §5.35", also when a
 * comment breaks the line between "SPEC" and the number.
 */
const GAP = String.raw`(?:\s|\*|//)*`
const REFERENCE = String.raw`§?\d+(?:\.\d+)?(?:\s*[–-]\s*§?\d+\.\d+)?`
const NEXT = String.raw`(?:,|and)${GAP}(?:§\d+(?:\.\d+)?|\d+\.\d+)(?:\s*[–-]\s*§?\d+\.\d+)?`
const CITATION = new RegExp(String.raw`\bSPEC${GAP}(${REFERENCE}(?:${GAP}${NEXT})*)`, 'g')

/** Every x.y rule cited in src/, with the first place it is cited. */
function citedRules(): Map<string, string> {
  const cited = new Map<string, string>()
  for (const file of globSync('src/**/*', { cwd: ROOT }).sort()) {
    const text = readFileSync(path.join(ROOT, file), 'utf8')
    for (const match of text.matchAll(CITATION)) {
      const line = text.slice(0, match.index).split('\n').length
      for (const number of numbersOf(match[1]!)) if (!cited.has(number)) cited.set(number, `${file}:${line}`)
    }
  }
  return cited
}

/** The code spans of a cell that name a file or a folder: `service/deadline.ts`, `http/leaks/`, `test/…`. */
function pathsIn(cell: string): string[] {
  return [...cell.matchAll(/`([^`\s]+)`/g)].map((match) => match[1]!).filter((span) => /^[\w.-]+\/[\w./-]*$/.test(span))
}

/** A path of the page on disk: `test/`, `bench/`, `docs/`, `scripts/`, `api-reports/`, `examples/` and `.ci/` from the repository, the rest from src/. */
const onDisk = (file: string) => path.join(ROOT, /^(test|bench|docs|scripts|api-reports|examples|\.ci)\//.test(file) ? '' : 'src', file)

const testFiles = globSync('test/**/*.ts', { cwd: ROOT })
const sourceFiles = globSync('src/**/*.ts', { cwd: ROOT })
const testTexts = testFiles.map((file) => readFileSync(path.join(ROOT, file), 'utf8'))

describe(`${PAGE}, the rules a reader of the code looks up`, () => {
  it('gives every row its four cells (a `|` inside a cell is written `\\|`, or GitHub splits the row)', () => {
    expect(rows.length).toBeGreaterThan(40)
    expect(rows.filter((row) => row.cells.length !== 4).map(where)).toEqual([])
  })

  it('has one row per rule, in the order of their numbers', () => {
    const fives = rows.filter((row) => row.number[0] === 5).map((row) => row.rule)
    expect(fives.filter((rule, index) => fives.indexOf(rule) !== index)).toEqual([])
    const outOfOrder = rows.filter((row, index) => {
      const before = rows[index - 1]
      return before !== undefined && (before.number[0] > row.number[0] || (before.number[0] === row.number[0] && before.number[1] > row.number[1]))
    })
    expect(outOfOrder.map((row) => `${where(row)} comes after ${rows[rows.indexOf(row) - 1]!.rule}`)).toEqual([])
  })

  it('says that the numbers the source cites are its rule numbers', () => {
    const intro = page.slice(0, page.indexOf('| Rule |')).replace(/\s+/g, ' ')
    expect(intro).toMatch(/"SPEC §5\.\d+"/)
    expect(intro).toMatch(/this page's rule numbers/)
  })

  it('finds the citations of the source in every form it writes them', () => {
    expect(numbersOf('§5.4–5.6')).toEqual(['5.4', '5.5', '5.6'])
    const cited = (text: string) => [...text.matchAll(CITATION)].flatMap((match) => numbersOf(match[1]!))
    expect(cited('(SPEC §5.1, §5.4–5.6, §5.11)')).toEqual(['5.1', '5.4', '5.5', '5.6', '5.11'])
    expect(cited('the host service has its own; SPEC §6 and\n * §5.35): one-time links')).toEqual(['5.35'])
    expect(cited('(it is never re-hashed, SPEC\n   * §5.47)')).toEqual(['5.47'])
    expect(cited('// records a use (SPEC 5.27, issue 37)')).toEqual(['5.27'])
    expect(cited('/* Truth (SPEC §5.43): why */ the exact SPEC body, 400 bytes')).toEqual(['5.43'])
  })

  it('has a row for every rule cited in src/ as "SPEC §x.y"', () => {
    const covered = new Set(rows.map((row) => /^§(\d+\.\d+)/.exec(row.rule)?.[1]))
    const cited = citedRules()
    expect(cited.size).toBeGreaterThan(30)
    expect([...cited].filter(([number]) => !covered.has(number)).map(([number, at]) => `§${number}, cited in ${at}`)).toEqual([])
  })

  it('names only files and folders that exist, in "Where" and "Tests"', () => {
    const missing = rows.flatMap((row) =>
      [row.cells[2] ?? '', row.cells[3] ?? ''].flatMap(pathsIn).flatMap((file) => (existsSync(onDisk(file)) ? [] : [`${where(row)}: ${file}`])),
    )
    expect(missing).toEqual([])
  })

  it('names by their file name alone only files that exist (sources in "Where", tests in "Tests")', () => {
    const named = (cell: string) => [...cell.matchAll(/`([\w.-]+\.ts)`/g)].map((match) => match[1]!)
    const exists = (files: readonly string[], name: string) => files.some((file) => path.basename(file) === name)
    const missing = rows.flatMap((row) => [
      ...named(row.cells[2] ?? '')
        .filter((name) => !exists(sourceFiles, name))
        .map((name) => `${where(row)}: ${name}`),
      ...named(row.cells[3] ?? '')
        .filter((name) => !exists(testFiles, name))
        .map((name) => `${where(row)}: ${name}`),
    ])
    expect(missing).toEqual([])
  })

  it('quotes in "Tests" only test names that a test file holds ("SPEC 5.9" is not "SPEC 5.90")', () => {
    const missing = rows.flatMap((row) =>
      [...(row.cells[3] ?? '').matchAll(/"([^"]+)"/g)]
        .map((match) => match[1]!.replace(/…$/, ''))
        .filter((name) => {
          const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
          const pattern = new RegExp(/\d$/.test(name) ? `${escaped}(?!\\d|\\.\\d)` : escaped)
          return !testTexts.some((text) => pattern.test(text))
        })
        .map((name) => `${where(row)}: "${name}"`),
    )
    expect(missing).toEqual([])
  })
})
