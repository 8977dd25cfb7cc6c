import { readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { CHECKED_GUIDES, codeBlocks, TYPE_CHECK_ONLY } from '../docs/markdown-blocks'
import { blockModules, typeCheckEachFile } from '../helpers/type-check'

/**
 * TypeScript that is compiled, never run: the type tests of this folder, and the
 * documentation's blocks that cannot run in a test (the README's marked TYPE_CHECK_ONLY,
 * the checked guides', docs/observability.md's). One program for all of them, so that
 * they share what costs most of a check (type-check.ts): parsing and binding the standard
 * library, @types/node and the frameworks' types, and the types of src/ they use. The
 * cases share it (a check changes nothing); each reports its own file's diagnostics.
 */

const root = path.resolve(import.meta.dirname, '../..')
const read = (file: string) => readFileSync(path.join(root, file), 'utf8')

const tsBlocks = (file: string) => codeBlocks(read(file)).filter((block) => block.lang === 'ts')
const readme = tsBlocks('README.md')
  .filter((block) => block.code.includes(TYPE_CHECK_ONLY))
  .map((block) => ({ name: `README.md:${block.line} (${block.heading})`, code: block.code }))
const guides = CHECKED_GUIDES.flatMap((file) => tsBlocks(`docs/${file}`).map((block) => ({ name: `docs/${file}:${block.line}`, code: block.code })))
const observability = tsBlocks('docs/observability.md').map((block) => ({ name: `docs/observability.md:${block.line}`, code: block.code }))
const blocks = [...readme, ...guides, ...observability]
const adapters = path.join(import.meta.dirname, 'adapters.ts')

let checked: { files: string[]; program: string; each: Map<string, string> } | undefined
/** The diagnostics of `adapters.ts` and of every block, from one program made at the first case that asks. */
function typeChecked(): { files: string[]; program: string; each: Map<string, string> } {
  if (checked === undefined) {
    const files = blockModules('docs', blocks)
    checked = { files, ...typeCheckEachFile([adapters, ...files]) }
  }
  return checked
}

// A type check of the files against the project's types: seconds, tens on a busy 2-core machine.
const timeout = 150_000

describe('type tests (compiled, never run)', () => {
  it(
    'adapters.ts compiles: the principal is typed on req, request and ctx.state, and misuse does not compile',
    () => {
      const { program, each } = typeChecked()
      expect(program + each.get(adapters)!).toBe('')
    },
    timeout,
  )
})

describe('TypeScript blocks of the documentation compile against the package', () => {
  it("has the README blocks that cannot run in a test, the guides' and docs/observability.md's", () => {
    expect(readme.length).toBeGreaterThan(0)
    expect(guides.length).toBeGreaterThan(8)
    expect(observability.length).toBeGreaterThan(0)
  })

  it.each(blocks.map((block, index) => [block.name, index] as const))(
    '%s',
    (_, index) => {
      const { files, program, each } = typeChecked()
      expect(program + each.get(files[index]!)!).toBe('')
    },
    timeout,
  )
})
