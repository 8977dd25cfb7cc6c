import { readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readSetting, SETTINGS, storageConfig } from '../../src/cli/config'
import { commandName } from '../../src/cli/command-name'
import { cli, migratedDataFolder } from './cli-process'

/**
 * One variable for the encryption keys (PASSCODE_AUTH_ENCRYPTION_KEYS, `id:key` in
 * base64url, the first encrypts), `keys generate` to make a key line or a pepper, the
 * names of earlier guides read for one release with a warning, and a missing or
 * malformed key as a configuration error (exit 2) that says how to make one.
 */

const io = (env: Record<string, string>, stderr: string[] = []) => ({
  stdout: () => undefined,
  stderr: (text: string) => void stderr.push(text),
  env,
  cwd: '/',
})

describe('passcode-auth keys generate', () => {
  it('prints one new key line on stdout, which PASSCODE_AUTH_ENCRYPTION_KEYS takes, and nothing else', async () => {
    const [first, second, named] = await Promise.all([cli(['keys', 'generate']), cli(['keys', 'generate']), cli(['keys', 'generate', '--id', 'k2'])])
    for (const run of [first, second, named]) expect(run).toMatchObject({ code: 0, stderr: '' })
    expect(first.stdout).toMatch(/^k\d{8}:[A-Za-z0-9_-]{43}\n$/)
    expect(named.stdout).toMatch(/^k2:[A-Za-z0-9_-]{43}\n$/)
    expect(first.stdout).not.toBe(second.stdout)
    const line = `${named.stdout.trim()},${first.stdout.trim()}`
    const keys = readSetting(io({ PASSCODE_AUTH_ENCRYPTION_KEYS: line }), {}, SETTINGS.encryptionKeys)
    expect(keys?.map((key) => key.id)).toEqual(['k2', first.stdout.split(':')[0]])
  })

  it('prints a pepper with --pepper, and JSON with --json', async () => {
    const [pepper, json] = await Promise.all([cli(['keys', 'generate', '--pepper']), cli(['keys', 'generate', '--json'])])
    expect(pepper.stdout).toMatch(/^[A-Za-z0-9_-]{43}\n$/)
    expect(readSetting(io({ PASSCODE_AUTH_PEPPER: pepper.stdout.trim() }), {}, SETTINGS.pepper)).toBe(pepper.stdout.trim())
    expect(JSON.parse(json.stdout)).toEqual({ line: expect.stringMatching(/^k\d{8}:[A-Za-z0-9_-]{43}$/) })
    expect((await cli(['keys', 'generate', '--id', 'a,b'])).code).toBe(2)
  })
})

describe('the old names of the key', () => {
  const key = Buffer.alloc(32, 9)

  it('reads PASSCODE_KEY (base64) and PASSCODE_AUTH_KEY_<ID> for one release, warning with the new name and never the value', () => {
    const warnings: string[] = []
    const single = storageConfig(io({ PASSCODE_KEY: key.toString('base64') }, warnings), {})
    expect(single.encryptionKeys).toEqual([{ id: 'k1', key: key.toString('base64url') }])
    const several = storageConfig(
      io({ PASSCODE_AUTH_KEY_K1: key.toString('base64url'), PASSCODE_AUTH_KEY_K2: Buffer.alloc(32, 3).toString('base64url') }, warnings),
      {},
    )
    expect(several.encryptionKeys?.map((entry) => entry.id)).toEqual(['k2', 'k1'])
    expect(warnings).toEqual([
      expect.stringContaining(
        `warning: PASSCODE_KEY is read for one more release: set PASSCODE_AUTH_ENCRYPTION_KEYS instead (k1:<key>, base64url; make one with \`${commandName()} keys generate\`)`,
      ),
      expect.stringContaining(
        'warning: PASSCODE_AUTH_KEY_K2, PASSCODE_AUTH_KEY_K1 are read for one more release: set PASSCODE_AUTH_ENCRYPTION_KEYS instead (k2:<key>,k1:<key>',
      ),
    ])
    for (const warning of warnings) expect(warning).not.toContain(key.toString('base64').slice(0, 12))
  })

  it('prefers PASSCODE_AUTH_ENCRYPTION_KEYS, silently', () => {
    const warnings: string[] = []
    const config = storageConfig(
      io({ PASSCODE_AUTH_ENCRYPTION_KEYS: `k7:${key.toString('base64url')}`, PASSCODE_KEY: key.toString('base64') }, warnings),
      {},
    )
    expect(config.encryptionKeys?.map((entry) => entry.id)).toEqual(['k7'])
    expect(warnings).toEqual([])
  })

  it('refuses a malformed one, naming it and how to make a key, never echoing it', () => {
    expect(() => storageConfig(io({ PASSCODE_KEY: 'key-secret-77' }), {})).toThrow(
      `Invalid setting PASSCODE_KEY (environment variable): must be 32 bytes in base64; better, set PASSCODE_AUTH_ENCRYPTION_KEYS (make one with \`${commandName()} keys generate\`)`,
    )
    expect(() => storageConfig(io({ PASSCODE_AUTH_ENCRYPTION_KEYS: 'k1:short' }), {})).toThrow(`(make one with \`${commandName()} keys generate\`)`)
  })
})

describe('a missing key', () => {
  let folder: { dir: string; remove(): void }
  beforeAll(async () => {
    folder = await migratedDataFolder()
    const file = path.join(folder.dir, 'secrets.json')
    const { pepper } = JSON.parse(readFileSync(file, 'utf8')) as { pepper: string }
    writeFileSync(file, JSON.stringify({ pepper }), { mode: 0o600 })
  }, 120_000)
  afterAll(() => folder?.remove())

  it('is a configuration error (exit 2) for a command that encrypts a user passcode, naming the variable and how to make one', async () => {
    const granted = await cli(['users', 'grant', 'u_1', '--account', 'acc_1', '--validity', '30'], { dataDir: folder.dir })
    expect(granted.code).toBe(2)
    expect(granted.stderr).toContain(
      `error: PASSCODE_AUTH_ENCRYPTION_KEYS is not set: user passcodes are encrypted with it (the same list on every instance); make one with \`${commandName()} keys generate\``,
    )
    expect((await cli(['users', 'reveal', '--account', 'acc_1', '--as', 'u_1'], { dataDir: folder.dir })).code).toBe(2)
  })
})

describe('the command in printed hints', () => {
  it('is npx passcode-auth where the package is installed, npm run cli -- in a clone', () => {
    expect(commandName('/srv/app/node_modules/.bin/passcode-auth')).toBe('npx passcode-auth')
    expect(commandName('/srv/app/node_modules/passcode-auth/dist/cli.js')).toBe('npx passcode-auth')
    expect(commandName('/home/me/passcode-auth/src/cli/index.ts')).toBe('npm run cli --')
    expect(commandName('/home/me/passcode-auth/dist/cli.js')).toBe('npm run cli --')
  })
})
