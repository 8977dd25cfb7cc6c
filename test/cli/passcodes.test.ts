import path from 'node:path'
import { PGlite } from '@electric-sql/pglite'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createPasscodeAuth, PASSCODE_PATTERN } from '../../src/index'
import { postgresStore } from '../../src/stores/postgres/index'
import { cli, migratedDataFolder, serveInProcess, type ServeUnderTest } from './cli-process'

/**
 * `passcodes create|list|edit|delete`, good and bad input, on a data folder. Most run
 * while `serve` holds the folder (each command is handed to it over its control socket,
 * which spares every command opening the database); the 101st passcode is refused on a
 * folder the command opens itself. The commands and the server run in this process.
 */

let folder: { dir: string; remove(): void }
let full: { dir: string; remove(): void }
let server: ServeUnderTest
const run = (...args: string[]) => cli(args, { dataDir: folder.dir })
const listJson = async (account = 'acc_1') => {
  const result = await cli(['passcodes', 'list', '--account', account, '--json'], { dataDir: folder.dir })
  expect(result.code).toBe(0)
  return (JSON.parse(result.stdout) as { passcodes: { id: string; name: string; status: string; expiry: number | 'forever' }[] }).passcodes
}

beforeAll(async () => {
  ;[folder, full] = await Promise.all([migratedDataFolder(), migratedDataFolder()])
  // 100 passcodes in one account, written with the library, so that the CLI meets the cap.
  const db = await PGlite.create(path.join(full.dir, 'pgdata'))
  const auth = createPasscodeAuth({ store: postgresStore(db, { listen: false }) })
  const admin = { userId: 'setup', role: 'admin' } as const
  for (let i = 1; i <= 100; i++) await auth.passcodes.create(admin, 'acc_full', { name: `Partner ${i}`, expiry: 30 })
  await db.close()
  server = await serveInProcess(folder.dir, [
    '--quiet',
    '--declare-scope',
    'events:read=Read events',
    '--declare-scope',
    'events:write=Send events, with commas',
  ])
}, 120_000)

afterAll(async () => {
  await server?.stop()
  folder?.remove()
  full?.remove()
})

