import { describe, expect, it } from 'vitest'
import { createPasscodeAuth } from '../../src/index'
import { serverConfig } from '../../src/cli/config'
import { CliError } from '../../src/cli/exit-codes'
import { parseCommandLine } from '../../src/cli/run-cli'
import { memoryStore } from '../../src/memory'

/** `serve --rate-limit`: every value the CLI accepts is one the library accepts too. */

const io = { stdout: () => undefined, stderr: () => undefined, env: {}, cwd: '/' }
const limitOf = (value: string) => serverConfig(io, parseCommandLine(['serve', '--rate-limit', value]).flags).rateLimit

describe('serve --rate-limit', () => {
  it.each(['1', '50', '10000'])('takes %s, and the library takes the same limit', (value) => {
    const limit = limitOf(value)
    expect(limit).toEqual({ maxFailures: Number(value), windowMs: 900_000 })
    if (limit === false) throw new Error('unreachable')
    const options = { windowMs: limit.windowMs, maxFailuresPerAddress: limit.maxFailures, maxFailuresPerAccount: limit.maxFailures }
    expect(() => createPasscodeAuth({ store: memoryStore(), rateLimit: options })).not.toThrow()
  })

  it('takes off', () => {
    expect(limitOf('off')).toBe(false)
  })

  it.each(['0', '10001', '100000', '1.5', 'many'])('refuses %s with the range it takes', (value) => {
    expect(() => limitOf(value)).toThrow(CliError)
    expect(() => limitOf(value)).toThrow(/--rate-limit: must be "off" or a whole number of failed attempts from 1 to 10000/)
  })
})
