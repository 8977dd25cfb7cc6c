import { readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { CHECKED_GUIDES, codeBlocks, TYPE_CHECK_ONLY, typeCheckEachBlock } from '../docs/markdown-blocks'
import { typeCheckFiles } from '../helpers/type-check'

/**
 * TypeScript that is compiled, never run: the type tests of this folder, and the
 * documentation's blocks that cannot run in a test (the README's marked TYPE_CHECK_ONLY,
 * the checked guides', docs/observability.md's). One file for all of them, so that they
 * share what costs most of a check, parsing and binding the standard library, @types/node
 * and the frameworks' types (type-check.ts): once, instead of once in each suite.
 */

const root = path.resolve(import.meta.dirname, '../..')
const read = (file: string) => readFileSync(path.join(root, file), 'utf8')

describe('type tests (compiled, never run)', () => {
  it('adapters.ts compiles: the principal is typed on req, request and ctx.state, and misuse does not compile', () => {
    expect(typeCheckFiles([path.join(import.meta.dirname, 'adapters.ts')], { typeRoots: [path.join(root, 'node_modules/@types')] })).toBe('')
  }, 150_000) // a type check of the file against the project's types: seconds, tens on a busy 2-core machine
})

describe('TypeScript blocks of the documentation compile against the package', () => {
  const tsBlocks = (file: string) => codeBlocks(read(file)).filter((block) => block.lang === 'ts')
  const readme = tsBlocks('README.md')
    .filter((block) => block.code.includes(TYPE_CHECK_ONLY))
    .map((block) => ({ name: `README.md:${block.line} (${block.heading})`, code: block.code }))
  const guides = CHECKED_GUIDES.flatMap((file) => tsBlocks(`docs/${file}`).map((block) => ({ name: `docs/${file}:${block.line}`, code: block.code })))
  const observability = tsBlocks('docs/observability.md').map((block) => ({ name: `docs/observability.md:${block.line}`, code: block.code }))
  const blocks = [...readme, ...guides, ...observability]

  it('has the README blocks that cannot run in a test, the guides\' and docs/observability.md\'s', () => {
    expect(readme.length).toBeGreaterThan(0)
    expect(guides.length).toBeGreaterThan(8)
    expect(observability.length).toBeGreaterThan(0)
  })

  // One program for all the blocks (the cases share it: a check changes nothing), each
  // block's own diagnostics in its own case.
  let checked: ReturnType<typeof typeCheckEachBlock> | undefined
  const typeChecked = () => (checked ??= typeCheckEachBlock('docs', blocks))

  it.each(blocks.map((block, index) => [block.name, index] as const))(
    '%s',
    async (_, index) => {
      const { program, each } = await typeChecked()
      expect(program + each[index]).toBe('')
    },
    150_000,
  )
})