describe('passcodes create', () => {
  it('prints the value once, with the status and a warning that it is not kept', async () => {
    const result = await run('passcodes', 'create', '--account', 'acc_1', '--name', 'Acme', '--expiry', '90')
    expect(result.code).toBe(0)
    expect(result.stdout).toMatch(
      /^Created passcode "Acme" in account acc_1 \(id [0-9a-f-]+, psc_…\w{4}\): Active, expires \d{4}-\d\d-\d\d \d\d:\d\d UTC\.$/m,
    )
    const value = /^ {2}(psc_\S+)$/m.exec(result.stdout)?.[1]
    expect(value).toMatch(new RegExp(`^${PASSCODE_PATTERN.source}$`))
    expect(result.stdout).toContain('This is the only time the value is shown')
  })

  it('gives scripts one JSON document with the value, and "forever" means no expiry', async () => {
    const result = await run('passcodes', 'create', '--account', 'acc_1', '--name', 'Globex', '--expiry', 'forever', '--json')
    expect(result.code).toBe(0)
    const { passcode, value } = JSON.parse(result.stdout) as { passcode: { name: string; expiresAt: null; status: string }; value: string }
    expect(passcode).toMatchObject({ name: 'Globex', expiresAt: null, status: 'active', expiry: 'forever' })
    expect(value).toMatch(/^psc_/)
  })

  it('refuses an expiry of 0 or 3651 days, or a non-number', async () => {
    const [zero, tooLong, words] = await Promise.all([
      run('passcodes', 'create', '--account', 'acc_1', '--name', 'Zero', '--expiry', '0'),
      run('passcodes', 'create', '--account', 'acc_1', '--name', 'Long', '--expiry', '3651', '--json'),
      run('passcodes', 'create', '--account', 'acc_1', '--name', 'Words', '--expiry', 'ninety'),
    ])
    expect(zero).toMatchObject({ code: 3, stdout: '' })
    expect(zero.stderr).toBe('error: Invalid expiry: must be at least 1 day\n')
    expect(tooLong).toMatchObject({ code: 3, stdout: '' })
    expect(JSON.parse(tooLong.stderr)).toEqual({
      error: { code: 'ERR_INVALID_INPUT', message: 'Invalid expiry: must be at most 3650 days', field: 'expiry', exitCode: 3 },
    })
    expect(words.code).toBe(2)
    expect(words.stderr).toContain('Invalid --expiry: must be a whole number of days (1 to 3650) or "forever"')
  })

  it('refuses a duplicate name, compared trimmed and case-insensitively', async () => {
    const result = await run('passcodes', 'create', '--account', 'acc_1', '--name', '  ACME ', '--expiry', '30')
    expect(result.code).toBe(3)
    expect(result.stderr).toBe('error: A passcode named "ACME" already exists in this account\n')
  })

  it('refuses the 101st passcode of an account, and writes nothing', async () => {
    const result = await cli(['passcodes', 'create', '--account', 'acc_full', '--name', 'One too many', '--expiry', '30'], { dataDir: full.dir })
    expect(result.code).toBe(3)
    expect(result.stderr).toBe('error: The account already has the maximum of 100 passcodes; delete one first\n')
    const list = await cli(['passcodes', 'list', '--account', 'acc_full', '--json'], { dataDir: full.dir })
    expect((JSON.parse(list.stdout) as { passcodes: unknown[] }).passcodes).toHaveLength(100)
  })

  it('rejects unknown flags, missing ones and repeated ones before touching the store', async () => {
    const [unknown, missing, twice] = await Promise.all([
      run('passcodes', 'create', '--account', 'acc_1', '--name', 'X', '--expiry', '9', '--expires', '9'),
      run('passcodes', 'create', '--account', 'acc_1', '--name', 'X'),
      run('passcodes', 'create', '--account', 'acc_1', '--name', 'X', '--expiry', '9', '--expiry', '10'),
    ])
    expect(unknown.code).toBe(2)
    expect(unknown.stderr).toBe('error: unknown option --expires for "passcodes create"\nRun "passcode-auth passcodes create --help" for usage.\n')
    expect(missing.code).toBe(2)
    expect(missing.stderr).toContain('"passcodes create" needs --expiry <days|forever>')
    expect(twice.code).toBe(2)
    expect(twice.stderr).toContain('--expiry is given more than once')
  })

  it('wrote nothing for any refused create', async () => {
    expect((await listJson()).map((p) => p.name).sort()).toEqual(['Acme', 'Globex'])
  })

  it('lets a member create only with write access to User Settings', async () => {
    const member = await run('passcodes', 'create', '--account', 'acc_1', '--name', 'M', '--expiry', '9', '--as', 'u_7', '--role', 'member')
    expect(member.code).toBe(3)
    expect(member.stderr).toContain('Only admins or users with write access to User Settings manage passcodes')
    const allowed = await run(
      'passcodes',
      'create',
      '--account',
      'acc_1',
      '--name',
      'M',
      '--expiry',
      '9',
      '--as',
      'u_7',
      '--role',
      'member',
      '--user-settings',
    )
    expect(allowed.code).toBe(0)
  })
})

