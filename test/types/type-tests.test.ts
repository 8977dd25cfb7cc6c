import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { typeCheckFiles } from '../helpers/type-check'

const root = path.resolve(import.meta.dirname, '../..')

describe('type tests (compiled, never run)', () => {
  it('adapters.ts compiles: the principal is typed on req, request and ctx.state, and misuse does not compile', () => {
    expect(typeCheckFiles([path.join(import.meta.dirname, 'adapters.ts')], { typeRoots: [path.join(root, 'node_modules/@types')] })).toBe('')
  }, 150_000) // a type check of the file against the project's types: seconds, tens on a busy 2-core machine
})
