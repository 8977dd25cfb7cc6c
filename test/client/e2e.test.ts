import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  type ConnectClientOptions,
  type ConnectError,
  createConnectClient,
  type FetchLike,
  InvalidCredentialsError,
  MissingPartnerError,
  PartnerNotWhitelistedError,
  PasscodeExpiredError,
  RateLimitedError,
  ServerError,
} from '../../src/client'
import type { RunningApp } from '../conformance/http'
import { createHttpFixture, type FailureMode, type HttpFixture } from '../http/fixture'
import { FRAMEWORKS } from '../http/frameworks'

/*
 * The client against real servers built with each adapter (Express 4/5, Fastify 4/5,
 * Koa 2/3) on 127.0.0.1: every row of SPEC §4, the 401 of §5.1 and the missing
 * partner of §5.3, through `connect()` and `check()`, and the 429 of the optional
 * limiter. Servers and credentials come from the HTTP conformance fixture, so the client
 * meets exactly what the adapters serve.
 */

interface Row {
  readonly name: string
  readonly storage?: FailureMode
  readonly partners?: FailureMode
  readonly accountId?: (f: HttpFixture) => string
  readonly passcode: (f: HttpFixture) => string
  readonly partner: string | undefined
  readonly expected:
    { readonly success: true; readonly expiresAt?: Date } | { readonly error: new (...args: never[]) => ConnectError; readonly fields: object }
}

const invalid = { error: InvalidCredentialsError, fields: { code: 'ERR_INVALID_CREDENTIALS', status: 400 } }

const ROWS: readonly Row[] = [
  { name: '§4 valid credentials, whitelisted partner → success', passcode: (f) => f.passcodes.active, partner: 'Acme', expected: { success: true } },
  // The user passcode is in its last 30 days: the service's Sunset header becomes expiresAt.
  {
    name: '§4 user passcode, partner in another case → success, with expiresAt',
    passcode: (f) => f.passcodes.user,
    partner: ' acme ',
    expected: { success: true, expiresAt: new Date(Date.UTC(2026, 0, 31)) },
  },
  { name: '§4 wrong passcode → InvalidCredentialsError', passcode: (f) => f.passcodes.unknown, partner: 'Acme', expected: invalid },
  {
    name: '§4 wrong account ID → InvalidCredentialsError',
    accountId: () => 'acc_nobody',
    passcode: (f) => f.passcodes.active,
    partner: 'Acme',
    expected: invalid,
  },
  { name: '§4 malformed passcode → InvalidCredentialsError', passcode: () => 'not-a-passcode', partner: 'Acme', expected: invalid },
  { name: '§4 deleted passcode → InvalidCredentialsError', passcode: (f) => f.passcodes.deleted, partner: 'Acme', expected: invalid },
  { name: '§4 revoked user passcode → InvalidCredentialsError', passcode: (f) => f.passcodes.revokedUser, partner: 'Acme', expected: invalid },
  {
    name: '§4 partner not whitelisted → PartnerNotWhitelistedError with the name',
    passcode: (f) => f.passcodes.active,
    partner: 'Globex',
    expected: { error: PartnerNotWhitelistedError, fields: { code: 'ERR_PARTNER_NOT_WHITELISTED', status: 403, partner: 'Globex' } },
  },
  {
    name: '§5.2 wrong credentials and an unlisted partner → InvalidCredentialsError',
    passcode: (f) => f.passcodes.unknown,
    partner: 'Globex',
    expected: invalid,
  },
  {
    name: '§4 storage failing → ServerError 503',
    storage: 'throws',
    passcode: (f) => f.passcodes.unknown,
    partner: 'Acme',
    expected: { error: ServerError, fields: { code: 'ERR_SERVER', status: 503 } },
  },
  {
    name: '§4 storage past its deadline → ServerError 504',
    storage: 'hangs',
    passcode: (f) => f.passcodes.unknown,
    partner: 'Acme',
    expected: { error: ServerError, fields: { code: 'ERR_SERVER', status: 504 } },
  },
  {
    name: '§4 partner registry failing → ServerError 503',
    partners: 'throws',
    passcode: (f) => f.passcodes.active,
    partner: 'Acme',
    expected: { error: ServerError, fields: { status: 503 } },
  },
  {
    name: '§5.1 expired passcode → PasscodeExpiredError (401)',
    passcode: (f) => f.passcodes.expired,
    partner: 'Acme',
    expected: { error: PasscodeExpiredError, fields: { code: 'ERR_PASSCODE_EXPIRED', status: 401 } },
  },
  {
    name: '§5.3 no partner → MissingPartnerError',
    passcode: (f) => f.passcodes.active,
    partner: undefined,
    expected: { error: MissingPartnerError, fields: { code: 'ERR_MISSING_PARTNER', status: 400 } },
  },
]

