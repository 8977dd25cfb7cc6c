import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { CorsOptions } from '../../src/index'
import { createHttpFixture, type FailureMode, type HttpFixture } from '../http/fixture'
import { sendRaw, type RawRequest, type RawResponse } from '../http/raw-client'
import type { HttpTarget, RunningApp } from './http'

/**
 * CORS on `/v1/connect` (SPEC §5.30), against every target over a real socket: once
 * started with `cors` (one allowed origin), once without (CORS off, the default). The
 * expected headers are written out here, not taken from src/protocol/cors.ts.
 */

const ALLOWED = 'https://dashboard.partner.example'
const OTHER = 'https://evil.example'
export const CONFORMANCE_CORS: CorsOptions = { origins: [ALLOWED, 'http://localhost:5173'] }

/** Every header the suite looks at; `undefined` means absent. */
type CorsHeaders = Readonly<Record<(typeof CORS_HEADER_NAMES)[number], string | undefined>>
const CORS_HEADER_NAMES = [
  'access-control-allow-origin',
  'access-control-allow-methods',
  'access-control-allow-headers',
  'access-control-max-age',
  'access-control-expose-headers',
  'access-control-allow-credentials',
  'vary',
  'allow',
] as const

const NONE: CorsHeaders = Object.fromEntries(CORS_HEADER_NAMES.map((name) => [name, undefined])) as CorsHeaders
const ON_ANSWERS: CorsHeaders = {
  ...NONE,
  'access-control-allow-origin': ALLOWED,
  'access-control-expose-headers': 'Retry-After, Sunset',
  vary: 'Origin',
}
const PREFLIGHT: CorsHeaders = {
  ...NONE,
  'access-control-allow-origin': ALLOWED,
  'access-control-allow-methods': 'GET, HEAD',
  'access-control-allow-headers': 'X-Service-Account-Id, X-Service-Passcode',
  'access-control-max-age': '600',
  vary: 'Origin',
}

interface Expected {
  readonly status: number
  readonly body: string
  readonly headers: CorsHeaders
}
interface CorsCase {
  readonly name: string
  /** Whether the targets run with {@link CONFORMANCE_CORS} or with CORS off. */
  readonly cors: boolean
  readonly storage?: FailureMode
  request(fixture: HttpFixture): RawRequest
  readonly expected: Expected
}

const METHOD_NOT_ALLOWED = '{"status":"fail","error":"Method Not Allowed","code":405}'
const credentials = (f: HttpFixture, passcode = f.passcodes.active): RawRequest['headers'] => [
  ['X-Service-Account-Id', f.accountId],
  ['X-Service-Passcode', passcode],
]
const get = (headers: RawRequest['headers'], query = '?partner=acme'): RawRequest => ({ target: `/v1/connect${query}`, headers })
const preflight = (origin: string | undefined, method: string | undefined): RawRequest => ({
  method: 'OPTIONS',
  target: '/v1/connect?partner=acme',
  headers: [
    ...(origin === undefined ? [] : [['Origin', origin] as const]),
    ...(method === undefined ? [] : [['Access-Control-Request-Method', method] as const]),
    ['Access-Control-Request-Headers', 'x-service-account-id,x-service-passcode'],
  ],
})

