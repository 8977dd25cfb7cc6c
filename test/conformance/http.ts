import { METHODS } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { CorsOptions, PasscodeAuth } from '../../src/index'
import { createHttpFixture, type FailureMode, type HttpFixture } from '../http/fixture'
import { sendRaw, type RawRequest, type RawResponse } from '../http/raw-client'
import { describeCorsConformance } from './http-cors'
import { describeRateLimitConformance } from './http-rate-limit'

/**
 * The HTTP conformance suite: ONE table of cases (SPEC §4, §5.1–5.4, §5.15–5.17)
 * that every HTTP adapter must answer with the same status, the same body bytes and
 * the same two headers. Expected bodies are written out here as literal text, not
 * taken from src/protocol/outcomes.ts, so the suite checks the table rather than echoing it.
 */

/** What a case expects on the wire. */
export interface ExpectedResponse {
  readonly status: number
  /** Exact body text (UTF-8). */
  readonly body: string
  /** Exact headers; `undefined` means the header must be absent. */
  readonly headers: Readonly<Record<'content-type' | 'cache-control', string | undefined>>
  /** Exact `Allow` header, checked when given. */
  readonly allow?: string
  /** Exact `Sunset` header; `null` means it must be absent. */
  readonly sunset: string | null
}

/** One row of the table. */
export interface HttpCase {
  readonly name: string
  /** Storage reads throw or hang while the case runs. */
  readonly storage?: FailureMode
  /** The partner registry throws or hangs while the case runs. */
  readonly partners?: FailureMode
  /** The method the case sends, when not GET (see {@link HttpTarget.unroutableMethods}). */
  readonly method?: string
  request(fixture: HttpFixture): RawRequest
  expected(fixture: HttpFixture): ExpectedResponse
}

/** An app built with one framework version, serving `GET /v1/connect` and `GET /1/events.json`. */
export interface HttpTarget {
  readonly name: string
  /** Starts the app; `options.cors` goes to the adapter's connect route (SPEC §5.30). */
  start(auth: PasscodeAuth, options?: { readonly cors?: CorsOptions }): Promise<RunningApp>
  /**
   * Methods the framework's router cannot be made to route, with why: such a request
   * never reaches the adapter. The suite asserts that the framework answers 404 (so a
   * change is noticed) and leaves the target out of that case's byte comparison.
   */
  readonly unroutableMethods?: { readonly methods: readonly string[]; readonly because: string }
}

/**
 * Every method Node's HTTP parser accepts but GET and HEAD: each gets the 405 (SPEC
 * §5.20). CONNECT is left out: Node hands it to the server's `connect` event, never to
 * a request handler, so no framework sees it.
 */
export const OTHER_METHODS: readonly string[] = METHODS.filter((method) => !['GET', 'HEAD', 'CONNECT'].includes(method))

/** A started app on 127.0.0.1. */
export interface RunningApp {
  readonly port: number
  close(): Promise<void>
}