describe('passcodes list, edit, delete', () => {
  it('lists every passcode with its status, "Expiring soon" within 30 days', async () => {
    const [result, empty] = await Promise.all([run('passcodes', 'list', '--account', 'acc_1'), run('passcodes', 'list', '--account', 'acc_empty')])
    expect(result.code).toBe(0)
    const lines = result.stdout.split('\n')
    expect(lines[0]).toMatch(/^ID\s+NAME\s+HINT\s+STATUS\s+EXPIRES\s+PARTNERS\s+LAST USED$/)
    expect(lines.find((line) => line.includes(' M '))).toMatch(/Expiring soon/)
    expect(lines.find((line) => line.includes(' Globex '))).toMatch(/Active\s+never\s+any\s+never \(unused\)$/)
    expect(result.stdout).toContain('3 of 100 passcodes; 3 never used or unused for 90 days.')
    expect(empty.stdout).toBe('No passcodes in account acc_empty.\n')
  })

  it('edits by name: a new expiry counts from now, a rename keeps the value', async () => {
    const extended = await run('passcodes', 'edit', 'm', '--account', 'acc_1', '--expiry', '365', '--json')
    expect(extended.code).toBe(0)
    expect(JSON.parse(extended.stdout)).toMatchObject({ passcode: { name: 'M', expiry: 365, status: 'active' } })
    const renamed = await run('passcodes', 'edit', 'M', '--account', 'acc_1', '--name', 'Initech')
    expect(renamed.code).toBe(0)
    expect(renamed.stdout).toMatch(/^Updated passcode "Initech" in account acc_1/)
  })

  it('refuses an edit without a change, onto a taken name, or of an unknown passcode', async () => {
    const [nothing, taken, unknown] = await Promise.all([
      run('passcodes', 'edit', 'Initech', '--account', 'acc_1'),
      run('passcodes', 'edit', 'Initech', '--account', 'acc_1', '--name', 'acme'),
      run('passcodes', 'edit', 'Nope', '--account', 'acc_1', '--expiry', '5'),
    ])
    expect(nothing).toMatchObject({ code: 2 })
    expect(nothing.stderr).toContain('"passcodes edit" needs --name, --expiry, --partners or --unbind')
    expect(taken.code).toBe(3)
    expect(unknown.code).toBe(4)
    expect(unknown.stderr).toBe('error: No passcode with id or name "Nope" in account acc_1\n')
  })

  it('deletes by id; a second delete is "not found"', async () => {
    const [globex] = (await listJson()).filter((p) => p.name === 'Globex')
    const deleted = await run('passcodes', 'delete', globex!.id, '--account', 'acc_1')
    expect(deleted.code).toBe(0)
    expect(deleted.stdout).toContain(`Deleted passcode "Globex" (id ${globex!.id}) from account acc_1`)
    expect((await run('passcodes', 'delete', globex!.id, '--account', 'acc_1')).code).toBe(4)
    expect((await listJson()).map((p) => p.name).sort()).toEqual(['Acme', 'Initech'])
  })
})

describe('passcodes with partners, rotate, last use', () => {
  const connect = (value: string, partner: string) =>
    fetch(`${server.url}/v1/connect?partner=${partner}`, { headers: { 'X-Service-Account-Id': 'acc_bound', 'X-Service-Passcode': value } })

  it('binds at create to whitelisted partners only, and connect follows the binding', async () => {
    await Promise.all([run('partners', 'add', 'acme'), run('partners', 'add', 'globex')])
    const refused = await run(
      'passcodes',
      'create',
      '--account',
      'acc_bound',
      '--name',
      'Bad',
      '--expiry',
      '9',
      '--partners',
      'acme,umbrella',
      '--json',
    )
    expect(refused.code).toBe(3)
    expect(JSON.parse(refused.stderr)).toMatchObject({ error: { code: 'ERR_INVALID_INPUT', field: 'partners' } })
    const created = await run('passcodes', 'create', '--account', 'acc_bound', '--name', 'Acme only', '--expiry', '9', '--partners', ' ACME ')
    expect(created.code).toBe(0)
    expect(created.stdout).toMatch(/, partners acme\.$/m)
    const value = /^ {2}(psc_\S+)$/m.exec(created.stdout)![1]!
    expect((await connect(value, 'acme')).status).toBe(200)
    expect((await connect(value, 'globex')).status).toBe(403)
  })

  it('rotates with an overlap: prints the new value once, the old one keeps working', async () => {
    const created = JSON.parse((await run('passcodes', 'create', '--account', 'acc_bound', '--name', 'Rotating', '--expiry', '30', '--json')).stdout)
    const rotated = await run('passcodes', 'rotate', 'rotating', '--account', 'acc_bound', '--overlap', '60')
    expect(rotated.code).toBe(0)
    expect(rotated.stdout).toMatch(/^Rotated passcode "Rotating" in account acc_bound/)
    expect(rotated.stdout).toMatch(/keeps working until \d{4}-\d\d-\d\d \d\d:\d\d UTC\.$/m)
    const fresh = /^ {2}(psc_\S+)$/m.exec(rotated.stdout)![1]!
    expect(fresh).not.toBe(created.value)
    expect((await connect(created.value, 'globex')).status).toBe(200)
    expect((await connect(fresh, 'globex')).status).toBe(200)
    const [missing, bad, tooLong] = await Promise.all([
      run('passcodes', 'rotate', 'rotating', '--account', 'acc_bound'),
      run('passcodes', 'rotate', 'rotating', '--account', 'acc_bound', '--overlap', 'soon'),
      run('passcodes', 'rotate', 'rotating', '--account', 'acc_bound', '--overlap', '10081'),
    ])
    expect(missing.code).toBe(2)
    expect(bad.code).toBe(2)
    expect(tooLong.code).toBe(3)
    expect(tooLong.stderr).toContain('Invalid overlapMinutes: must be at most 10080')
  })

  it('lists partners and last use, sorted by last use on request; --unbind lets any partner in', async () => {
    const listed = await run('passcodes', 'list', '--account', 'acc_bound', '--sort', 'last-used', '--json')
    const passcodes = (
      JSON.parse(listed.stdout) as { passcodes: { name: string; partners: string[] | null; lastUsedPartner: string | null; unused: boolean }[] }
    ).passcodes
    // Both were used through the server, which shows what it has not flushed yet.
    expect(passcodes.map((p) => [p.name, p.partners, p.lastUsedPartner, p.unused])).toEqual([
      ['Acme only', ['acme'], 'acme', false],
      ['Rotating', null, 'globex', false],
    ])
    const text = await run('passcodes', 'list', '--account', 'acc_bound')
    expect(text.stdout).toMatch(/Acme only .* acme\s+\d{4}-\d\d-\d\d \d\d:\d\d UTC by acme$/m)
    expect((await run('passcodes', 'edit', 'Acme only', '--account', 'acc_bound', '--unbind')).code).toBe(0)
    expect((await run('passcodes', 'list', '--account', 'acc_bound', '--sort', 'newest')).code).toBe(2)
  })

  it('marks a bound partner removed from the whitelist: the passcode works for no partner', async () => {
    await run('passcodes', 'create', '--account', 'acc_gone', '--name', 'Globex only', '--expiry', '9', '--partners', 'globex')
    expect((await run('partners', 'remove', 'globex')).code).toBe(0)
    const listed = await run('passcodes', 'list', '--account', 'acc_gone')
    expect(listed.stdout).toContain('globex (not whitelisted): works for no partner')
  })
})

