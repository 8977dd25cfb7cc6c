import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import * as root from '../../src/index'

/**
 * The root entry, `passcode-auth`, exports what hosts call and type (issue 31): at most
 * 33 values (classes, functions, constants; types are erased at run time, are not
 * counted and stay exported), each documented in README.md's table "What
 * `passcode-auth` exports", and no internals: no `escapeHtml`, no `DAY_MS`, no zod
 * schema (`*Schema`, `*Schemas`).
 */
const MAX_ROOT_VALUES = 33
const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8')
const values = Object.keys(root).sort()

/** The README's section that lists the root entry's values. */
function exportsSection(): string {
  const start = readme.indexOf('## What `passcode-auth` exports')
  const end = readme.indexOf('\n## ', start + 1)
  return start === -1 ? '' : readme.slice(start, end === -1 ? undefined : end)
}

describe('the root entry (src/index.ts)', () => {
  it(`exports at most ${MAX_ROOT_VALUES} values`, () => {
    expect(values.length).toBeGreaterThan(0)
    expect(values.length, values.join(', ')).toBeLessThanOrEqual(MAX_ROOT_VALUES)
  })

  it('exports no internal helper and no zod schema', () => {
    expect(values.filter((name) => name === 'escapeHtml' || name === 'DAY_MS' || /Schemas?$/.test(name))).toEqual([])
  })

  it('names every value it exports in README.md ("What `passcode-auth` exports")', () => {
    const section = exportsSection()
    expect(section).not.toBe('')
    expect(values.filter((name) => !section.includes(`\`${name}\``))).toEqual([])
  })
})
