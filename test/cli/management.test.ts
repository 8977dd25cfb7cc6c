import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { cli, currentUmask, migratedDataFolder, serveInProcess, type ServeUnderTest } from './cli-process'

/**
 * `users`, `accounts` and `partners`, run while `serve` runs on the data folder (the
 * commands are handed to it), so that each effect is checked where it matters: on
 * `GET /v1/connect`.
 */

let folder: { dir: string; remove(): void }
let server: ServeUnderTest
const run = (...args: string[]) => cli(args, { dataDir: folder.dir })
const connect = async (passcode: string, partner = 'acme') => {
  const response = await fetch(`${server.url}/v1/connect?partner=${partner}`, {
    headers: { 'X-Service-Account-Id': 'acc_1', 'X-Service-Passcode': passcode },
  })
  return response.status
}
const reveal = async (userId: string) => {
  const result = await run('users', 'reveal', '--account', 'acc_1', '--as', userId, '--json')
  expect(result.code).toBe(0)
  return (JSON.parse(result.stdout) as { value: string; userPasscode: { userId: string } }).value
}

beforeAll(async () => {
  folder = await migratedDataFolder()
  server = await serveInProcess(folder.dir, ['--quiet'])
}, 120_000)

afterAll(async () => {
  await server?.stop()
  folder?.remove()
})

describe('commands run in the test process (test/cli/cli-process.ts)', () => {
  it('keep the umask 077 the command sets while another still runs: one that ends beside the server leaves it', async () => {
    expect((await run('partners', 'list')).code).toBe(0)
    expect(currentUmask()).toBe('77')
  })
})

describe('partners add|list|remove', () => {
  it('whitelists a partner, normalised, and refuses it twice or blank', async () => {
    const added = await run('partners', 'add', ' Acme ')
    expect(added).toMatchObject({ code: 0, stdout: 'Whitelisted partner "acme".\n' })
    const twice = await run('partners', 'add', 'ACME')
    expect(twice.code).toBe(3)
    expect(twice.stderr).toBe('error: Partner "acme" is already whitelisted\n')
    const blank = await run('partners', 'add', '   ')
    expect(blank.code).toBe(3)
    expect(blank.stderr).toContain('Invalid partner: must be 1 to 128 characters')
    expect(await run('partners', 'list')).toMatchObject({ code: 0, stdout: 'acme\n' })
  })
})

