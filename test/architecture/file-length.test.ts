import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

/**
 * No source file over 400 lines (issue 42): a file that long holds more than one
 * concept and wants splitting by concept. The migrations are one list that only grows,
 * read in order, and stay whole.
 */
const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const SRC = join(ROOT, 'src')
const MAX_LINES = 400
const EXEMPT = new Set(['src/stores/postgres/migrations.ts'])

function sourceFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name)
    if (entry.isDirectory()) return sourceFiles(path)
    return /\.(ts|tsx|mts|js|mjs)$/.test(entry.name) ? [path] : []
  })
}

/** Lines as `wc -l` counts them. */
const lineCount = (path: string): number => readFileSync(path, 'utf8').split('\n').length - 1

const lengths = sourceFiles(SRC).map((path) => ({ file: relative(ROOT, path).split('\\').join('/'), lines: lineCount(path) }))

describe(`source files of at most ${MAX_LINES} lines`, () => {
  it('every file in src/ but the migrations', () => {
    const over = lengths.filter(({ file, lines }) => lines > MAX_LINES && !EXEMPT.has(file))
    expect(over).toEqual([])
  })

  it('finds the files it checks', () => {
    expect(lengths.length).toBeGreaterThan(100)
    expect(lengths.map(({ file }) => file)).toContain('src/stores/postgres/migrations.ts')
  })
})
