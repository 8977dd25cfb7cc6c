import { spawnSync } from 'node:child_process'
import { chmodSync, chownSync, lstatSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MIGRATIONS } from '../../src/stores/postgres/migrations'
import { createServer } from 'node:net'
import { cli, cliProcess, migratedDataFolder, serve, shownText, temporaryFolder, type CliRun, type RunningServer } from './cli-process'

/** The embedded data folder: migrations, its lock, its secrets. */

let folder: { dir: string; remove(): void }
const run = (args: string[], env: Record<string, string> = {}) => cli(args, { dataDir: folder.dir, env })
const lock = (pid: number, command: string) => writeFileSync(path.join(folder.dir, 'lock'), JSON.stringify({ pid, command }))

beforeAll(async () => {
  folder = await migratedDataFolder()
}, 120_000)

afterAll(() => folder?.remove())

describe('the data folder', () => {
  it('migrate reports an up-to-date schema', async () => {
    const human = await run(['migrate'])
    const latest = MIGRATIONS.at(-1)!.version
    expect(human).toMatchObject({ code: 0, stdout: `The schema in ${folder.dir} is up to date (version ${latest}).\n` })
    const json = await run(['migrate', '--json'])
    expect(JSON.parse(json.stdout)).toEqual({ applied: [], version: latest, location: folder.dir })
  })

  it('is used by one process at a time: a live holder makes a command wait, then fail with exit 5', async () => {
    lock(process.pid, 'passcodes create')
    try {
      const result = await run(['partners', 'list'], { PASSCODE_AUTH_LOCK_WAIT_MS: '500' })
      expect(result.code).toBe(5)
      expect(result.stderr).toContain(`Waiting for the data folder, in use by process ${process.pid} (passcodes create)`)
      expect(result.stderr).toContain(`error: The data folder ${folder.dir} is in use by process ${process.pid} (passcodes create)`)
    } finally {
      rmSync(path.join(folder.dir, 'lock'))
    }
  })

  it('takes over the lock of a process that no longer exists, and warns about a readable secrets file', async () => {
    const gone = spawnSync(process.execPath, ['-e', '']).pid
    lock(gone, 'serve')
    const secrets = path.join(folder.dir, 'secrets.json')
    chmodSync(secrets, 0o644)
    const result = await run(['partners', 'list'])
    expect(result).toMatchObject({ code: 0, stdout: 'No partner is whitelisted.\n' })
    expect(result.stderr).toBe(`warning: ${secrets} can be read by other users; run: chmod 600 ${secrets}\n`)
    chmodSync(secrets, 0o600)
  })

  it("refuses PASSCODE_AUTH_PREVIOUS_PEPPERS holding the data folder's own pepper, naming the setting, never the pepper", async () => {
    const { pepper } = JSON.parse(readFileSync(path.join(folder.dir, 'secrets.json'), 'utf8')) as { pepper: string }
    const result = await run(['partners', 'list'], { PASSCODE_AUTH_PREVIOUS_PEPPERS: `none,${pepper}` })
    expect(result.code).toBe(2)
    expect(result.stderr).toContain(
      `Invalid setting PASSCODE_AUTH_PREVIOUS_PEPPERS (environment variable): must not hold the current pepper (the pepper of ${folder.dir}) or the same pepper twice`,
    )
    expect(result.stdout + result.stderr).not.toContain(pepper)
  })

  it("takes PASSCODE_AUTH_NEXT_PEPPERS for a rolling pepper change: verify-only peppers, reported apart, never the data folder's own", async () => {
    const { pepper } = JSON.parse(readFileSync(path.join(folder.dir, 'secrets.json'), 'utf8')) as { pepper: string }
    const refused = await run(['partners', 'list'], { PASSCODE_AUTH_NEXT_PEPPERS: pepper })
    expect(refused.code).toBe(2)
    expect(refused.stderr).toContain(
      `Invalid setting PASSCODE_AUTH_NEXT_PEPPERS (environment variable): must not hold the current pepper (the pepper of ${folder.dir}) or the same pepper twice`,
    )
    expect(refused.stdout + refused.stderr).not.toContain(pepper)
    expect((await run(['peppers'], { PASSCODE_AUTH_NEXT_PEPPERS: 'none' })).stderr).toContain(
      'PASSCODE_AUTH_NEXT_PEPPERS (environment variable): must be up to 7 peppers',
    )

    const next = 'n'.repeat(32)
    const report = await run(['peppers', '--json'], { PASSCODE_AUTH_NEXT_PEPPERS: next })
    expect(report.code).toBe(0)
    expect(JSON.parse(report.stdout)).toMatchObject({ older: [], next: [0], unknown: 0 })
    const human = await run(['peppers'], { PASSCODE_AUTH_NEXT_PEPPERS: next })
    expect(human.stdout).toContain('0 under PASSCODE_AUTH_NEXT_PEPPERS entry 1 (verifies only')
    expect(human.stdout + human.stderr).not.toContain(next)
  })

  it('SPEC 5.47: `peppers` says an old pepper can go only at 0 under it and 0 under a pepper not known, as docs/security.md does', async () => {
    const created = await run(['passcodes', 'create', '--account', 'acc_peppers', '--name', 'Keyed by the folder', '--expiry', '30'])
    expect(created.code).toBe(0)
    // Neither pepper is the folder's: its hashes are under a pepper not known, none under the previous one.
    const rotated = { PASSCODE_AUTH_PEPPER: 'c'.repeat(32), PASSCODE_AUTH_PREVIOUS_PEPPERS: 'p'.repeat(32) }
    const report = JSON.parse((await run(['peppers', '--json'], rotated)).stdout) as { current: number; older: number[]; unknown: number }
    expect(report).toMatchObject({ current: 0, older: [0] })
    expect(report.unknown).toBeGreaterThanOrEqual(1)
    const human = await run(['peppers'], rotated)
    expect(human.code).toBe(0)
    expect(human.stdout).toContain(
      '0 under PASSCODE_AUTH_PREVIOUS_PEPPERS entry 1: keep it until the count under a pepper not known (below) is 0 too (it may have keyed those)',
    )
    expect(human.stdout).toContain(`${report.unknown} under a pepper not known`)
    expect(human.stdout).not.toContain('it can be removed')
    expect(human.stdout + human.stderr).not.toContain(rotated.PASSCODE_AUTH_PEPPER)
    // With the folder's pepper listed as previous, nothing is unknown: 0 under an old pepper and 0 unknown is when it can go.
    const { pepper } = JSON.parse(readFileSync(path.join(folder.dir, 'secrets.json'), 'utf8')) as { pepper: string }
    const empty = await run(['peppers'], { PASSCODE_AUTH_PEPPER: 'c'.repeat(32), PASSCODE_AUTH_PREVIOUS_PEPPERS: `${'p'.repeat(32)},${pepper}` })
    expect(empty.stdout).toContain('0 under PASSCODE_AUTH_PREVIOUS_PEPPERS entry 1: it can be removed\n')
    expect(empty.stdout).toContain('0 under a pepper not known')
    expect(empty.stdout + empty.stderr).not.toContain(pepper)
  })

  it('refuses a database whose pepper is lost, and opens it again with PASSCODE_AUTH_PEPPER', async () => {
    const file = path.join(folder.dir, 'secrets.json')
    const { pepper } = JSON.parse(readFileSync(file, 'utf8')) as { pepper: string }
    rmSync(file)
    const refused = await run(['partners', 'list'])
    expect(refused.code).toBe(5)
    expect(refused.stderr).toContain('holds a database but no secrets.json, and PASSCODE_AUTH_PEPPER is not set')
    const opened = await run(['partners', 'list'], { PASSCODE_AUTH_PEPPER: pepper })
    expect(opened.code).toBe(0)
    // The audit key went with secrets.json: a new one is made and said (records keyed before verify only with the old one, PASSCODE_AUTH_AUDIT_KEYS).
    expect(opened.stderr).toMatch(/^Generated an audit key into \S+secrets\.json \(mode 0600, values not shown\)/)
    expect(opened.stderr).not.toContain(pepper)
  })

  it('refuses, with exit 5, a data folder or database folder that other users can write to, saying how to fix it', async () => {
    const database = path.join(folder.dir, 'pgdata')
    for (const [target, what] of [
      [folder.dir, 'data folder'],
      [database, 'database folder'],
    ] as const) {
      for (const mode of [0o777, 0o770, 0o702]) {
        chmodSync(target, mode)
        try {
          const result = await run(['serve', '--port', '0'])
          expect(result.code).toBe(5)
          expect(result.stdout).toBe('')
          expect(result.stderr).toContain(`error: The ${what} ${target} can be written by other users (mode 0${mode.toString(8)})`)
          expect(result.stderr).toContain(`chmod -R go-rwx ${target}`)
        } finally {
          chmodSync(target, 0o700)
        }
      }
    }
    // Private again: no longer refused for its modes.
    expect((await run(['partners', 'list'])).stderr).not.toContain('can be written by other users')
  })

  it.runIf(process.getuid?.() === 0)('refuses, with exit 5, a data folder or database folder owned by another user', async () => {
    const database = path.join(folder.dir, 'pgdata')
    for (const [target, what] of [
      [folder.dir, 'data folder'],
      [database, 'database folder'],
    ] as const) {
      chownSync(target, 65534, 65534)
      try {
        const result = await run(['serve', '--port', '0'])
        expect(result.code).toBe(5)
        expect(result.stderr).toContain(`error: The ${what} ${target} belongs to another user (uid 65534, this process runs as uid 0)`)
        expect(result.stderr).toContain(`chown -R 0 ${target}`)
      } finally {
        chownSync(target, 0, 0)
      }
    }
  })

  it('reports a data folder that cannot be one', async () => {
    const parent = temporaryFolder()
    try {
      const file = path.join(parent.dir, 'a-file')
      writeFileSync(file, '')
      const result = await cli(['partners', 'list'], { dataDir: file })
      expect(result.code).toBe(5)
      expect(result.stderr).toContain(`error: Cannot use the data folder ${file}`)
    } finally {
      parent.remove()
    }
  })
})