describe('users grant|reset|revoke|reveal and accounts set-accepted', () => {
  let first: string

  it('grants a user passcode that only its user reveals; the account must accept user passcodes', async () => {
    const granted = await run('users', 'grant', 'u_1', '--account', 'acc_1', '--validity', '90')
    expect(granted.code).toBe(0)
    expect(granted.stdout).toContain('Granted a user passcode to user u_1 in account acc_1')
    expect(granted.stdout).not.toMatch(/psc_[A-Za-z0-9]{20,}/)
    expect(granted.stdout).toContain('passcode-auth users reveal --account acc_1 --as u_1')
    first = await reveal('u_1')
    expect(await connect(first)).toBe(400)
    const accepted = await run('accounts', 'set-accepted', 'both', '--account', 'acc_1')
    expect(accepted).toMatchObject({ code: 0, stdout: 'Account acc_1 now accepts account and user passcodes.\n' })
    expect(await connect(first)).toBe(200)
  })

  it('refuses a second grant, a validity of 0 or 366 days, a member granting and a bad setting', async () => {
    const results = await Promise.all([
      run('users', 'grant', 'u_1', '--account', 'acc_1', '--validity', '30'),
      run('users', 'grant', 'u_2', '--account', 'acc_1', '--validity', '0'),
      run('users', 'grant', 'u_2', '--account', 'acc_1', '--validity', '366', '--json'),
      run('users', 'grant', 'u_2', '--account', 'acc_1', '--validity', 'infinite', '--as', 'u_9', '--role', 'member'),
      run('accounts', 'set-accepted', 'everything', '--account', 'acc_1'),
    ])
    expect(results.map((result) => result.code)).toEqual([3, 3, 3, 3, 3])
    expect(results[0].stderr).toContain('The user already has a user passcode; reset or revoke it instead')
    expect(results[1].stderr).toContain('Invalid validity.days: must be at least 1 day')
    expect(JSON.parse(results[2].stderr)).toMatchObject({ error: { code: 'ERR_INVALID_INPUT', field: 'validity.days' } })
    expect(results[3].stderr).toContain('Only admins grant, reset or revoke user passcodes')
    expect(results[4].stderr).toContain('Invalid accepted: must be "account", "user" or "both"')
    // Nothing was granted to u_2.
    expect((await run('users', 'reveal', '--account', 'acc_1', '--as', 'u_2')).code).toBe(4)
  })

  it('resets: a fresh value works, the old one stops at once', async () => {
    const reset = await run('users', 'reset', 'u_1', '--account', 'acc_1')
    expect(reset.code).toBe(0)
    const second = await reveal('u_1')
    expect(second).not.toBe(first)
    expect(await connect(first)).toBe(400)
    expect(await connect(second)).toBe(200)
    first = second
  })

  it('revokes: the value stops at once and there is nothing left to reveal or revoke', async () => {
    expect((await run('users', 'revoke', 'u_1', '--account', 'acc_1')).code).toBe(0)
    expect(await connect(first)).toBe(400)
    const [revealed, again] = await Promise.all([
      run('users', 'reveal', '--account', 'acc_1', '--as', 'u_1'),
      run('users', 'revoke', 'u_1', '--account', 'acc_1'),
    ])
    expect(revealed).toMatchObject({ code: 4, stderr: 'error: The user has no active user passcode\n' })
    expect(again.code).toBe(4)
  })

  it('grants infinite validity: ten years', async () => {
    const granted = await run('users', 'grant', 'u_3', '--account', 'acc_1', '--validity', 'infinite', '--json')
    expect(granted.code).toBe(0)
    const { userPasscode } = JSON.parse(granted.stdout) as { userPasscode: { validity: unknown; expiresAt: string } }
    expect(userPasscode.validity).toEqual({ type: 'infinite' })
    expect(new Date(userPasscode.expiresAt).getUTCFullYear() - new Date().getUTCFullYear()).toBe(10)
    expect(await connect(await reveal('u_3'))).toBe(200)
  })

  it('removes a partner: its connects get 403 at once; removing it again is "not found"', async () => {
    const value = await reveal('u_3')
    expect(await run('partners', 'remove', 'ACME')).toMatchObject({ code: 0, stdout: 'Removed partner "acme" from the whitelist.\n' })
    expect(await connect(value)).toBe(403)
    const again = await run('partners', 'remove', 'acme', '--json')
    expect(again.code).toBe(4)
    expect(JSON.parse(again.stderr)).toEqual({ error: { code: 'ERR_NOT_FOUND', message: 'Partner "acme" is not whitelisted', exitCode: 4 } })
    expect(JSON.parse((await run('partners', 'list', '--json')).stdout)).toEqual({ partners: [] })
  })
})

describe('accounts policy and accounts set-policy (SPEC §5.52)', () => {
  it("shows the host's default, sets the account's own, refuses what breaks it, and goes back", async () => {
    expect(await run('accounts', 'policy', '--account', 'acc_p')).toMatchObject({
      code: 0,
      stdout: "Account acc_p follows the host's default passcode policy: no rule.\n",
    })
    const set = await run('accounts', 'set-policy', '--account', 'acc_p', '--max-lifetime-days', '90', '--require-expiry')
    expect(set).toMatchObject({
      code: 0,
      stdout: 'Account acc_p follows its own passcode policy: passcodes live at most 90 days; every account passcode needs an expiry.\n',
    })
    const shown = await run('accounts', 'policy', '--account', 'acc_p', '--json')
    expect(JSON.parse(shown.stdout)).toEqual({
      accountId: 'acc_p',
      policy: { maxLifetimeDays: 90, requireExpiry: true, requireDescription: false, source: 'account' },
    })
    const refused = await run('passcodes', 'create', '--account', 'acc_p', '--name', 'Long', '--expiry', '365', '--json')
    expect(refused.code).toBe(3)
    expect(JSON.parse(refused.stderr)).toMatchObject({ error: { code: 'ERR_INVALID_INPUT', field: 'expiry' } })
    expect(refused.stderr).toContain('maxLifetimeDays')

    const [outOfRange, member, both] = await Promise.all([
      run('accounts', 'set-policy', '--account', 'acc_p', '--max-lifetime-days', '3651'),
      run('accounts', 'set-policy', '--account', 'acc_p', '--require-expiry', '--as', 'u_9', '--role', 'member'),
      run('accounts', 'set-policy', '--account', 'acc_p', '--default', '--require-expiry'),
    ])
    expect([outOfRange.code, member.code, both.code]).toEqual([3, 3, 3])
    expect(outOfRange.stderr).toContain('Invalid policy.maxLifetimeDays: must be at most 3650 days')
    expect(member.stderr).toContain("Only admins change an account's passcode policy")
    expect(both.stderr).toContain('default')

    expect(await run('accounts', 'set-policy', '--account', 'acc_p', '--default')).toMatchObject({
      code: 0,
      stdout: "Account acc_p follows the host's default passcode policy: no rule.\n",
    })
  })
})
