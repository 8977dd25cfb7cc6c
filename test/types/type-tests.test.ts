import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { typeCheckEachFile } from '../helpers/type-check'

/**
 * TypeScript that is compiled, never run: the type tests of this folder. (The
 * documentation's blocks are compiled against the packed package, in a project as a
 * reader makes one, by test/package/doc-blocks.test.ts.)
 */

const adapters = path.join(import.meta.dirname, 'adapters.ts')
const storeParts = path.join(import.meta.dirname, 'store-parts.ts')

// A type check of the file against the project's types: seconds, tens on a busy 2-core machine.
const timeout = 150_000

describe('type tests (compiled, never run)', () => {
  // One program for both files: most of a check's CPU is shared (see typeCheckEachFile).
  let result: ReturnType<typeof typeCheckEachFile> | undefined
  const checked = () => (result ??= typeCheckEachFile([adapters, storeParts]))

  it(
    'adapters.ts compiles: the principal is typed on req, request and ctx.state, and misuse does not compile',
    () => {
      const { program, each } = checked()
      expect(program + each.get(adapters)!).toBe('')
    },
    timeout,
  )

  it(
    'store-parts.ts compiles: an optional part of the store port is all or none, and a store with half of one does not compile',
    () => {
      const { program, each } = checked()
      expect(program + each.get(storeParts)!).toBe('')
    },
    timeout,
  )
})