describe.each(FRAMEWORKS.map((framework) => [framework.name, framework] as const))('client against %s', (_name, framework) => {
  let fixture: HttpFixture
  let app: RunningApp

  beforeAll(async () => {
    fixture = await createHttpFixture()
    app = await framework.start(fixture.auth)
  })
  afterAll(async () => {
    await app?.close()
    await fixture?.close()
  })

  const clientFor = (row: Row, extra: Partial<ConnectClientOptions> = {}) =>
    createConnectClient({
      region: 'local',
      regions: { local: `http://127.0.0.1:${app.port}`, elsewhere: 'http://192.0.2.1' },
      accountId: row.accountId?.(fixture) ?? fixture.accountId,
      passcode: row.passcode(fixture),
      retry: false,
      timeoutMs: 5_000,
      ...extra,
    } as ConnectClientOptions)

  async function withModes<T>(row: Row, run: () => Promise<T>): Promise<T> {
    fixture.setStorage(row.storage ?? 'normal')
    fixture.setPartners(row.partners ?? 'normal')
    try {
      return await run()
    } finally {
      fixture.setStorage('normal')
      fixture.setPartners('normal')
    }
  }

  it.each(ROWS.map((row) => [row.name, row] as const))('%s', async (_rowName, row) => {
    const client = clientFor(row)
    const outcome = await withModes(row, () =>
      client.connect(row.partner).then(
        (value) => ({ value }),
        (error: unknown) => ({ error }),
      ),
    )
    const checked = await withModes(row, () => client.check(row.partner))

    if ('success' in row.expected) {
      const { expiresAt } = row.expected
      const success = { status: 'success', message: 'Authorised Successfully.', ...(expiresAt === undefined ? {} : { expiresAt }) }
      expect(outcome).toEqual({ value: success })
      expect(checked).toEqual({ ok: true, ...success })
      return
    }
    expect('error' in outcome && outcome.error).toBeInstanceOf(row.expected.error)
    expect('error' in outcome && outcome.error).toMatchObject(row.expected.fields)
    expect(checked.ok).toBe(false)
    if (!checked.ok) {
      expect(checked.error).toBeInstanceOf(row.expected.error)
      expect(checked.code).toBe(checked.error.code)
    }
  })

  it('retries a 503 from the real server and then succeeds', async () => {
    const row = ROWS[0]!
    let calls = 0
    // The registry fails for the first request only: the server answers 503, then 200.
    fixture.setPartners('throws')
    const recovering: FetchLike = async (input, init) => {
      calls++
      const response = await fetch(input, init)
      fixture.setPartners('normal')
      return response
    }
    try {
      const client = clientFor(row, { fetch: recovering, retry: { retries: 2, baseDelayMs: 5, maxDelayMs: 20 } })
      await expect(client.connect('Acme')).resolves.toEqual({ status: 'success', message: 'Authorised Successfully.' })
      expect(calls).toBe(2)
    } finally {
      fixture.setPartners('normal')
    }
  })

  it('gets a RateLimitedError from a service with the limiter on, once its address used up its failures, and does not retry it', async () => {
    // A service of its own: the shared one has no limiter. Its clock stands still, so Retry-After is the whole window.
    const limited = await createHttpFixture({ rateLimit: { windowMs: 60_000, maxFailuresPerAddress: 2, maxFailuresPerAccount: false } })
    const limitedApp = await framework.start(limited.auth)
    try {
      let calls = 0
      const counting: FetchLike = (input, init) => {
        calls++
        return fetch(input, init)
      }
      const client = (passcode: string) =>
        createConnectClient({
          baseUrl: `http://127.0.0.1:${limitedApp.port}`,
          accountId: limited.accountId,
          passcode,
          fetch: counting,
          retry: { retries: 2, baseDelayMs: 5, maxDelayMs: 20 },
          timeoutMs: 5_000,
        })
      for (let i = 0; i < 2; i++) await expect(client(limited.passcodes.unknown).connect('Acme')).rejects.toBeInstanceOf(InvalidCredentialsError)
      calls = 0
      // A limited address is shed before any credential check: the right passcode gets the 429 too
      // (SPEC §5.21; an account's failures alone never refuse valid credentials).
      const error = await client(limited.passcodes.active)
        .connect('Acme')
        .catch((e: unknown) => e)
      expect(error).toBeInstanceOf(RateLimitedError)
      expect(error).toMatchObject({ code: 'ERR_RATE_LIMITED', status: 429, retryAfterMs: 60_000 })
      expect((error as RateLimitedError).retryAfterMs).toBeGreaterThan(0)
      expect(calls).toBe(1)
      expect(await client(limited.passcodes.active).check('Acme')).toMatchObject({ ok: false, code: 'ERR_RATE_LIMITED' })
    } finally {
      await limitedApp.close()
      await limited.close()
    }
  })
})
