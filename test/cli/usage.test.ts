import { existsSync } from 'node:fs'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { COMMANDS } from '../../src/cli/commands/index'
import { cli, cliProcess, temporaryFolder, type CliRun } from './cli-process'

/**
 * Help, unknown words and flags, and settings: all answered before any store is opened,
 * so these runs never create a data folder. The tables run the command in this process
 * (`runCli`, the same function the binary calls, with the same output and exit code);
 * a sample of each table also runs as a child process.
 */

const folder = temporaryFolder()
const dataDir = path.join(folder.dir, 'never-created')
const child = (args: string[], env: Record<string, string> = {}) => cliProcess(args, { dataDir, env })
const run = (args: string[], env: Record<string, string> = {}): Promise<CliRun> => cli(args, { dataDir, env })

afterAll(() => {
  expect(existsSync(dataDir)).toBe(false)
  folder.remove()
})

/** Runs at most `width` commands at a time. */
async function inBatches<T, R>(items: readonly T[], width: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = []
  for (let i = 0; i < items.length; i += width) results.push(...(await Promise.all(items.slice(i, i + width).map(fn))))
  return results
}

describe('--help', () => {
  it('is on every subcommand, with its usage and every flag it takes', async () => {
    const results = await inBatches(COMMANDS, 4, (command) => run([...command.path, '--help']))
    for (const [index, command] of COMMANDS.entries()) {
      const { code, stdout } = results[index]!
      expect(code, command.path.join(' ')).toBe(0)
      expect(stdout.startsWith(`passcode-auth ${command.path.join(' ')}: ${command.summary}\n`)).toBe(true)
      expect(stdout).toContain(`Usage:\n  passcode-auth ${command.path.join(' ')}`)
      for (const flag of [...Object.keys(command.options ?? {}), 'json', 'help']) expect(stdout).toContain(`--${flag}`)
    }
  })

  it("lists every command at the top, and each group's subcommands", async () => {
    // The top help, with and without --help, from a child process (its exit codes 0 and 2).
    const [top, bare, help, group, version] = await Promise.all([
      child(['--help']),
      child([]),
      run(['help', 'users', 'grant']),
      run(['passcodes', '--help']),
      run(['--version']),
    ])
    expect(top.code).toBe(0)
    for (const command of COMMANDS) expect(top.stdout).toContain(`  ${command.path.join(' ')} `)
    expect(top.stdout).toContain('Exit codes: 0 done')
    expect(bare).toMatchObject({ code: 2, stdout: top.stdout })
    expect(help.stdout.startsWith('passcode-auth users grant: ')).toBe(true)
    expect(group).toMatchObject({ code: 0 })
    expect(group.stdout).toContain('passcodes create')
    expect(group.stdout).toContain('passcodes delete')
    expect(version.stdout).toMatch(/^\d+\.\d+\.\d+/)
  })
})

describe('a wrong command line', () => {
  it('names what is wrong and exits 2', async () => {
    const cases: [string[], string][] = [
      [
        ['frobnicate'],
        'error: unknown command "frobnicate"; commands: serve, passcodes, users, accounts, audit, webhooks, dashboard, partners, notify, migrate, peppers',
      ],
      [['passcodes'], 'error: "passcodes" needs a subcommand: create, list, edit, rotate, delete'],
      [['passcodes', 'remove'], 'error: unknown subcommand "passcodes remove"; subcommands: create, list, edit, rotate, delete'],
      [['partners', 'add'], 'error: "partners add" needs <name>'],
      [['partners', 'add', 'a', 'b'], 'error: unexpected argument "b" for "partners add"'],
      [['partners', 'list', '--json=yes'], 'error: --json is a switch and takes no value'],
      [['passcodes', 'list', '--account'], 'error: --account needs a value'],
      [['passcodes', 'list', '--account', 'a', '--as', 'two words'], 'error: Invalid --as: must be 1 to 256 visible ASCII characters'],
      [['passcodes', 'list', '--account', 'a', '--role', 'owner'], 'error: Invalid --role: must be "admin" or "member"'],
      [
        ['users', 'grant', 'u_1', '--account', 'a', '--validity', 'forever'],
        'error: Invalid --validity: must be a whole number of days (1 to 365) or "infinite"',
      ],
      [
        ['passcodes', 'create', '--account', 'a', '--name', 'n', '--expiry', 'soon'],
        'error: Invalid --expiry: must be a whole number of days (1 to 3650) or "forever"',
      ],
      [['passcodes', 'edit', 'n', '--account', 'a'], 'error: "passcodes edit" needs --name, --expiry, --partners or --unbind'],
    ]
    const results = await inBatches(cases, 4, ([args]) => run(args))
    for (const [index, [args, message]] of cases.entries()) {
      expect(results[index]!.code, args.join(' ')).toBe(2)
      expect(results[index]!.stderr.split('\n')[0], args.join(' ')).toContain(message)
      expect(results[index]!.stdout, args.join(' ')).toBe('')
    }
  })

  it('exits 2 from a child process too', async () => {
    const [unknown, subcommand] = await Promise.all([child(['passcodes', 'create', '--bogus']), child(['passcodes'])])
    expect(unknown).toMatchObject({ code: 2, stdout: '' })
    expect(unknown.stderr).toBe('error: unknown option --bogus for "passcodes create"\nRun "passcode-auth passcodes create --help" for usage.\n')
    expect(subcommand.code).toBe(2)
  })

  it('is reported as JSON on stderr with --json', async () => {
    const result = await child(['partners', 'list', '--bogus', '--json'])
    expect(result).toMatchObject({ code: 2, stdout: '' })
    expect(JSON.parse(result.stderr)).toEqual({
      error: { code: 'ERR_USAGE', message: 'unknown option --bogus for "partners list"', exitCode: 2 },
    })
  })
})

