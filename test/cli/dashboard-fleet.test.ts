import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { postgresAvailability, startTestPostgres, type TestPostgres } from '../helpers/postgres'
import { commandName } from '../../src/cli/command-name'
import { cli, linkMadeBy, serveInProcess, type ServeUnderTest } from './cli-process'

/**
 * SPEC §5.35 on a real PostgreSQL: two `serve --dashboard` instances on one database
 * (in this process, each with its own connections, as in its own). Login links and
 * sessions are rows of the store, as hashes: a link made by the CLI, with no server
 * involved, opens on either instance, once across both; a HEAD never uses it up; the
 * session works on the other instance; a logout on one ends it on both; the cookie is
 * Secure when a trusted proxy says the request came over HTTPS.
 */

const availability = postgresAvailability()
const title = availability.available ? 'dashboard logins across a fleet' : `dashboard logins across a fleet (skipped: ${availability.reason})`

describe.skipIf(!availability.available)(title, () => {
  let database: TestPostgres
  const schema = `fleet_${randomBytes(4).toString('hex')}`
  let env: Record<string, string>
  let a: ServeUnderTest
  let b: ServeUnderTest

  beforeAll(async () => {
    database = await startTestPostgres()
    env = { DATABASE_URL: database.connectionString, PASSCODE_AUTH_DB_SCHEMA: schema, PASSCODE_AUTH_PEPPER: randomBytes(32).toString('base64url') }
    expect((await cli(['migrate'], { env })).code).toBe(0)
    ;[a, b] = await Promise.all([
      serveInProcess('/nonexistent', ['--quiet', '--dashboard', '--trust-proxy', 'loopback'], env),
      serveInProcess('/nonexistent', ['--quiet', '--dashboard'], env),
    ])
  }, 120_000)

  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()])
    if (database !== undefined) {
      const client = new pg.Client({ connectionString: database.connectionString })
      await client.connect()
      await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`)
      await client.end()
      await database.stop()
    }
  })

  /** A link made by the command straight in the database, for `server`'s URL. */
  async function link(server: ServeUnderTest, ...args: string[]): Promise<string> {
    const run = await cli(['dashboard', 'link', '--account', 'acc_fleet', '--url', server.url, '--json', ...args], { env })
    expect(run).toMatchObject({ code: 0, stderr: '' })
    const made = linkMadeBy(run)
    const minutes = (Date.parse(made.expiresAt) - Date.now()) / 60_000
    expect(minutes).toBeGreaterThan(14)
    expect(minutes).toBeLessThanOrEqual(15)
    return made.url
  }
  const onServer = (url: string, server: ServeUnderTest) => url.replace(/^http:\/\/[^/]+/, server.url)
  const open = (url: string, headers: Record<string, string> = {}) => fetch(url, { redirect: 'manual', headers })
  const api = (server: ServeUnderTest, cookie: string) => open(`${server.url}/settings/api/passcodes`, { cookie })

  it('prints no login link at start on PostgreSQL when stderr is not a terminal, and says how to make one', () => {
    for (const server of [a, b]) {
      expect(server.stderr()).toContain(`Make a dashboard login link with: ${commandName()} dashboard link --account acc_demo --url ${server.url}`)
      expect(server.stdout() + server.stderr()).not.toContain('token=')
    }
  })

  it('opens a link made by the CLI on one instance, once across both; the session works on the other', async () => {
    const url = await link(a)
    // A HEAD (a link preview) on either instance does not use it up.
    expect((await fetch(url, { method: 'HEAD', redirect: 'manual' })).status).toBe(200)
    expect((await fetch(onServer(url, b), { method: 'HEAD', redirect: 'manual' })).status).toBe(200)
    const login = await open(url)
    expect(login.status).toBe(303)
    const setCookie = login.headers.get('set-cookie') ?? ''
    expect(setCookie).toMatch(/^passcode_auth_dashboard=[A-Za-z0-9_-]{43}; Path=\/settings; HttpOnly; SameSite=Strict; Max-Age=43200$/)
    const cookie = setCookie.split(';')[0]!
    expect((await api(b, cookie)).status).toBe(200)
    expect((await api(a, cookie)).status).toBe(200)
    expect((await open(url)).status).toBe(401)
    expect((await open(onServer(url, b))).status).toBe(401)

    // A link made on one instance's URL opens on the other too: the store holds it.
    const other = await link(a)
    expect((await open(onServer(other, b))).status).toBe(303)
    expect((await open(other)).status).toBe(401)
  })

  it('keeps hashes only: no token or session ID in the table', async () => {
    const url = await link(b)
    const token = url.split('token=')[1]!
    const client = new pg.Client({ connectionString: database.connectionString })
    await client.connect()
    try {
      const { rows } = await client.query(`SELECT * FROM ${schema}.dashboard_logins`)
      expect(rows.length).toBeGreaterThan(0)
      expect(JSON.stringify(rows)).not.toContain(token)
      expect(rows.map((row: { kind: string }) => row.kind)).toContain('session')
    } finally {
      await client.end()
    }
  })

  it('ends the session on both instances with a logout on one, and refuses a cross-site logout', async () => {
    const cookie = ((await open(await link(b))).headers.get('set-cookie') ?? '').split(';')[0]!
    expect((await api(a, cookie)).status).toBe(200)
    const page = await (await open(`${a.url}/settings/`, { cookie })).text()
    expect(page).toContain('<form class="sign-out" method="post" action="/settings/logout"><button type="submit">Sign out</button></form>')
    const crossSite = await fetch(`${b.url}/settings/logout`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie, origin: 'https://evil.example' },
    })
    expect(crossSite.status).toBe(403)
    expect((await api(a, cookie)).status).toBe(200)
    const out = await fetch(`${b.url}/settings/logout`, { method: 'POST', redirect: 'manual', headers: { cookie, origin: b.url } })
    expect(out.status).toBe(200)
    expect(out.headers.get('set-cookie')).toBe('passcode_auth_dashboard=; Path=/settings; HttpOnly; SameSite=Strict; Max-Age=0')
    expect((await api(a, cookie)).status).toBe(401)
    expect((await api(b, cookie)).status).toBe(401)
  })

  it('marks the cookie Secure when a trusted proxy says the request came over HTTPS, and only then', async () => {
    const viaProxy = await open(await link(a), { 'x-forwarded-proto': 'https' })
    expect(viaProxy.headers.get('set-cookie')).toMatch(/; HttpOnly; SameSite=Strict; Max-Age=43200; Secure$/)
    // b trusts no proxy: the header is the client's own word.
    const untrusted = await open(onServer(await link(a), b), { 'x-forwarded-proto': 'https' })
    expect(untrusted.headers.get('set-cookie')).not.toContain('Secure')
  })
})
