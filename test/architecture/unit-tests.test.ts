import { spawn, spawnSync } from 'node:child_process'
import { createServer } from 'node:http'
import { fileURLToPath } from 'node:url'
import { globSync } from 'tinyglobby'
import { describe, expect, it } from 'vitest'
import { notUnitTests, slowTests, unitTests } from '../../vitest.config'
// The unit files' guard, on this file too: the last test below checks that it holds.
import '../helpers/no-server-or-child'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))

describe('the unit tests (npm run test:unit, vitest.config.ts)', () => {
  const inFolders = globSync(unitTests, { cwd: ROOT })
  const units = globSync(unitTests, { cwd: ROOT, ignore: notUnitTests })

  it('leave out only files of their own folders, and are most of those', () => {
    expect(notUnitTests.filter((file) => !inFolders.includes(file))).toEqual([])
    expect(units.length).toBeGreaterThan(40)
  })

  it('are none of the slow files', () => {
    expect(units.filter((file) => slowTests.includes(file))).toEqual([])
  })

  it('cannot start a child process or listen on a socket (test/helpers/no-server-or-child.ts)', () => {
    expect(() => spawn(process.execPath, ['--version'])).toThrow(/a unit test started a child process/)
    expect(() => spawnSync(process.execPath, ['--version'])).toThrow(/a unit test started a child process/)
    expect(() => createServer().listen(0, '127.0.0.1')).toThrow(/a unit test listened on a socket/)
  })
})
