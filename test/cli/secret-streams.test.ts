import { readFileSync, statSync } from 'node:fs'
import path from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { isLoopbackHost, serverConfig } from '../../src/cli/config'
import { parseCommandLine } from '../../src/cli/run-cli'
import {
  cliProcess,
  curlLineIn,
  demoOwingDataFolder,
  headersOfCurlLine,
  loginLinkIn,
  serve,
  shownText,
  type CliRun,
  type RunningServer,
} from './cli-process'

/**
 * SPEC §5.35, from the outside: the built command in its own process with stdout and
 * stderr piped (as in a container), for `serve`, `serve --json` and a start that
 * fails. No passcode value, login token, session ID, key or pepper reaches either
 * stream, even after a request on every route; what a person must see is in the data
 * folder's owner-only shown.txt, whose path is printed. The dashboard is served on a
 * loopback --host only unless --dashboard says otherwise.
 */

const folders: { dir: string; remove(): void }[] = []
let text: RunningServer
let json: RunningServer
let failed: CliRun
const DB_PASSWORD = 'db-password-5ecret'
const PEPPER = 'pepper-5ecret-0123456789abcdef'
const KEY = `k9:${Buffer.alloc(32, 7).toString('base64url')}`

beforeAll(async () => {
  folders.push(...(await Promise.all([demoOwingDataFolder(), demoOwingDataFolder()])))
  ;[text, json, failed] = await Promise.all([
    serve(folders[0]!.dir),
    serve(folders[1]!.dir, ['--json', '--host', '0.0.0.0']),
    // Port 1 answers nothing: the start fails after every setting was read.
    cliProcess(['serve', '--port', '0'], {
      env: { DATABASE_URL: `postgres://app:${DB_PASSWORD}@127.0.0.1:1/app`, PASSCODE_AUTH_PEPPER: PEPPER, PASSCODE_AUTH_ENCRYPTION_KEYS: KEY },
    }),
  ])
}, 120_000)

afterAll(async () => {
  await Promise.all([text?.stop(), json?.stop()])
  for (const folder of folders) folder.remove()
})

/** Every secret of a data folder and of a run: the pepper and keys of secrets.json, the values shown once. */
function secretsOf(dir: string, shown: string): string[] {
  const stored = JSON.parse(readFileSync(path.join(dir, 'secrets.json'), 'utf8')) as { pepper: string; encryptionKeys: string; auditKeys: string }
  const token = loginLinkIn(shown).split('token=')[1]
  const value = headersOfCurlLine(curlLineIn(shown)).headers['X-Service-Passcode']
  return [
    stored.pepper,
    ...stored.encryptionKeys.split(',').map((entry) => entry.split(':')[1]!),
    ...stored.auditKeys.split(',').map((entry) => entry.split(':')[1]!),
    ...(token ? [token] : []),
    ...(value ? [value] : []),
  ]
}

/** No secret, nor anything shaped like one, in `streams`. */
function expectClean(streams: string, secrets: readonly string[]): void {
  expect(streams).not.toMatch(/psc_[A-Za-z0-9]{20,}/)
  expect(streams).not.toContain('token=')
  expect(streams).not.toContain('passcode_auth_dashboard=')
  for (const secret of secrets) expect(streams).not.toContain(secret)
}

describe('SPEC 5.35 serve with stdout and stderr piped', () => {
  it('writes the demo passcode and the login link to an owner-only file, prints its path, and no secret on either stream after a request on every route', async () => {
    const dir = folders[0]!.dir
    const shown = await shownText(dir, 'token=')
    const file = path.join(dir, 'shown.txt')
    expect(statSync(file).mode & 0o777).toBe(0o600)
    const demo = headersOfCurlLine(curlLineIn(shown))
    const link = loginLinkIn(shown)
    expect(demo.headers['X-Service-Passcode']).toMatch(/^psc_/)
    expect(link.startsWith(`${text.url}/settings/login?token=`)).toBe(true)

    const wrong = { ...demo.headers, 'X-Service-Passcode': `${demo.headers['X-Service-Passcode']!.slice(0, -2)}xx` }
    const requests: [string, RequestInit][] = [
      [demo.url, { headers: demo.headers }],
      [demo.url, { headers: wrong }],
      [`${text.url}/v1/connect?partner=globex`, { headers: demo.headers }],
      [`${text.url}/v1/connect`, { method: 'OPTIONS' }],
      [`${text.url}/1/events.json`, { headers: demo.headers }],
      [`${text.url}/healthz`, {}],
      [`${text.url}/favicon.ico`, {}],
      [`${text.url}/nowhere`, {}],
      [link, { method: 'HEAD' }],
    ]
    for (const [url, init] of requests) await (await fetch(url, { redirect: 'manual', ...init })).arrayBuffer()
    const login = await fetch(link, { redirect: 'manual' })
    expect(login.status).toBe(303)
    const session = (login.headers.get('set-cookie') ?? '').split(';')[0]!
    const headers = { cookie: session, origin: text.url }
    for (const target of ['/settings/', '/settings/api/account', '/settings/api/passcodes']) {
      expect((await fetch(`${text.url}${target}`, { headers })).status).toBe(200)
    }
    const created = await fetch(`${text.url}/settings/api/passcodes`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'From the dashboard', expiry: 30 }),
    })
    expect(created.status).toBe(201)
    const { value } = (await created.json()) as { value: string }
    await (await fetch(`${text.url}/settings/logout`, { method: 'POST', headers, redirect: 'manual' })).arrayBuffer()
    await sleep(200)

    expectClean(text.stdout() + text.stderr(), [...secretsOf(dir, shown), session.split('=')[1]!, value])
    expect(text.stderr()).toContain(`${file} (readable by you only), not printed.`)
  })
})