const PASSCODE_AUTH_HEADERS = { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' } as const
const answer = (status: number, body: string): ExpectedResponse => ({ status, body, headers: PASSCODE_AUTH_HEADERS, sunset: null })

const SUCCESS = answer(200, '{"status":"success","message":"Authorised Successfully."}')
const INVALID_CREDENTIALS = answer(400, '{"status":"fail","error":"Invalid Credentials","code":400}')
const EXPIRED = answer(401, '{"status":"fail","error":"Passcode expired","code":401}')
const MISSING_PARTNER = answer(400, '{"status":"fail","error":"Missing partner","code":400}')
const SERVER_ERROR_503 = answer(503, '{"status":"fail","error":"Server Error","code":503}')
const SERVER_ERROR_504 = answer(504, '{"status":"fail","error":"Server Error","code":504}')
const notWhitelisted = (echo: string) => answer(403, `{"status":"fail","error":${JSON.stringify(`Partner not whitelisted ${echo}`)},"code":403}`)
const principal = (value: object, sunset: string | null = null): ExpectedResponse => ({
  status: 200,
  body: JSON.stringify(value),
  headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': undefined },
  sunset,
})

type Headers = RawRequest['headers']
const credentials = (accountId: string, passcode: string): Headers => [
  ['X-Service-Account-Id', accountId],
  ['X-Service-Passcode', passcode],
]
const connect = (headers: Headers, query = '?partner=acme'): RawRequest => ({ target: `/v1/connect${query}`, headers })
const events = (headers: Headers): RawRequest => ({ target: '/1/events.json', headers })
// The route that needs `events:write` (SPEC §5.48), in every host of the suite.
const writeRoute = (headers: Headers): RawRequest => ({ target: '/1/events/write.json', headers })
const partnerQuery = (name: string) => `?partner=${encodeURIComponent(name)}`
const METHOD_NOT_ALLOWED: ExpectedResponse = { ...answer(405, '{"status":"fail","error":"Method Not Allowed","code":405}'), allow: 'GET, HEAD' }
const withMethod = (method: string, request: RawRequest): RawRequest => ({ ...request, method })

// 500 characters with C0 controls (NUL excluded: not valid in a URL), DEL and a C1 control.
const HOSTILE_PARTNER = `\u0001Evil\u0007Corp\u001b[31m\t\n\u007f\u0085${'p'.repeat(481)}`
const HOSTILE_PARTNER_ECHO = `EvilCorp[31m${'p'.repeat(116)}`
// The 128th code point is an emoji (two UTF-16 units): the cut keeps it whole.
const ASTRAL_PARTNER = `Zürich-${'y'.repeat(120)}😀tail`
const ASTRAL_PARTNER_ECHO = `Zürich-${'y'.repeat(120)}😀`
if (HOSTILE_PARTNER.length !== 500) throw new Error('the hostile partner name must be 500 characters')

/** Every case, each run against every target. */
export const HTTP_CASES: readonly HttpCase[] = [
  // SPEC §4: the four rows of the table.
  {
    name: '§4 valid credentials and whitelisted partner: 200',
    request: (f) => connect(credentials(f.accountId, f.passcodes.active)),
    expected: () => SUCCESS,
  },
  { name: '§4 wrong account ID: 400', request: (f) => connect(credentials('acc_nobody', f.passcodes.active)), expected: () => INVALID_CREDENTIALS },
  {
    name: '§4 wrong passcode (well-formed, never issued): 400',
    request: (f) => connect(credentials(f.accountId, f.passcodes.unknown)),
    expected: () => INVALID_CREDENTIALS,
  },
  {
    name: '§4 partner not whitelisted: 403 echoing the name',
    request: (f) => connect(credentials(f.accountId, f.passcodes.active), '?partner=globex'),
    expected: () => notWhitelisted('globex'),
  },
  {
    name: '§4/§5.15 storage throwing: 503',
    storage: 'throws',
    request: (f) => connect(credentials(f.accountId, f.passcodes.unknown)),
    expected: () => SERVER_ERROR_503,
  },
  {
    name: '§4/§5.15 storage hanging past the deadline: 504',
    storage: 'hangs',
    request: (f) => connect(credentials(f.accountId, f.passcodes.unknown)),
    expected: () => SERVER_ERROR_504,
  },
  {
    name: '§5.15 partner registry throwing: 503',
    partners: 'throws',
    request: (f) => connect(credentials(f.accountId, f.passcodes.active)),
    expected: () => SERVER_ERROR_503,
  },
  {
    name: '§5.15 partner registry hanging past the deadline: 504',
    partners: 'hangs',
    request: (f) => connect(credentials(f.accountId, f.passcodes.active)),
    expected: () => SERVER_ERROR_504,
  },

  // SPEC §5.1: one 400 for every failure but a matched, expired credential.
  {
    name: '§5.1 passcode with a failing checksum: 400',
    request: (f) => connect(credentials(f.accountId, `${f.passcodes.active.slice(0, -1)}${f.passcodes.active.endsWith('A') ? 'B' : 'A'}`)),
    expected: () => INVALID_CREDENTIALS,
  },
  {
    name: '§5.1 passcode of another account: 400',
    request: (f) => connect(credentials(f.accountId, f.passcodes.otherAccount)),
    expected: () => INVALID_CREDENTIALS,
  },
  {
    name: '§5.1 user passcode of another account: 400',
    request: (f) => connect(credentials(f.otherAccountId, f.passcodes.user)),
    expected: () => INVALID_CREDENTIALS,
  },
  { name: '§5.1 deleted passcode: 400', request: (f) => connect(credentials(f.accountId, f.passcodes.deleted)), expected: () => INVALID_CREDENTIALS },
  {
    name: '§5.1 revoked user passcode: 400',
    request: (f) => connect(credentials(f.accountId, f.passcodes.revokedUser)),
    expected: () => INVALID_CREDENTIALS,
  },
  {
    name: '§5.38 disabled passcode (expired too): 400, never the 401',
    request: (f) => connect(credentials(f.accountId, f.passcodes.disabled)),
    expected: () => INVALID_CREDENTIALS,
  },
  { name: '§5.1 expired passcode: 401', request: (f) => connect(credentials(f.accountId, f.passcodes.expired)), expected: () => EXPIRED },
  {
    name: '§5.1 expired passcode sent with another account ID: 400',
    request: (f) => connect(credentials(f.otherAccountId, f.passcodes.expired)),
    expected: () => INVALID_CREDENTIALS,
  },
  {
    name: '§5.11 user passcode when the account accepts only account passcodes: 400',
    request: (f) => connect(credentials(f.otherAccountId, f.passcodes.userNotAccepted)),
    expected: () => INVALID_CREDENTIALS,
  },
  {
    name: '§5.11 user passcode when the account accepts both: 200 (with Sunset: 28 days left)',
    request: (f) => connect(credentials(f.accountId, f.passcodes.user)),
    expected: (f) => ({ ...SUCCESS, sunset: f.sunsets.user }),
  },

  // SPEC §5.2: credentials before the partner.
  {
    name: '§5.2 wrong credentials and an unlisted partner: 400, not 403',
    request: (f) => connect(credentials(f.accountId, f.passcodes.unknown), '?partner=globex'),
    expected: () => INVALID_CREDENTIALS,
  },
  { name: '§5.2 no credentials and no partner: 400 Invalid Credentials', request: () => connect([], ''), expected: () => INVALID_CREDENTIALS },
  {
    name: '§5.2 expired passcode and an unlisted partner: 401',
    request: (f) => connect(credentials(f.accountId, f.passcodes.expired), '?partner=globex'),
    expected: () => EXPIRED,
  },

  // SPEC §5.3: the partner parameter.
  {
    name: '§5.3 missing partner: 400 Missing partner',
    request: (f) => connect(credentials(f.accountId, f.passcodes.active), ''),
    expected: () => MISSING_PARTNER,
  },
  {
    name: '§5.3 empty partner: 400 Missing partner',
    request: (f) => connect(credentials(f.accountId, f.passcodes.active), '?partner='),
    expected: () => MISSING_PARTNER,
  },
  {
    name: '§5.3 blank partner: 400 Missing partner',
    request: (f) => connect(credentials(f.accountId, f.passcodes.active), '?partner=%20%09%20'),
    expected: () => MISSING_PARTNER,
  },
  {
    name: '§5.3 repeated partner: 400 Missing partner',
    request: (f) => connect(credentials(f.accountId, f.passcodes.active), '?partner=acme&partner=acme'),
    expected: () => MISSING_PARTNER,
  },
  {
    name: '§5.3 bracketed partner[a] is not partner (no qs parsing): 400 Missing partner',
    request: (f) => connect(credentials(f.accountId, f.passcodes.active), '?partner[a]=acme'),
    expected: () => MISSING_PARTNER,
  },
  {
    name: '§5.3 partner trimmed and case-insensitive: 200',
    request: (f) => connect(credentials(f.accountId, f.passcodes.active), '?partner=%20ACME%09'),
    expected: () => SUCCESS,
  },
  {
    name: '§5.3 unlisted partner echoed as sent: 403',
    request: (f) => connect(credentials(f.accountId, f.passcodes.active), '?partner=GloBex'),
    expected: () => notWhitelisted('GloBex'),
  },
  {
    name: '§5.3 "+" in the query is a space: 403 "ac me"',
    request: (f) => connect(credentials(f.accountId, f.passcodes.active), '?partner=ac+me'),
    expected: () => notWhitelisted('ac me'),
  },
  {
    name: '§5.3 unlisted 500-character partner with control characters: 403, cleaned and cut to 128',
    request: (f) => connect(credentials(f.accountId, f.passcodes.active), partnerQuery(HOSTILE_PARTNER)),
    expected: () => notWhitelisted(HOSTILE_PARTNER_ECHO),
  },
  {
    name: '§5.3 unlisted non-ASCII partner: the cut keeps a surrogate pair whole',
    request: (f) => connect(credentials(f.accountId, f.passcodes.active), partnerQuery(ASTRAL_PARTNER)),
    expected: () => notWhitelisted(ASTRAL_PARTNER_ECHO),
  },

  // SPEC §5.25: a passcode bound to partners; §5.26: a value replaced by a rotation.
  {
    name: '§5.25 bound passcode, its partner: 200',
    request: (f) => connect(credentials(f.accountId, f.passcodes.bound), '?partner=initech'),
    expected: () => SUCCESS,
  },
  {
    name: '§5.25 bound passcode, its partner trimmed and in capitals: 200',
    request: (f) => connect(credentials(f.accountId, f.passcodes.bound), '?partner=%20INITECH'),
    expected: () => SUCCESS,
  },
  {
    name: '§5.25 bound passcode, another whitelisted partner: 403 echoing the name',
    request: (f) => connect(credentials(f.accountId, f.passcodes.bound), '?partner=Acme'),
    expected: () => notWhitelisted('Acme'),
  },
  {
    name: '§5.25 bound passcode, a partner not whitelisted: 403',
    request: (f) => connect(credentials(f.accountId, f.passcodes.bound), '?partner=globex'),
    expected: () => notWhitelisted('globex'),
  },
  {
    name: '§5.25 bound passcode with another account ID: 400, the binding is never told',
    request: (f) => connect(credentials(f.otherAccountId, f.passcodes.bound), '?partner=acme'),
    expected: () => INVALID_CREDENTIALS,
  },
  {
    name: '§5.25 bound passcode, no partner: 400 Missing partner',
    request: (f) => connect(credentials(f.accountId, f.passcodes.bound), ''),
    expected: () => MISSING_PARTNER,
  },
  {
    name: "§5.25 unbound passcode, the bound passcode's partner: 200",
    request: (f) => connect(credentials(f.accountId, f.passcodes.active), '?partner=initech'),
    expected: () => SUCCESS,
  },
  {
    name: '§5.26 value replaced by a rotation, inside the overlap: 200, with Sunset at the overlap end',
    request: (f) => connect(credentials(f.accountId, f.passcodes.previous)),
    expected: (f) => ({ ...SUCCESS, sunset: f.sunsets.previous }),
  },
  {
    name: '§5.26 value replaced by a rotation without overlap: 400',
    request: (f) => connect(credentials(f.accountId, f.passcodes.rotatedAway)),
    expected: () => INVALID_CREDENTIALS,
  },

  // SPEC §5.4: header hygiene.
  {
    name: '§5.4 header names in upper case: 200',
    request: (f) =>
      connect([
        ['X-SERVICE-ACCOUNT-ID', f.accountId],
        ['X-SERVICE-PASSCODE', f.passcodes.active],
      ]),
    expected: () => SUCCESS,
  },
  {
    name: '§5.4 header names in lower case: 200',
    request: (f) =>
      connect([
        ['x-service-account-id', f.accountId],
        ['x-service-passcode', f.passcodes.active],
      ]),
    expected: () => SUCCESS,
  },
  {
    name: '§5.4 256-byte account ID (the limit): 200',
    request: (f) => connect(credentials(f.longAccountId, f.passcodes.longAccount)),
    expected: () => SUCCESS,
  },
  {
    name: '§5.4 whitespace around a value is not part of it (HTTP OWS): 200',
    request: (f) =>
      connect([
        ['X-Service-Account-Id', `  ${f.accountId}\t`],
        ['X-Service-Passcode', f.passcodes.active],
      ]),
    expected: () => SUCCESS,
  },
  {
    name: '§5.4 missing account ID header: 400',
    request: (f) => connect([['X-Service-Passcode', f.passcodes.active]]),
    expected: () => INVALID_CREDENTIALS,
  },
  {
    name: '§5.4 missing passcode header: 400',
    request: (f) => connect([['X-Service-Account-Id', f.accountId]]),
    expected: () => INVALID_CREDENTIALS,
  },
  {
    name: '§5.4 empty account ID header: 400',
    request: (f) =>
      connect([
        ['X-Service-Account-Id', ''],
        ['X-Service-Passcode', f.passcodes.active],
      ]),
    expected: () => INVALID_CREDENTIALS,
  },
  {
    name: '§5.4 empty passcode header: 400',
    request: (f) =>
      connect([
        ['X-Service-Account-Id', f.accountId],
        ['X-Service-Passcode', ''],
      ]),
    expected: () => INVALID_CREDENTIALS,
  },
  {
    name: '§5.4 account ID header repeated with the same value: 400',
    request: (f) => connect([...credentials(f.accountId, f.passcodes.active), ['X-Service-Account-Id', f.accountId]]),
    expected: () => INVALID_CREDENTIALS,
  },
  {
    name: '§5.4 passcode header repeated with the same value: 400',
    request: (f) => connect([...credentials(f.accountId, f.passcodes.active), ['X-Service-Passcode', f.passcodes.active]]),
    expected: () => INVALID_CREDENTIALS,
  },
  {
    name: '§5.4 passcode header repeated under another name casing: 400',
    request: (f) => connect([...credentials(f.accountId, f.passcodes.active), ['x-service-passcode', f.passcodes.active]]),
    expected: () => INVALID_CREDENTIALS,
  },
  {
    name: '§5.4 account ID header repeated, first one empty: 400',
    request: (f) => connect([['X-Service-Account-Id', ''], ...credentials(f.accountId, f.passcodes.active)]),
    expected: () => INVALID_CREDENTIALS,
  },
  {
    name: '§5.4 257-byte account ID header: 400',
    request: (f) => connect(credentials('a'.repeat(257), f.passcodes.active)),
    expected: () => INVALID_CREDENTIALS,
  },
  {
    name: '§5.4 257-byte passcode header: 400',
    request: (f) => connect(credentials(f.accountId, f.passcodes.active.padEnd(257, 'x'))),
    expected: () => INVALID_CREDENTIALS,
  },
  {
    name: '§5.4 non-ASCII byte (latin1 0xE9) in the account ID: 400',
    request: (f) => connect(credentials(`${f.accountId}\xe9`, f.passcodes.active)),
    expected: () => INVALID_CREDENTIALS,
  },
  {
    name: '§5.4 UTF-8 bytes in the passcode: 400',
    request: (f) => connect(credentials(f.accountId, `${f.passcodes.active}\xc3\xa9`)),
    expected: () => INVALID_CREDENTIALS,
  },
  {
    name: '§5.4 space inside the account ID: 400',
    request: (f) => connect(credentials(`${f.accountId} x`, f.passcodes.active)),
    expected: () => INVALID_CREDENTIALS,
  },

  // SPEC §5.16–5.17: the example protected route sees who called.
  {
    name: '§5.17 protected route with an account passcode: the account principal',
    request: (f) => events(credentials(f.accountId, f.passcodes.active)),
    expected: (f) => principal(f.principals.account),
  },
  {
    name: '§5.17 protected route with a user passcode: the user principal (with Sunset: 28 days left)',
    request: (f) => events(credentials(f.accountId, f.passcodes.user)),
    expected: (f) => principal(f.principals.user, f.sunsets.user),
  },
  {
    name: '§5.25 protected route with a bound passcode: the principal carries the binding',
    request: (f) => events(credentials(f.accountId, f.passcodes.bound)),
    expected: (f) => principal(f.principals.bound),
  },
  // SPEC §5.48–5.49: restricted passcodes, the same 403s from every adapter.
  {
    name: '§5.48 route needing a scope, passcode without it: 403 Missing scope',
    request: (f) => writeRoute(credentials(f.accountId, f.passcodes.readOnly)),
    expected: () => answer(403, '{"status":"fail","error":"Missing scope: events:write","code":403}'),
  },
  {
    name: '§5.48 route needing a scope, passcode with every scope: the principal',
    request: (f) => writeRoute(credentials(f.accountId, f.passcodes.active)),
    expected: (f) => principal(f.principals.account),
  },
  {
    name: '§5.48 route needing a scope, a wrong passcode: 400 (credentials first)',
    request: (f) => writeRoute(credentials(f.accountId, f.passcodes.unknown)),
    expected: () => INVALID_CREDENTIALS,
  },
  {
    name: '§5.48 route needing no scope, passcode with fewer: the principal lists what it grants',
    request: (f) => events(credentials(f.accountId, f.passcodes.readOnly)),
    expected: (f) => principal(f.principals.readOnly),
  },
  {
    name: '§5.48 /v1/connect needs no scope',
    request: (f) => connect(credentials(f.accountId, f.passcodes.readOnly)),
    expected: () => SUCCESS,
  },
  {
    name: '§5.49 passcode with an address allowlist, from another address: 403 Address not allowed',
    request: (f) => events(credentials(f.accountId, f.passcodes.fenced)),
    expected: () => answer(403, '{"status":"fail","error":"Address not allowed","code":403}'),
  },
  {
    name: '§5.49 /v1/connect with that passcode from another address: 403 Address not allowed',
    request: (f) => connect(credentials(f.accountId, f.passcodes.fenced)),
    expected: () => answer(403, '{"status":"fail","error":"Address not allowed","code":403}'),
  },
  {
    name: '§5.38 protected route with a disabled passcode: 400',
    request: (f) => events(credentials(f.accountId, f.passcodes.disabled)),
    expected: () => INVALID_CREDENTIALS,
  },
  {
    name: '§5.26 protected route with a value replaced by a rotation without overlap: 400',
    request: (f) => events(credentials(f.accountId, f.passcodes.rotatedAway)),
    expected: () => INVALID_CREDENTIALS,
  },

  // Expiry warnings (RFC 8594): answers authenticated by a passcode in its last 30 days carry Sunset.
  {
    name: 'Sunset: connect with a passcode in its last 30 days: 200 with its expiry',
    request: (f) => connect(credentials(f.accountId, f.passcodes.expiring)),
    expected: (f) => ({ ...SUCCESS, sunset: f.sunsets.expiring }),
  },
  {
    name: 'Sunset: protected route with a passcode in its last 30 days: the principal, with its expiry',
    request: (f) => events(credentials(f.accountId, f.passcodes.expiring)),
    expected: (f) => principal(f.principals.expiring, f.sunsets.expiring),
  },
  {
    name: 'Sunset: HEAD /v1/connect with a passcode in its last 30 days: 200 with its expiry, without a body',
    request: (f) => withMethod('HEAD', connect(credentials(f.accountId, f.passcodes.expiring))),
    expected: (f) => ({ ...SUCCESS, body: '', sunset: f.sunsets.expiring }),
  },
  {
    name: 'Sunset: never on a refusal, even for a passcode in its last 30 days (403)',
    request: (f) => connect(credentials(f.accountId, f.passcodes.expiring), '?partner=globex'),
    expected: () => notWhitelisted('globex'),
  },
  {
    name: 'Sunset: not sent for a passcode with 88 days left',
    request: (f) => events(credentials(f.accountId, f.passcodes.active)),
    expected: (f) => principal(f.principals.account),
  },
  {
    name: '§5.16 protected route with a wrong passcode: 400',
    request: (f) => events(credentials(f.accountId, f.passcodes.unknown)),
    expected: () => INVALID_CREDENTIALS,
  },
  {
    name: '§5.16 protected route with an expired passcode: 401',
    request: (f) => events(credentials(f.accountId, f.passcodes.expired)),
    expected: () => EXPIRED,
  },
  {
    name: '§5.16 protected route with a revoked user passcode: 400',
    request: (f) => events(credentials(f.accountId, f.passcodes.revokedUser)),
    expected: () => INVALID_CREDENTIALS,
  },
  {
    name: '§5.16 protected route with a user passcode the account does not accept: 400',
    request: (f) => events(credentials(f.otherAccountId, f.passcodes.userNotAccepted)),
    expected: () => INVALID_CREDENTIALS,
  },
  { name: '§5.16 protected route without headers: 400', request: () => events([]), expected: () => INVALID_CREDENTIALS },
  {
    name: '§5.16 protected route with a repeated passcode header: 400',
    request: (f) => events([...credentials(f.accountId, f.passcodes.active), ['X-Service-Passcode', f.passcodes.active]]),
    expected: () => INVALID_CREDENTIALS,
  },
  {
    name: '§5.16 protected route, storage throwing: 503',
    storage: 'throws',
    request: (f) => events(credentials(f.accountId, f.passcodes.unknown)),
    expected: () => SERVER_ERROR_503,
  },
  // Methods: GET and HEAD get the SPEC answers; every other method on /v1/connect a 405.
  {
    name: 'HEAD /v1/connect is answered as GET, without a body: 200',
    request: (f) => withMethod('HEAD', connect(credentials(f.accountId, f.passcodes.active))),
    expected: () => ({ ...SUCCESS, body: '' }),
  },
  {
    name: 'HEAD /v1/connect with wrong credentials: 400, without a body',
    request: (f) => withMethod('HEAD', connect(credentials(f.accountId, f.passcodes.unknown))),
    expected: () => ({ ...INVALID_CREDENTIALS, body: '' }),
  },
  ...OTHER_METHODS.map((method) => ({
    name: `SPEC 5.20 ${method} /v1/connect with valid credentials: 405 Method Not Allowed, Allow: GET, HEAD`,
    method,
    request: (f: HttpFixture) => withMethod(method, connect(credentials(f.accountId, f.passcodes.active))),
    expected: () => METHOD_NOT_ALLOWED,
  })),
  {
    name: 'POST /v1/connect with a malformed JSON body: 405, the body is never parsed',
    method: 'POST',
    request: (f) =>
      withMethod('POST', connect([...credentials(f.accountId, f.passcodes.active), ['Content-Type', 'application/json'], ['Content-Length', '0']])),
    expected: () => METHOD_NOT_ALLOWED,
  },
  {
    name: '§5.16 protected route, storage hanging past the deadline: 504',
    storage: 'hangs',
    request: (f) => events(credentials(f.accountId, f.passcodes.unknown)),
    expected: () => SERVER_ERROR_504,
  },
]

/** The parts of a response that must be identical across targets. */
function comparable(response: RawResponse) {
  return {
    status: response.status,
    body: response.body.toString('hex'),
    'content-type': response.headers['content-type'],
    'cache-control': response.headers['cache-control'],
    allow: response.headers.allow,
    sunset: response.headers.sunset,
  }
}

/**
 * Runs every case against every target over a real socket on 127.0.0.1: one shared
 * fixture (so IDs agree), cases one after another (the failure modes are global),
 * and for each case one test per target plus one that all targets agree byte for byte.
 * Then the same with the brute-force limiter on (test/conformance/http-rate-limit.ts),
 * and the CORS cases (test/conformance/http-cors.ts).
 */
export function describeHttpConformance(targets: readonly HttpTarget[]): void {
  describe('HTTP conformance', () => {
    let fixture: HttpFixture
    const apps = new Map<string, RunningApp>()

    beforeAll(async () => {
      fixture = await createHttpFixture()
      for (const target of targets) apps.set(target.name, await target.start(fixture.auth))
    })
    afterAll(async () => {
      await Promise.all([...apps.values()].map((app) => app.close()))
      await fixture?.close()
    })

    describe.each(HTTP_CASES.map((testCase) => [testCase.name, testCase] as const))('%s', (_, testCase) => {
      const responses = new Map<string, RawResponse>()

      beforeAll(async () => {
        fixture.setStorage(testCase.storage ?? 'normal')
        fixture.setPartners(testCase.partners ?? 'normal')
        try {
          for (const target of targets) responses.set(target.name, await sendRaw(apps.get(target.name)!.port, testCase.request(fixture)))
        } finally {
          fixture.setStorage('normal')
          fixture.setPartners('normal')
        }
      })

      const unroutable = (target: HttpTarget) => testCase.method !== undefined && target.unroutableMethods?.methods.includes(testCase.method) === true
      it.each(targets.map((target) => [target.name, target] as const))('%s', (name, target) => {
        const response = responses.get(name)!
        if (unroutable(target)) {
          // The framework's own answer, asserted so that a fix upstream is noticed.
          expect(response.status, target.unroutableMethods!.because).toBe(404)
          return
        }
        const expected = testCase.expected(fixture)
        expect(response.status).toBe(expected.status)
        expect(response.body.toString('utf8')).toBe(expected.body)
        expect(response.body.equals(Buffer.from(expected.body, 'utf8'))).toBe(true)
        expect(response.headers['content-type']).toBe(expected.headers['content-type'])
        expect(response.headers['cache-control']).toBe(expected.headers['cache-control'])
        if (expected.allow !== undefined) expect(response.headers.allow).toBe(expected.allow)
        expect(response.headers.sunset).toBe(expected.sunset ?? undefined)
      })

      const compared = targets.filter((target) => !unroutable(target))
      it(`is the same bytes on all ${compared.length} targets that route it`, () => {
        const [first, ...rest] = compared.map((target) => comparable(responses.get(target.name)!))
        for (const other of rest) expect(other).toEqual(first)
      })
    })
  })
  describeRateLimitConformance(targets)
  describeCorsConformance(targets)
}