describe('passcodes disable, enable and --description', () => {
  const connect = (value: string) =>
    fetch(`${server.url}/v1/connect?partner=acme`, { headers: { 'X-Service-Account-Id': 'acc_disable', 'X-Service-Passcode': value } })

  it('disables by name: connect answers the 400 of an unknown passcode at once; enable undoes it; both say when nothing changed', async () => {
    await run('partners', 'add', 'acme')
    const created = JSON.parse((await run('passcodes', 'create', '--account', 'acc_disable', '--name', 'Paused', '--expiry', '90', '--json')).stdout)
    expect((await connect(created.value)).status).toBe(200)

    const disabled = await run('passcodes', 'disable', 'paused', '--account', 'acc_disable')
    expect(disabled.code).toBe(0)
    expect(disabled.stdout).toMatch(/^Disabled passcode "Paused" in account acc_disable \(id [0-9a-f-]+, psc_…\w{4}\): Disabled, expires /)
    const refused = await connect(created.value)
    expect(refused.status).toBe(400)
    expect(await refused.text()).toBe('{"status":"fail","error":"Invalid Credentials","code":400}')
    const listed = await run('passcodes', 'list', '--account', 'acc_disable')
    expect(listed.stdout.split('\n').find((line) => line.includes(' Paused '))).toMatch(/ Disabled /)

    const again = await run('passcodes', 'disable', created.passcode.id, '--account', 'acc_disable', '--json')
    expect(again.code).toBe(0)
    expect(JSON.parse(again.stdout)).toMatchObject({ changed: false, passcode: { status: 'disabled' } })

    const enabled = await run('passcodes', 'enable', 'Paused', '--account', 'acc_disable', '--json')
    expect(JSON.parse(enabled.stdout)).toMatchObject({ changed: true, passcode: { status: 'active', disabledAt: null } })
    expect((await connect(created.value)).status).toBe(200)
    expect((await run('passcodes', 'enable', 'Paused', '--account', 'acc_disable')).stdout).toContain('was not disabled; nothing changed.')
    expect((await run('passcodes', 'disable', 'Nope', '--account', 'acc_disable')).code).toBe(4)
    expect((await run('passcodes', 'disable', 'Paused', '--account', 'acc_disable', '--as', 'u_7', '--role', 'member')).code).toBe(3)
  })

  it('sets a description at create and edit ("" removes it), shows its first line in the list, and refuses a bad one naming the field', async () => {
    const created = await run(
      'passcodes',
      'create',
      '--account',
      'acc_described',
      '--name',
      'Export',
      '--expiry',
      '30',
      '--description',
      'Nightly export to Acme, run by the data team at 02:00 UTC\nSecond line',
    )
    expect(created.code).toBe(0)
    expect(created.stdout).toContain('\n  Nightly export to Acme, run by the data team at 02:00 UTC\n  Second line\n')
    await run('passcodes', 'create', '--account', 'acc_described', '--name', 'Plain', '--expiry', '30')
    const listed = (await run('passcodes', 'list', '--account', 'acc_described')).stdout.split('\n')
    expect(listed[0]).toMatch(/\sLAST USED\s+DESCRIPTION$/)
    expect(listed.find((line) => line.includes(' Export '))).toMatch(/ Nightly export to Acme, run by the data…$/)
    const edited = await run('passcodes', 'edit', 'Export', '--account', 'acc_described', '--description', 'Short', '--json')
    expect(JSON.parse(edited.stdout)).toMatchObject({ passcode: { description: 'Short' } })
    const cleared = await run('passcodes', 'edit', 'Export', '--account', 'acc_described', '--description', '', '--json')
    expect(JSON.parse(cleared.stdout)).toMatchObject({ passcode: { description: '' } })
    expect((await run('passcodes', 'list', '--account', 'acc_described')).stdout.split('\n')[0]).toMatch(/LAST USED$/)
    const bad = await run('passcodes', 'edit', 'Export', '--account', 'acc_described', '--description', 'a\tb', '--json')
    expect(bad.code).toBe(3)
    expect(JSON.parse(bad.stderr)).toMatchObject({ error: { code: 'ERR_INVALID_INPUT', field: 'description' } })
  })
})

