import { readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { QUICK_STARTS } from '../docs/markdown-blocks'

/**
 * The framework quick starts of README.md, kept as files so that they type-check
 * (`tsc -p .`): package names resolve to src/ through the tsconfig `paths`. They are
 * the README's blocks byte for byte (blocks.test.ts), which test/package/doc-blocks.test.ts
 * runs from the packed package, checking what each prints.
 */
describe.each(QUICK_STARTS.map(({ framework }) => framework))('the %s quick start', (framework) => {
  const file = path.join(import.meta.dirname, `${framework}-quickstart.ts`)

  it('imports the package by its public names only, and stays short', () => {
    const source = readFileSync(file, 'utf8')
    const imports = [...source.matchAll(/from '([^']+)'/g)].map((match) => match[1])
    expect(imports.filter((name) => name?.startsWith('.'))).toEqual([])
    expect(imports).toContain(`passcode-auth/${framework}`)
    expect(source.split('\n').length).toBeLessThanOrEqual(40)
  })
})
