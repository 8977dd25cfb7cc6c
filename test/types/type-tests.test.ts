import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { typeCheckEachFile } from '../helpers/type-check'

/**
 * TypeScript that is compiled, never run: the type tests of this folder. (The
 * documentation's blocks are compiled against the packed package, in a project as a
 * reader makes one, by test/package/doc-blocks.test.ts.)
 */

const adapters = path.join(import.meta.dirname, 'adapters.ts')

// A type check of the file against the project's types: seconds, tens on a busy 2-core machine.
const timeout = 150_000

describe('type tests (compiled, never run)', () => {
  it(
    'adapters.ts compiles: the principal is typed on req, request and ctx.state, and misuse does not compile',
    () => {
      const { program, each } = typeCheckEachFile([adapters])
      expect(program + each.get(adapters)!).toBe('')
    },
    timeout,
  )
})