describe('settings', () => {
  it('names the wrong flag or environment variable, and never echoes a secret', async () => {
    const postgres = 'postgres://app:db-secret-99@127.0.0.1:1/app'
    const validKey = `key-secret-77${'A'.repeat(30)}` // 43 base64url characters: 32 bytes
    const cases: [string[], Record<string, string>, string][] = [
      [['serve'], { PORT: 'eighty' }, 'Invalid setting PORT (environment variable): must be a whole number from 0 to 65535'],
      [['serve', '--port', '70000'], {}, 'Invalid setting --port: must be a whole number from 0 to 65535'],
      [
        ['serve', '--notify-interval-ms', '10'],
        {},
        'Invalid setting --notify-interval-ms: must be a whole number of milliseconds from 1000 to 2147483647',
      ],
      [
        ['partners', 'list'],
        { PASSCODE_AUTH_PEPPER: 'tiny-pepper' },
        'Invalid setting PASSCODE_AUTH_PEPPER (environment variable): must be 16 to 1024 bytes',
      ],
      [
        ['partners', 'list'],
        { PASSCODE_AUTH_ENCRYPTION_KEYS: 'k1:key-secret-77' },
        'Invalid setting PASSCODE_AUTH_ENCRYPTION_KEYS (environment variable): entry 1 must be <key id>:<32 bytes in base64url>',
      ],
      // The service's own rules (a pepper of 16 bytes or more, at most 8 in all, key ids of 1 to 64 visible characters).
      [
        ['partners', 'list'],
        { PASSCODE_AUTH_PREVIOUS_PEPPERS: 'none,tiny-pepper' },
        'Invalid setting PASSCODE_AUTH_PREVIOUS_PEPPERS (environment variable): must be up to 7 older peppers (16 to 1024 bytes each',
      ],
      [
        ['partners', 'list'],
        { PASSCODE_AUTH_PREVIOUS_PEPPERS: Array(8).fill('none').join(',') },
        'Invalid setting PASSCODE_AUTH_PREVIOUS_PEPPERS (environment variable): must be up to 7 older peppers',
      ],
      [
        ['partners', 'list'],
        { PASSCODE_AUTH_PEPPER: 'pepper-secret-0123456789', PASSCODE_AUTH_PREVIOUS_PEPPERS: 'none,pepper-secret-0123456789' },
        'Invalid setting PASSCODE_AUTH_PREVIOUS_PEPPERS (environment variable): must not hold the current pepper (PASSCODE_AUTH_PEPPER) or the same pepper twice',
      ],
      [
        ['partners', 'list'],
        { PASSCODE_AUTH_PREVIOUS_PEPPERS: 'none,none' },
        'Invalid setting PASSCODE_AUTH_PREVIOUS_PEPPERS (environment variable): must not hold the current pepper',
      ],
      [
        ['partners', 'list'],
        { PASSCODE_AUTH_ENCRYPTION_KEYS: `${'k'.repeat(65)}:${validKey}` },
        'Invalid setting PASSCODE_AUTH_ENCRYPTION_KEYS (environment variable): entry 1 must be <key id>:<32 bytes in base64url>',
      ],
      [
        ['partners', 'list'],
        { PASSCODE_AUTH_ENCRYPTION_KEYS: `k1:${validKey},k1:${validKey}` },
        'Invalid setting PASSCODE_AUTH_ENCRYPTION_KEYS (environment variable): key ids must be unique',
      ],
      [
        ['partners', 'list'],
        { DATABASE_URL: 'mysql://root:db-secret-99@db/app' },
        'Invalid setting DATABASE_URL (environment variable): must be a postgres:// or postgresql:// URL',
      ],
      [['partners', 'list'], { DATABASE_URL: postgres }, 'PASSCODE_AUTH_PEPPER is required with DATABASE_URL'],
      [['partners', 'list', '--database-url', 'db-secret-99'], {}, 'Invalid setting --database-url: must be a postgres:// or postgresql:// URL'],
    ]
    const results = await inBatches(cases, 4, ([args, env]) => run(args, env))
    for (const [index, [args, env, message]] of cases.entries()) {
      const { code, stderr } = results[index]!
      expect(code, `${args.join(' ')} ${JSON.stringify(env)}`).toBe(2)
      expect(stderr).toContain(message)
      for (const secret of ['db-secret-99', 'key-secret-77', 'tiny-pepper', 'pepper-secret']) expect(stderr).not.toContain(secret)
    }
  })

  it('are read from the environment of a child process', async () => {
    const [port, database] = await Promise.all([
      child(['serve'], { PORT: 'eighty' }),
      child(['migrate'], { DATABASE_URL: 'postgres://app:db-secret-99@127.0.0.1:1/app' }),
    ])
    expect(port.code).toBe(2)
    expect(port.stderr).toContain('Invalid setting PORT (environment variable)')
    expect(database.code).toBe(2)
    expect(database.stderr).toContain('PASSCODE_AUTH_PEPPER is required with DATABASE_URL')
    expect(database.stderr).not.toContain('db-secret-99')
  })
})