describe('SPEC 5.48, 5.49, 5.51: passcodes with scopes, address ranges, metadata and tags', () => {
  const account = ['--account', 'acc_restricted']
  interface Restricted {
    name: string
    scopes: string[] | null
    allowedAddresses: string[]
    metadata: unknown
    tags: string[]
  }
  const json = (stdout: string) => (JSON.parse(stdout) as { passcode: Restricted }).passcode

  it('creates with --scope (repeated or a comma list), --allow-address, --metadata and --tag, shows them, and the server enforces the ranges', async () => {
    const created = await run(
      'passcodes',
      'create',
      ...account,
      '--name',
      'Fenced',
      '--expiry',
      '30',
      '--scope',
      'events:read',
      '--allow-address',
      '192.0.2.0/24',
      '--allow-address',
      '2001:db8::/32',
      '--metadata',
      '{"plan":"gold","customerId":"cus_42"}',
      '--tag',
      'Billing',
      '--tag',
      'eu',
    )
    expect(created.code).toBe(0)
    expect(created.stdout).toContain(
      '\n  Scopes: events:read\n  Allowed addresses: 192.0.2.0/24, 2001:db8::/32\n  Tags: billing, eu\n  Metadata: {"plan":"gold","customerId":"cus_42"}\n',
    )
    const value = /^ {2}(psc_\S+)$/m.exec(created.stdout)![1]!
    // The server sees 127.0.0.1: outside both ranges (SPEC 5.49's 403, byte for byte).
    const response = await fetch(`${server.url}/v1/connect?partner=acme`, {
      headers: { 'X-Service-Account-Id': 'acc_restricted', 'X-Service-Passcode': value },
    })
    expect([response.status, await response.text()]).toEqual([403, '{"status":"fail","error":"Address not allowed","code":403}'])
    const both = await run('passcodes', 'create', ...account, '--name', 'Both', '--expiry', '30', '--scope', 'events:write, events:read', '--json')
    expect(json(both.stdout)).toMatchObject({ scopes: ['events:read', 'events:write'], allowedAddresses: [], metadata: null, tags: [] })
    const listed = (await run('passcodes', 'list', ...account)).stdout.split('\n')
    expect(listed[0]).toMatch(/\sLAST USED\s+RESTRICTED TO\s+TAGS$/)
    expect(listed.find((line) => line.includes(' Fenced '))).toMatch(/ events:read; 2 address ranges\s+billing, eu$/)
    expect(listed.find((line) => line.includes(' Both '))).toMatch(/ events:read, events:write\s*$/)
  })

  it('edits them: --all-scopes, --any-address, --no-tags and --metadata null clear; new --tag values replace the old', async () => {
    const edited = await run('passcodes', 'edit', 'Fenced', ...account, '--scope', 'events:write', '--tag', 'us', '--json')
    expect(json(edited.stdout)).toMatchObject({ scopes: ['events:write'], allowedAddresses: ['192.0.2.0/24', '2001:db8::/32'], tags: ['us'] })
    const cleared = await run('passcodes', 'edit', 'Fenced', ...account, '--all-scopes', '--any-address', '--no-tags', '--metadata', 'null', '--json')
    expect(json(cleared.stdout)).toMatchObject({ scopes: null, allowedAddresses: [], metadata: null, tags: [] })
    const plain = await run('passcodes', 'edit', 'Fenced', ...account, '--metadata', '{"plan":"silver"}')
    expect(plain.stdout).toMatch(/^Updated passcode "Fenced" .*\.\n {2}Metadata: \{"plan":"silver"\}\n$/)
  })

  it('lists by --tag (every one given) and --search (name, description or tag, any case)', async () => {
    await run('passcodes', 'create', ...account, '--name', 'Acme export', '--expiry', '30', '--tag', 'billing', '--tag', 'nightly')
    await run('passcodes', 'create', ...account, '--name', 'Other', '--expiry', '30', '--tag', 'billing', '--description', 'For ACME support')
    const names = async (...filters: string[]) => {
      const result = await run('passcodes', 'list', ...account, '--json', ...filters)
      return (JSON.parse(result.stdout) as { passcodes: { name: string }[] }).passcodes.map((p) => p.name)
    }
    expect(await names('--tag', 'billing')).toEqual(['Acme export', 'Other'])
    expect(await names('--tag', 'billing', '--tag', 'nightly')).toEqual(['Acme export'])
    expect(await names('--search', 'acme')).toEqual(['Acme export', 'Other'])
    expect(await names('--search', 'NIGHT')).toEqual(['Acme export'])
    expect((await run('passcodes', 'list', ...account, '--search', 'nothing like it')).stdout).toBe('No passcodes in account acc_restricted match.\n')
    // A tag the rule refuses is named as --tag gives it (tags.N), not by the service's options object.
    const badTag = await run('passcodes', 'list', ...account, '--tag', 'billing', '--tag=-x', '--json')
    expect(JSON.parse(badTag.stderr)).toMatchObject({
      error: { code: 'ERR_INVALID_INPUT', field: 'tags.1', message: expect.stringMatching(/^Invalid tags\.1: /) },
    })
  })

  it('refuses bad input naming the field, and writes nothing', async () => {
    const create = (...flags: string[]) => run('passcodes', 'create', ...account, '--name', 'Bad', '--expiry', '30', '--json', ...flags)
    const [unknownScope, hostBits, tooMany, bigMetadata, notObject, longTag, both, noScope] = await Promise.all([
      create('--scope', 'events:delete'),
      create('--allow-address', '192.0.2.1/24'),
      create(...Array.from({ length: 51 }, (_, i) => ['--allow-address', `10.0.${i}.0/24`]).flat()),
      create('--metadata', JSON.stringify({ blob: 'x'.repeat(1100) })),
      create('--metadata', '["a"]'),
      create('--tag', 't'.repeat(33)),
      create('--scope', 'events:read', '--all-scopes'),
      create('--scope', ' , '),
    ])
    const field = (result: { stderr: string }) =>
      (JSON.parse(result.stderr) as { error: { code: string; field?: string; setting?: string; message: string } }).error
    expect(field(unknownScope)).toMatchObject({ code: 'ERR_INVALID_INPUT', field: 'scopes', message: expect.stringContaining('"events:delete"') })
    expect(field(hostBits)).toMatchObject({ code: 'ERR_INVALID_INPUT', field: expect.stringMatching(/^allowedAddresses/) })
    expect(field(tooMany)).toMatchObject({ code: 'ERR_INVALID_INPUT', field: 'allowedAddresses' })
    expect(field(bigMetadata)).toMatchObject({ code: 'ERR_INVALID_INPUT', field: 'metadata' })
    expect(field(notObject)).toMatchObject({ code: 'ERR_USAGE', setting: '--metadata' })
    expect(field(longTag)).toMatchObject({ code: 'ERR_INVALID_INPUT', field: expect.stringMatching(/^tags/) })
    expect(field(both)).toMatchObject({ code: 'ERR_USAGE', message: '"passcodes create" takes --scope or --all-scopes, not both' })
    expect(field(noScope)).toMatchObject({ code: 'ERR_USAGE', setting: '--scope' })
    expect((await listJson('acc_restricted')).map((p) => p.name)).not.toContain('Bad')
  })

  it('users grant takes --scope and --allow-address', async () => {
    const granted = await run(
      'users',
      'grant',
      'u_scoped',
      ...account,
      '--validity',
      '30',
      '--scope',
      'events:read',
      '--allow-address',
      '198.51.100.0/24',
    )
    expect(granted.code).toBe(0)
    expect(granted.stdout).toContain('\n  Scopes: events:read\n  Allowed addresses: 198.51.100.0/24\n')
  })

  it('a command run alone reads the declared scopes from PASSCODE_AUTH_SCOPES, and a bad declaration names the setting', async () => {
    const alone = (env: Record<string, string>, ...flags: string[]) =>
      cli(['passcodes', 'create', '--account', 'acc_alone', '--name', `Alone ${flags.length}`, '--expiry', '30', '--json', ...flags], {
        dataDir: full.dir,
        env,
      })
    const declared = await alone({ PASSCODE_AUTH_SCOPES: 'reports:read=Read reports,reports:write=Write reports' }, '--scope', 'reports:read')
    expect(declared.code).toBe(0)
    expect(json(declared.stdout).scopes).toEqual(['reports:read'])
    const bad = await alone({ PASSCODE_AUTH_SCOPES: 'Reports=Read reports' })
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain('Invalid setting PASSCODE_AUTH_SCOPES (environment variable): entry 1 must be <name>=<description>')
    const twice = await alone({ PASSCODE_AUTH_SCOPES: 'a=A,a=B' })
    expect(twice.stderr).toContain('entry 2 declares a a second time')
  })
})

