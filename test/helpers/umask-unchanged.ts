import { afterAll, beforeAll, expect } from 'vitest'

/**
 * A setup file of the test files that share a worker (vitest.config.ts): each must leave
 * the umask as it found it, or the next file in the worker would create its files under
 * another one. The in-process CLI (test/cli/cli-process.ts) changes it while a command
 * runs; this fails the file that ends with a command (a server) still running, or with
 * the umask changed some other way.
 */
let found: number

beforeAll(() => {
  found = process.umask()
})

// The first afterAll registered runs last: after the file's own.
afterAll(() => {
  const left = process.umask()
  expect(left.toString(8), 'the umask this file leaves (an in-process command still running?)').toBe(found.toString(8))
})
