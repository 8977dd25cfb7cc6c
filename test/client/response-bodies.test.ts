import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { UnexpectedResponseError } from '../../src/client'
import { interpretResponse } from '../../src/client/interpret-response'
import { connectResponseSchemas } from '../../src/protocol/connect-response-schemas'

/*
 * The client checks answers with hand-written guards (no zod in a browser bundle); the
 * package exports zod schemas of the same bodies for OpenAPI. Both must accept exactly
 * the same bodies, status by status.
 */

const texts = [
  'Invalid Credentials',
  'Missing partner',
  'Passcode expired',
  'Partner not whitelisted Acme',
  'Partner not whitelisted',
  'Too Many Requests',
  'Server Error',
  'Authorised Successfully.',
]
const codes = [200, 400, 401, 403, 429, 503, 504, 400.5, '400']

const fieldValue = fc.oneof(fc.constantFrom<unknown>(...texts, ...codes, 'success', 'fail', null, true, [], {}), fc.string(), fc.integer())
const answers = [
  { status: 'success', message: 'Authorised Successfully.' },
  ...(
    [
      [400, 'Invalid Credentials'],
      [400, 'Missing partner'],
      [401, 'Passcode expired'],
      [403, 'Partner not whitelisted Acme'],
      [429, 'Too Many Requests'],
      [503, 'Server Error'],
    ] as const
  ).map(([code, error]) => ({ status: 'fail', error, code })),
]
const body = fc.oneof(
  fc.constantFrom<unknown>(...answers),
  fc.constantFrom(...answers).map((answer) => ({ ...answer, extra: 'field' })),
  fc.record(
    {
      status: fc.oneof(fc.constantFrom<unknown>('success', 'fail'), fieldValue),
      error: fc.oneof(fc.constantFrom<unknown>(...texts), fieldValue),
      message: fieldValue,
      code: fc.oneof(fc.constantFrom<unknown>(...codes), fieldValue),
      extra: fieldValue,
    },
    { requiredKeys: [] },
  ),
  fieldValue,
)

/** The statuses whose body the client reads (it answers 503 and 504 before reading). */
const readStatuses = [200, 400, 401, 403, 429] as const

function clientAccepts(status: number, json: unknown): boolean {
  const result = interpretResponse(
    {
      status,
      contentType: 'application/json',
      body: { bytes: new TextEncoder().encode(JSON.stringify(json)), truncated: false },
      retryAfterMs: undefined,
    },
    { partner: 'Acme', passcode: 'psc_x' },
  )
  return !(result instanceof UnexpectedResponseError && result.reason === 'schema')
}

describe('the client’s body guards', () => {
  it.each(readStatuses)('accept exactly what the zod schema of %i accepts', (status) => {
    const schema = connectResponseSchemas[status]
    fc.assert(
      fc.property(body, (json) => {
        const roundTripped: unknown = JSON.parse(JSON.stringify(json) ?? 'null')
        expect(clientAccepts(status, roundTripped)).toBe(schema.safeParse(roundTripped).success)
      }),
      { numRuns: 2_000 },
    )
  })

  it('resolve a 200 with the two fields zod keeps, dropping extra ones', () => {
    const json = { status: 'success', message: 'Authorised Successfully.', extra: 1 }
    const result = interpretResponse(
      {
        status: 200,
        contentType: 'application/json',
        body: { bytes: new TextEncoder().encode(JSON.stringify(json)), truncated: false },
        retryAfterMs: undefined,
      },
      { partner: 'Acme', passcode: 'psc_x' },
    )
    expect(result).toEqual(connectResponseSchemas[200].parse(json))
  })
})