describe('SPEC 5.50 passcodes create, edit and users grant with --rate-limit, --credits and --refill', () => {
  it('sets them at create, changes and removes them at edit, grants them, and refuses a form that is not one', async () => {
    const created = await run(
      'passcodes',
      'create',
      '--account',
      'acc_limits',
      '--name',
      'Free plan',
      '--expiry',
      '30',
      '--rate-limit',
      '10/1',
      '--credits',
      '1000',
      '--refill',
      'month:1000',
      '--json',
    )
    expect(created.code).toBe(0)
    expect(JSON.parse(created.stdout)).toMatchObject({
      passcode: { rateLimit: { max: 10, windowSeconds: 1 }, credits: { remaining: 1000, refill: { amount: 1000, interval: 'month' } } },
    })
    const edited = await run('passcodes', 'edit', 'Free plan', '--account', 'acc_limits', '--no-rate-limit', '--credits', '7', '--json')
    expect(JSON.parse(edited.stdout)).toMatchObject({ passcode: { rateLimit: null, credits: { remaining: 7, refill: null } } })
    const removed = await run('passcodes', 'edit', 'Free plan', '--account', 'acc_limits', '--no-credits', '--json')
    expect(JSON.parse(removed.stdout)).toMatchObject({ passcode: { rateLimit: null, credits: null } })
    for (const flags of [
      ['--credits', '1.5'],
      ['--refill', 'month:5'],
      ['--credits', '5', '--refill', 'year:5'],
      ['--rate-limit', '100'],
    ]) {
      const refused = await run('passcodes', 'edit', 'Free plan', '--account', 'acc_limits', ...flags, '--json')
      expect(refused.code).toBe(2)
      expect(JSON.parse(refused.stderr)).toMatchObject({ error: { code: 'ERR_USAGE' } })
    }
    // A form that is one, with a number out of range: the service's rule, naming the field.
    const zero = await run('passcodes', 'edit', 'Free plan', '--account', 'acc_limits', '--rate-limit', '5/0', '--json')
    expect(zero.code).toBe(3)
    expect(JSON.parse(zero.stderr)).toMatchObject({ error: { code: 'ERR_INVALID_INPUT', field: 'rateLimit.windowSeconds' } })
    const granted = await run('users', 'grant', 'u_limits', '--account', 'acc_limits', '--validity', '30', '--credits', '3', '--json')
    expect(granted.code).toBe(0)
    expect(JSON.parse(granted.stdout)).toMatchObject({ userPasscode: { credits: { remaining: 3 } } })
  })
})
