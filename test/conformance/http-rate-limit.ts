import { beforeAll, describe, expect, it } from 'vitest'
import { createHttpFixture, type FailureMode, type HttpFixture } from '../http/fixture'
import { sendRaw, type RawRequest, type RawResponse } from '../http/raw-client'
import type { HttpTarget, RunningApp } from './http'

/**
 * The HTTP conformance cases of the brute-force limiter (`rateLimit` option), run
 * against every target over a real socket. Each case is a sequence of requests from
 * chosen client addresses (127.0.0.x: every adapter must hand the framework's client
 * address to the service, or the per-address cases fail) against a fresh service per
 * target, so counts never leak from one target or case to the next. The fixture's
 * clock stands still, so every `Retry-After` is the whole window: 60 seconds.
 */

/** The limiter every case runs with. */
export const CONFORMANCE_RATE_LIMIT = { windowMs: 60_000, maxFailuresPerAddress: 3, maxFailuresPerAccount: 5 } as const

const JSON_HEADERS = { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' }
interface Expected {
  readonly status: number
  readonly body: string
  readonly headers: Readonly<Record<string, string | undefined>>
}
const answer = (status: number, body: string, extra: Record<string, string | undefined> = { 'retry-after': undefined }): Expected => ({
  status,
  body,
  headers: { ...JSON_HEADERS, ...extra },
})
const SUCCESS = answer(200, '{"status":"success","message":"Authorised Successfully."}')
const INVALID = answer(400, '{"status":"fail","error":"Invalid Credentials","code":400}')
const EXPIRED = answer(401, '{"status":"fail","error":"Passcode expired","code":401}')
const MISSING_PARTNER = answer(400, '{"status":"fail","error":"Missing partner","code":400}')
const GLOBEX = answer(403, '{"status":"fail","error":"Partner not whitelisted globex","code":403}')
const SERVER_ERROR = answer(503, '{"status":"fail","error":"Server Error","code":503}')
const TOO_MANY = answer(429, '{"status":"fail","error":"Too Many Requests","code":429}', { 'retry-after': '60' })
const PRINCIPAL = (f: HttpFixture): Expected => ({
  status: 200,
  body: JSON.stringify(f.principals.account),
  headers: { 'content-type': 'application/json; charset=utf-8', 'retry-after': undefined },
})

interface Step {
  readonly request: (f: HttpFixture) => RawRequest
  readonly expected: (f: HttpFixture) => Expected
  readonly storage?: FailureMode
  /** How many times the step is sent in a row. @default 1 */
  readonly times?: number
}
interface RateLimitCase {
  readonly name: string
  readonly steps: readonly Step[]
}

const host = (n: number) => `127.0.0.${n}`
const credentials = (accountId: string, passcode: string): RawRequest['headers'] => [
  ['X-Service-Account-Id', accountId],
  ['X-Service-Passcode', passcode],
]
const connect = (from: number, headers: RawRequest['headers'], query = '?partner=acme'): RawRequest => ({
  from: host(from),
  target: `/v1/connect${query}`,
  headers,
})
const events = (from: number, headers: RawRequest['headers']): RawRequest => ({ from: host(from), target: '/1/events.json', headers })
const valid = (from: number) => (f: HttpFixture) => connect(from, credentials(f.accountId, f.passcodes.active))
const validEvents = (from: number) => (f: HttpFixture) => events(from, credentials(f.accountId, f.passcodes.active))
const wrong = (from: number) => (f: HttpFixture) => connect(from, credentials(f.accountId, f.passcodes.unknown))

export const RATE_LIMIT_CASES: readonly RateLimitCase[] = [
  {
    name: 'per address: after 3 refusals (400, 400, 401) valid credentials from that address get 429 with Retry-After; others do not',
    steps: [
      { request: wrong(2), expected: () => INVALID },
      { request: (f) => connect(2, [['X-Service-Account-Id', f.accountId]]), expected: () => INVALID },
      { request: (f) => events(2, credentials(f.accountId, f.passcodes.expired)), expected: () => EXPIRED },
      { request: valid(2), expected: () => TOO_MANY },
      { request: validEvents(2), expected: () => TOO_MANY },
      { request: wrong(2), expected: () => TOO_MANY, times: 5 },
      { request: valid(3), expected: () => SUCCESS },
      { request: validEvents(3), expected: PRINCIPAL },
    ],
  },
  {
    name: 'per account: 5 refusals from 5 addresses refuse failing attempts from a sixth, never valid credentials (SPEC 5.21)',
    steps: [
      ...[2, 3, 4, 5, 6].map((from) => ({ request: wrong(from), expected: () => INVALID })),
      { request: wrong(7), expected: () => TOO_MANY },
      { request: valid(7), expected: () => SUCCESS },
      { request: validEvents(7), expected: PRINCIPAL },
      { request: (f) => connect(7, credentials(f.otherAccountId, f.passcodes.otherAccount)), expected: () => SUCCESS },
    ],
  },
  {
    name: 'successful calls are never counted',
    steps: [
      { request: valid(2), expected: () => SUCCESS, times: 10 },
      { request: validEvents(2), expected: PRINCIPAL, times: 10 },
      { request: wrong(2), expected: () => INVALID, times: 2 },
      { request: valid(2), expected: () => SUCCESS, times: 5 },
    ],
  },
  {
    name: 'partner refusals (403, missing partner) are not counted: the caller is authenticated',
    steps: [
      { request: (f) => connect(2, credentials(f.accountId, f.passcodes.active), '?partner=globex'), expected: () => GLOBEX, times: 4 },
      { request: (f) => connect(2, credentials(f.accountId, f.passcodes.active), ''), expected: () => MISSING_PARTNER, times: 4 },
      { request: valid(2), expected: () => SUCCESS },
    ],
  },
  {
    name: 'server errors (503) are not counted',
    steps: [
      { request: wrong(2), expected: () => SERVER_ERROR, storage: 'throws', times: 4 },
      { request: valid(2), expected: () => SUCCESS },
    ],
  },
]

/** The parts of a response that must be identical across targets. */
const comparable = (response: RawResponse) => ({
  status: response.status,
  body: response.body.toString('hex'),
  'content-type': response.headers['content-type'],
  'cache-control': response.headers['cache-control'],
  'retry-after': response.headers['retry-after'],
})

/**
 * Runs {@link RATE_LIMIT_CASES} against every target: per case and target, a fresh
 * service with {@link CONFORMANCE_RATE_LIMIT}; then checks that all targets sent the
 * same status, bytes and headers at every step.
 */
export function describeRateLimitConformance(targets: readonly HttpTarget[]): void {
  describe(`HTTP conformance with the brute-force limiter on (${JSON.stringify(CONFORMANCE_RATE_LIMIT)})`, () => {
    describe.each(RATE_LIMIT_CASES.map((testCase) => [testCase.name, testCase] as const))('%s', (_, testCase) => {
      const transcripts = new Map<string, { response: RawResponse; expected: Expected; step: number }[]>()

      beforeAll(async () => {
        for (const target of targets) {
          const fixture = await createHttpFixture({ rateLimit: CONFORMANCE_RATE_LIMIT })
          let app: RunningApp | undefined
          const transcript: { response: RawResponse; expected: Expected; step: number }[] = []
          try {
            app = await target.start(fixture.auth)
            for (const [index, step] of testCase.steps.entries()) {
              for (let i = 0; i < (step.times ?? 1); i++) {
                fixture.setStorage(step.storage ?? 'normal')
                try {
                  transcript.push({ response: await sendRaw(app.port, step.request(fixture)), expected: step.expected(fixture), step: index })
                } finally {
                  fixture.setStorage('normal')
                }
              }
            }
          } finally {
            await app?.close()
            await fixture.close()
          }
          transcripts.set(target.name, transcript)
        }
      })

      it.each(targets.map((target) => [target.name]))('%s', (name) => {
        for (const { response, expected, step } of transcripts.get(name)!) {
          const seen = { step, status: response.status, body: response.body.toString('utf8'), headers: {} as Record<string, string | undefined> }
          for (const header of Object.keys(expected.headers)) seen.headers[header] = response.headers[header]
          expect(seen).toEqual({ step, status: expected.status, body: expected.body, headers: expected.headers })
        }
      })

      // The principal route's body holds IDs of each target's own fixture: compared per target above only.
      it(`is the same bytes on all ${targets.length} targets`, () => {
        const [first, ...rest] = targets.map((target) =>
          transcripts
            .get(target.name)!
            .map(({ response, expected }) => (expected.headers['cache-control'] === undefined ? response.status : comparable(response))),
        )
        for (const other of rest) expect(other).toEqual(first)
      })
    })
  })
}