describe('SPEC 5.35 serve --json with stdout and stderr piped, on 0.0.0.0', () => {
  it('prints one JSON document without a value, a link or a token; the dashboard is off and nothing makes a link', async () => {
    const dir = folders[1]!.dir
    const shown = await shownText(dir, 'curl ')
    for (let waited = 0; !json.stderr().includes('shown.txt') && waited < 5_000; waited += 20) await sleep(20)
    const document = JSON.parse(json.stdout()) as Record<string, unknown>
    expect(document).toMatchObject({
      status: 'listening',
      dashboard: { enabled: false },
      demo: { accountId: 'acc_demo', partner: 'demo-partner', passcodeName: 'Demo passcode' },
      shownFile: path.join(dir, 'shown.txt'),
    })
    expect(loginLinkIn(shown)).toBe('')
    const url = /listening on (\S+)/.exec(json.stdout())?.[1] ?? (document.url as string)
    for (const target of ['/settings/', '/settings/login?token=x', '/settings/api/passcodes']) {
      expect((await fetch(`${url}${target}`, { redirect: 'manual' })).status).toBe(404)
    }
    expectClean(json.stdout() + json.stderr(), secretsOf(dir, shown))
    expect(json.stderr()).toContain('the demo passcode is in')
  })
})

describe('SPEC 5.35 a start that fails', () => {
  it('exits with its code and names what failed, with no password, pepper or key on either stream', () => {
    expect(failed.code).toBe(5)
    expect(failed.stderr).toContain('Cannot connect to the PostgreSQL server of DATABASE_URL')
    expectClean(failed.stdout + failed.stderr, [DB_PASSWORD, PEPPER, KEY.split(':')[1]!])
  })
})

describe('SPEC 5.35 serve --dashboard, --no-dashboard and PASSCODE_AUTH_DASHBOARD', () => {
  const dashboardOf = (argv: string[], env: Record<string, string> = {}) =>
    serverConfig({ stdout: () => undefined, stderr: () => undefined, env, cwd: '/' }, parseCommandLine(['serve', ...argv]).flags).dashboard

  it('is on by default for a loopback --host only', () => {
    expect(dashboardOf([])).toBe(true)
    expect(dashboardOf(['--host', 'localhost'])).toBe(true)
    expect(dashboardOf(['--host', '::1'])).toBe(true)
    expect(dashboardOf(['--host', '0.0.0.0'])).toBe(false)
    expect(dashboardOf(['--host', '::'])).toBe(false)
    expect(dashboardOf(['--host', '10.0.0.5'])).toBe(false)
    expect(dashboardOf([], { PASSCODE_AUTH_HOST: '0.0.0.0' })).toBe(false)
    for (const host of ['127.0.0.1', '127.1.2.3', '[::1]', '0:0:0:0:0:0:0:1', '::ffff:127.0.0.1', 'LOCALHOST'])
      expect(isLoopbackHost(host), host).toBe(true)
    for (const host of ['0.0.0.0', '::', 'example.com', '128.0.0.1', '::2', '127.0.0.1.example.com']) expect(isLoopbackHost(host), host).toBe(false)
  })

  it('follows the flag, then the variable', () => {
    expect(dashboardOf(['--host', '0.0.0.0', '--dashboard'])).toBe(true)
    expect(dashboardOf(['--no-dashboard'])).toBe(false)
    expect(dashboardOf(['--host', '0.0.0.0'], { PASSCODE_AUTH_DASHBOARD: 'on' })).toBe(true)
    expect(dashboardOf([], { PASSCODE_AUTH_DASHBOARD: 'off' })).toBe(false)
    expect(dashboardOf(['--dashboard'], { PASSCODE_AUTH_DASHBOARD: 'off' })).toBe(true)
    expect(() => dashboardOf([], { PASSCODE_AUTH_DASHBOARD: 'maybe' })).toThrow(
      'Invalid setting PASSCODE_AUTH_DASHBOARD (environment variable): must be "on" or "off"',
    )
    expect(() => dashboardOf(['--dashboard', '--no-dashboard'])).toThrow('--dashboard and --no-dashboard cannot be given together')
  })
})
