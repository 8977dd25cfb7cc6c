import { describe, expect, it } from 'vitest'
import { serverConfig } from '../../src/cli/config'
import { CliError } from '../../src/cli/exit-codes'
import { parseCommandLine } from '../../src/cli/run-cli'

/** `serve --cors-origin` (repeatable) and PASSCODE_AUTH_CORS_ORIGINS: the origins the reference server allows (SPEC §5.30). */

const io = (env: Record<string, string> = {}) => ({ stdout: () => undefined, stderr: () => undefined, env, cwd: '/' })
const originsOf = (argv: string[], env: Record<string, string> = {}) => serverConfig(io(env), parseCommandLine(['serve', ...argv]).flags).corsOrigins

describe('serve --cors-origin', () => {
  it('is off by default', () => {
    expect(originsOf([])).toEqual([])
  })

  it('takes the flag several times, in order', () => {
    expect(originsOf(['--cors-origin', 'https://dashboard.partner.example', '--cors-origin', 'http://localhost:5173'])).toEqual([
      'https://dashboard.partner.example',
      'http://localhost:5173',
    ])
  })

  it('takes a comma-separated PASSCODE_AUTH_CORS_ORIGINS, which the flags replace', () => {
    const env = { PASSCODE_AUTH_CORS_ORIGINS: 'https://a.example, https://b.example:8443' }
    expect(originsOf([], env)).toEqual(['https://a.example', 'https://b.example:8443'])
    expect(originsOf(['--cors-origin', 'https://c.example'], env)).toEqual(['https://c.example'])
  })

  it.each([['https://dashboard.partner.example/'], ['https://dashboard.partner.example/app'], ['*'], ['dashboard.partner.example']])(
    'refuses %s, saying what an origin looks like',
    (origin) => {
      let error: unknown
      try {
        originsOf(['--cors-origin', origin])
      } catch (caught) {
        error = caught
      }
      expect(error).toBeInstanceOf(CliError)
      expect((error as CliError).message).toMatch(/^Invalid setting --cors-origin: must be an origin such as https:\/\/dashboard\.partner\.example/)
    },
  )
})