const CASES: readonly CorsCase[] = [
  {
    name: 'preflight from an allowed origin: 204 with the allow headers',
    cors: true,
    request: () => preflight(ALLOWED, 'GET'),
    expected: { status: 204, body: '', headers: PREFLIGHT },
  },
  {
    name: 'preflight from another origin: the 405, no CORS header',
    cors: true,
    request: () => preflight(OTHER, 'GET'),
    expected: { status: 405, body: METHOD_NOT_ALLOWED, headers: { ...NONE, allow: 'GET, HEAD' } },
  },
  {
    name: 'preflight for another method from an allowed origin: the 405, with the origin allowed',
    cors: true,
    request: () => preflight(ALLOWED, 'POST'),
    expected: { status: 405, body: METHOD_NOT_ALLOWED, headers: { ...ON_ANSWERS, allow: 'GET, HEAD' } },
  },
  {
    name: 'OPTIONS without Origin: the 405, no CORS header',
    cors: true,
    request: () => preflight(undefined, undefined),
    expected: { status: 405, body: METHOD_NOT_ALLOWED, headers: { ...NONE, allow: 'GET, HEAD' } },
  },
  {
    name: 'GET from an allowed origin, valid: 200 with the origin and exposed headers',
    cors: true,
    request: (f) => get([['Origin', ALLOWED], ...credentials(f)]),
    expected: { status: 200, body: '{"status":"success","message":"Authorised Successfully."}', headers: ON_ANSWERS },
  },
  {
    name: 'GET from an allowed origin, wrong passcode: 400 with the origin',
    cors: true,
    request: (f) => get([['Origin', ALLOWED], ...credentials(f, f.passcodes.unknown)]),
    expected: { status: 400, body: '{"status":"fail","error":"Invalid Credentials","code":400}', headers: ON_ANSWERS },
  },
  {
    name: 'GET from an allowed origin, expired passcode: 401 with the origin',
    cors: true,
    request: (f) => get([['Origin', ALLOWED], ...credentials(f, f.passcodes.expired)]),
    expected: { status: 401, body: '{"status":"fail","error":"Passcode expired","code":401}', headers: ON_ANSWERS },
  },
  {
    name: 'GET from an allowed origin, partner not whitelisted: 403 with the origin',
    cors: true,
    request: (f) => get([['Origin', ALLOWED], ...credentials(f)], '?partner=globex'),
    expected: { status: 403, body: '{"status":"fail","error":"Partner not whitelisted globex","code":403}', headers: ON_ANSWERS },
  },
  {
    name: 'GET from an allowed origin, storage failing: 503 with the origin',
    cors: true,
    storage: 'throws',
    request: (f) => get([['Origin', ALLOWED], ...credentials(f, f.passcodes.unknown)]),
    expected: { status: 503, body: '{"status":"fail","error":"Server Error","code":503}', headers: ON_ANSWERS },
  },
  {
    name: 'GET from another origin: the answer, no CORS header',
    cors: true,
    request: (f) => get([['Origin', OTHER], ...credentials(f)]),
    expected: { status: 200, body: '{"status":"success","message":"Authorised Successfully."}', headers: NONE },
  },
  {
    name: 'GET with an origin that differs only by a trailing slash: no CORS header',
    cors: true,
    request: (f) => get([['Origin', `${ALLOWED}/`], ...credentials(f)]),
    expected: { status: 200, body: '{"status":"success","message":"Authorised Successfully."}', headers: NONE },
  },
  {
    name: 'CORS off (the default): a preflight from any origin is the 405',
    cors: false,
    request: () => preflight(ALLOWED, 'GET'),
    expected: { status: 405, body: METHOD_NOT_ALLOWED, headers: { ...NONE, allow: 'GET, HEAD' } },
  },
  {
    name: 'CORS off (the default): a GET with an Origin gets no CORS header',
    cors: false,
    request: (f) => get([['Origin', ALLOWED], ...credentials(f)]),
    expected: { status: 200, body: '{"status":"success","message":"Authorised Successfully."}', headers: NONE },
  },
]

const headersOf = (response: RawResponse): CorsHeaders =>
  Object.fromEntries(CORS_HEADER_NAMES.map((name) => [name, response.headers[name]])) as CorsHeaders

/** Runs {@link CASES} against every target, started with and without `cors`. */
export function describeCorsConformance(targets: readonly HttpTarget[]): void {
  describe('HTTP conformance: SPEC 5.30 CORS on /v1/connect', () => {
    let fixture: HttpFixture
    const apps = new Map<string, RunningApp>()
    const key = (target: HttpTarget, cors: boolean) => `${target.name}${cors ? ' with cors' : ''}`

    beforeAll(async () => {
      fixture = await createHttpFixture()
      for (const target of targets) {
        apps.set(key(target, true), await target.start(fixture.auth, { cors: CONFORMANCE_CORS }))
        apps.set(key(target, false), await target.start(fixture.auth))
      }
    })
    afterAll(async () => {
      await Promise.all([...apps.values()].map((app) => app.close()))
      await fixture?.close()
    })

    describe.each(CASES.map((testCase) => [testCase.name, testCase] as const))('%s', (_, testCase) => {
      const responses = new Map<string, RawResponse>()
      beforeAll(async () => {
        fixture.setStorage(testCase.storage ?? 'normal')
        try {
          for (const target of targets) {
            responses.set(target.name, await sendRaw(apps.get(key(target, testCase.cors))!.port, testCase.request(fixture)))
          }
        } finally {
          fixture.setStorage('normal')
        }
      })

      it.each(targets.map((target) => [target.name] as const))('%s', (name) => {
        const response = responses.get(name)!
        expect(response.status).toBe(testCase.expected.status)
        expect(response.body.toString('utf8')).toBe(testCase.expected.body)
        expect(headersOf(response)).toEqual(testCase.expected.headers)
      })
    })
  })
}
