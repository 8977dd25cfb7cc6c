import { readFileSync } from 'node:fs'
import path from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { serverConfig } from '../../src/cli/config'
import { parseCommandLine } from '../../src/cli/run-cli'
import { codeBlocks } from '../docs/markdown-blocks'
import {
  curlLineIn,
  demoOwingDataFolder,
  headersOfCurlLine,
  loginLinkIn,
  migratedDataFolder,
  requestLog,
  root,
  serve,
  serveInProcess,
  shownText,
  type ServeUnderTest,
} from './cli-process'

/**
 * The request log of `passcode-auth serve`: one JSON line per request on stdout when
 * stdout is not a terminal, from the real command in its own process (whether stdout
 * is a terminal is the process's own business); one line for a person with
 * `--log-format text`, from `serve` in this process; secrets shown to a person stay on
 * stderr. Both serve copies of a migrated data folder, the first one owing the demo.
 */

const folders: { dir: string; remove(): void }[] = []
let json: ServeUnderTest
let text: ServeUnderTest
let demo: { url: string; headers: Record<string, string> }
let loginLink: string

beforeAll(async () => {
  folders.push(...(await Promise.all([demoOwingDataFolder(), migratedDataFolder()])))
  ;[json, text] = await Promise.all([serve(folders[0]!.dir), serveInProcess(folders[1]!.dir, ['--log-format', 'text', '--trust-proxy', 'loopback'])])
  // Not on stderr, which is a pipe: in the data folder's owner-only shown.txt.
  const shown = await shownText(folders[0]!.dir, 'token=')
  demo = headersOfCurlLine(curlLineIn(shown))
  loginLink = loginLinkIn(shown)
}, 120_000)

afterAll(async () => {
  await Promise.all([json?.stop(), text?.stop()])
  for (const folder of folders) folder.remove()
})

/** The log entries of `server` with this request ID, once there are `count` of them (or 5 s passed). */
async function logged(server: ServeUnderTest, requestId: string, count = 1): Promise<Record<string, unknown>[]> {
  const find = () => requestLog(server.stdout()).filter((entry) => entry.requestId === requestId)
  for (let waited = 0; find().length < count && waited < 5_000; waited += 20) await sleep(20)
  return find()
}

const send = (server: ServeUnderTest, target: string, requestId: string, init: RequestInit = {}) =>
  fetch(`${server.url}${target}`, {
    redirect: 'manual',
    ...init,
    headers: { 'x-request-id': requestId, ...(init.headers as Record<string, string>) },
  })