describe('a new data folder, started twice under umask 000, first on a port in use', () => {
  // Both cases on one new folder (creating a database costs about 5 CPU-seconds): its
  // first start cannot listen, the second one serves. Both are processes under umask 000,
  // so that everything in the folder was created under it.
  let empty: { dir: string; remove(): void }
  let dir: string
  let port: number
  let failed: CliRun
  let server: RunningServer | undefined
  let stopped: number | null | undefined

  beforeAll(async () => {
    empty = temporaryFolder()
    dir = path.join(empty.dir, 'data')
    const busy = createServer()
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve))
    try {
      port = (busy.address() as { port: number }).port
      failed = await cliProcess(['serve', '--port', String(port)], { dataDir: dir, umask: '000' })
    } finally {
      busy.close()
    }
    server = await serve(dir, [], {}, { umask: '000' })
  }, 120_000)

  afterAll(async () => {
    if (stopped === undefined) await server?.stop()
    empty?.remove()
  })

  it('still owes the demo after a first start that could not listen', async () => {
    expect(failed.code).toBe(2)
    expect(failed.stderr).toContain(`error: Cannot listen on 127.0.0.1:${port} (EADDRINUSE); choose another --port or --host`)
    expect(await shownText(dir, 'curl ')).toMatch(/^ {2}curl -i .*partner=demo-partner'$/m)
  })

  it('gives the new database a 16MB buffer pool, in its postgresql.conf where the owner may change it', () => {
    const settings = readFileSync(path.join(dir, 'pgdata', 'postgresql.conf'), 'utf8')
    expect(settings.match(/^shared_buffers = \S+/gm)).toEqual(['shared_buffers = 16MB'])
  })

  it('creates everything in it owner-only, even under umask 000', async () => {
    const open: string[] = []
    const walk = (at: string): void => {
      const mode = lstatSync(at).mode
      if ((mode & 0o077) !== 0) open.push(`${path.relative(dir, at) || '.'} ${(mode & 0o777).toString(8)}`)
      if (lstatSync(at).isDirectory()) for (const name of readdirSync(at)) walk(path.join(at, name))
    }
    walk(dir)
    expect(readdirSync(dir)).toEqual(expect.arrayContaining(['pgdata', 'secrets.json', 'lock', 'serve.sock', 'shown.txt', '.gitignore']))
    // `git add .` in the project around it commits nothing of it.
    expect(readFileSync(path.join(dir, '.gitignore'), 'utf8').split('\n')).toContain('*')
    stopped = await server!.stop()
    expect(stopped).toBe(0)
    expect(open).toEqual([])
  })
})