describe('the request log of serve', () => {
  it('writes exactly one JSON line per request on every route: method, path, status, duration, reason, request ID', async () => {
    const wrong = { ...demo.headers, 'X-Service-Passcode': `${demo.headers['X-Service-Passcode']!.slice(0, -1)}#` }
    const cases: [string, RequestInit, Record<string, unknown>][] = [
      [demo.url.slice(json.url.length), { headers: demo.headers }, { method: 'GET', path: '/v1/connect', status: 200 }],
      [demo.url.slice(json.url.length), { headers: wrong }, { method: 'GET', path: '/v1/connect', status: 400, reason: 'checksum_mismatch' }],
      [
        '/v1/connect?partner=globex',
        { headers: demo.headers },
        { method: 'GET', path: '/v1/connect', status: 403, reason: 'partner_not_whitelisted' },
      ],
      ['/v1/connect', { method: 'PUT' }, { method: 'PUT', path: '/v1/connect', status: 405, reason: 'method_not_allowed' }],
      ['/1/events.json', { headers: demo.headers }, { method: 'GET', path: '/1/events.json', status: 200 }],
      ['/1/events.json', {}, { method: 'GET', path: '/1/events.json', status: 400, reason: 'malformed_credentials' }],
      ['/healthz', { method: 'HEAD' }, { method: 'HEAD', path: '/healthz', status: 200 }],
      ['/healthz', { method: 'POST' }, { method: 'POST', path: '/healthz', status: 405 }],
      ['/nowhere?id=1', {}, { method: 'GET', path: '/nowhere', status: 404 }],
      ['/settings/api/passcodes', {}, { method: 'GET', path: '/settings/api/passcodes', status: 401 }],
      ['/settings/assets/dashboard.js', {}, { method: 'GET', path: '/settings/assets/dashboard.js', status: 200 }],
      ['/settings/login?token=not-a-token', {}, { method: 'GET', path: '/settings/login', status: 401 }],
    ]
    for (const [index, [target, init, expected]] of cases.entries()) {
      const response = await send(json, target, `case-${index}`, init)
      expect(response.headers.get('x-request-id')).toBe(`case-${index}`)
      await response.arrayBuffer()
      const entries = await logged(json, `case-${index}`)
      expect(entries).toEqual([
        {
          time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
          ...expected,
          durationMs: expect.any(Number),
          requestId: `case-${index}`,
        },
      ])
    }
    // Still one line each once every answer and connection is long done.
    await sleep(100)
    for (const index of cases.keys()) expect(requestLog(json.stdout()).filter((entry) => entry.requestId === `case-${index}`)).toHaveLength(1)
    // After the banner, stdout is the log and nothing else.
    const after = json.stdout().slice(json.stdout().indexOf('Stop with Ctrl+C.\n') + 'Stop with Ctrl+C.\n'.length)
    for (const line of after.trimEnd().split('\n')) expect(() => JSON.parse(line)).not.toThrow()
  })

  it('takes a well-formed X-Request-Id, and replaces a malformed one with a UUID it sends back and logs', async () => {
    const malformed = 'has spaces and "quotes"'
    const response = await send(json, '/healthz', malformed)
    const id = response.headers.get('x-request-id')!
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
    expect(await logged(json, id)).toEqual([expect.objectContaining({ path: '/healthz', status: 200, requestId: id })])
    const long = 'x'.repeat(129)
    expect((await send(json, '/healthz', long)).headers.get('x-request-id')).not.toBe(long)
    await sleep(100)
    expect(json.stdout()).not.toContain(malformed)
    expect(json.stdout()).not.toContain(long)
  })

  it('never logs a header value, a query, the demo passcode or the login token', async () => {
    const secrets = { authorization: 'Bearer header-secret-1', cookie: 'passcode_auth_dashboard=header-secret-2', 'user-agent': 'header-secret-3' }
    await (await send(json, '/1/events.json?api_key=query-secret', 'no-secrets-1', { headers: { ...demo.headers, ...secrets } })).arrayBuffer()
    const login = await fetch(loginLink, { redirect: 'manual', headers: { 'x-request-id': 'no-secrets-2' } })
    expect(login.status).toBe(303)
    const session = (login.headers.get('set-cookie') ?? '').split(';')[0]!
    await (await send(json, '/settings/api/account', 'no-secrets-3', { headers: { cookie: session } })).arrayBuffer()
    expect((await logged(json, 'no-secrets-3')).map((entry) => entry.status)).toEqual([200])
    expect((await logged(json, 'no-secrets-2')).map((entry) => [entry.path, entry.status])).toEqual([['/settings/login', 303]])
    const stdout = json.stdout()
    for (const secret of [
      ...Object.values(secrets),
      'query-secret',
      demo.headers['X-Service-Passcode']!,
      loginLink.split('token=')[1]!,
      session.split('=')[1]!,
    ]) {
      expect(stdout).not.toContain(secret)
    }
    expect(stdout).not.toContain('token=')
    // What is shown to a person is in the data folder's shown.txt, never on stderr (a pipe here).
    const shown = await shownText(folders[0]!.dir)
    expect(shown).toContain(demo.headers['X-Service-Passcode'])
    expect(shown).toContain(loginLink)
    expect(json.stderr()).not.toContain(demo.headers['X-Service-Passcode'])
    expect(json.stderr()).not.toContain('token=')
  })

  it('writes what README.md shows: a terminal line, and a JSON line with the same fields in the same order', async () => {
    const sample = codeBlocks(readFileSync(path.join(root, 'README.md'), 'utf8')).filter((block) => block.lang === 'text')[1]!
    const [textLine, jsonLine] = sample.code.split('\n')
    expect(readFileSync(path.join(root, 'docs/cli.md'), 'utf8')).toContain(sample.code)
    expect(textLine).toMatch(/^\d\d:\d\d:\d\d\.\d{3} GET \/v1\/connect 200 \d+(\.\d)? ms [0-9a-f-]{36}$/)
    await (
      await send(json, '/v1/connect?partner=demo-partner', 'readme-1', { headers: { ...demo.headers, 'X-Service-Passcode': 'psc_not-even-close' } })
    ).arrayBuffer()
    const [real] = await logged(json, 'readme-1')
    const shown = JSON.parse(jsonLine!) as Record<string, unknown>
    expect(Object.keys(shown)).toEqual(Object.keys(real!))
    for (const key of Object.keys(real!)) expect(typeof shown[key], key).toBe(typeof real![key])
    expect(shown).toMatchObject({ method: 'GET', path: '/v1/connect', status: 400, reason: 'checksum_mismatch' })
    expect(real).toMatchObject({ method: 'GET', path: '/v1/connect', status: 400, reason: 'checksum_mismatch' })
  })

  it('writes one line for a person with --log-format text (a terminal gets it by default), without colours off a terminal', async () => {
    await (await send(text, '/v1/connect?partner=demo-partner', 'text-1')).arrayBuffer()
    await (await send(text, '/healthz', 'text-2')).arrayBuffer()
    for (let waited = 0; !text.stdout().includes('text-2') && waited < 5_000; waited += 20) await sleep(20)
    const lines = text.stdout().split('\n')
    expect(lines.find((line) => line.endsWith(' text-1'))).toMatch(
      /^\d\d:\d\d:\d\d\.\d{3} GET \/v1\/connect 400 \d+(\.\d)? ms malformed_credentials text-1$/,
    )
    expect(lines.find((line) => line.endsWith(' text-2'))).toMatch(/^\d\d:\d\d:\d\d\.\d{3} GET \/healthz 200 \d+(\.\d)? ms text-2$/)
    expect(text.stdout()).not.toContain('\x1b[')
    expect(requestLog(text.stdout())).toEqual([])
    // --trust-proxy (test/cli/trust-proxy.test.ts) is named in the banner.
    expect(text.stdout()).toContain('\n  proxies  client address from X-Forwarded-For when the peer is loopback\n')
    expect(json.stdout()).not.toContain('proxies')
  })
})

describe('serve --log-format and PASSCODE_AUTH_LOG_FORMAT', () => {
  const logOf = (argv: string[], env: Record<string, string>, stdoutIsTTY: boolean) => {
    const { logFormat, logColor } = serverConfig(
      { stdout: () => undefined, stderr: () => undefined, env, cwd: '/', stdoutIsTTY },
      parseCommandLine(['serve', ...argv]).flags,
    )
    return [logFormat, logColor]
  }

  it('is text with colours on a terminal, JSON elsewhere', () => {
    expect(logOf([], {}, true)).toEqual(['text', true])
    expect(logOf([], {}, false)).toEqual(['json', false])
  })

  it('leaves colours out under NO_COLOR and off a terminal', () => {
    expect(logOf([], { NO_COLOR: '1' }, true)).toEqual(['text', false])
    expect(logOf(['--log-format', 'text'], {}, false)).toEqual(['text', false])
  })

  it('takes the flag over the variable, either way', () => {
    expect(logOf([], { PASSCODE_AUTH_LOG_FORMAT: 'json' }, true)).toEqual(['json', false])
    expect(logOf(['--log-format', 'text'], { PASSCODE_AUTH_LOG_FORMAT: 'json' }, true)).toEqual(['text', true])
    expect(() => logOf(['--log-format', 'pretty'], {}, true)).toThrow('Invalid setting --log-format: must be "text" or "json"')
    expect(() => logOf([], { PASSCODE_AUTH_LOG_FORMAT: 'xml' }, true)).toThrow(
      'Invalid setting PASSCODE_AUTH_LOG_FORMAT (environment variable): must be "text" or "json"',
    )
  })
})
